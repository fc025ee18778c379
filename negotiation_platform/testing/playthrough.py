"""Random legal play straight through the engine's `Match`, recording what `check_game` inspects.

Each move picks one acting seat and one of its allowed actions, then tries payloads in a random
order: payloads sampled from the schema the seat is shown, and the game's own suggestions (the
phase's default payload, the offers its `bargaining_position` implies, the prompt's example).
The first one the engine accepts is played; a seat with nothing legal forfeits to the default
move. Everything random comes from one `random.Random(seed)`, so a deterministic game plays the
same way twice.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from pydantic import JsonValue

from negotiation_platform.agents.offers import field_offer
from negotiation_platform.agents.payloads import sample_payload
from negotiation_platform.engine import Match
from negotiation_platform.engine.event_log import played_by_default
from negotiation_platform.engine.events import INPUT_KINDS
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games.base_game import BARGAINING_ACTIONS, BaseGame, ConfigInput, GameConfig
from negotiation_platform.games.prompting import example_payload
from negotiation_platform.spec import ActionSpec

SAMPLES_PER_ACTION = 6
MESSAGE_CHANCE = 0.2
NO_LEGAL_MOVE = "check_game found no legal move"
REFUSALS = frozenset({ErrorCode.INVALID_PAYLOAD, ErrorCode.INVALID_ACTION})


class PlayFailure(Exception):
    """The play itself went wrong (the engine refused something it offered, or the match never ended)."""


@dataclass(frozen=True)
class Snapshot:
    """What every seat and a spectator could see at one moment, as JSON data."""

    views: dict[str, JsonValue]
    public: JsonValue
    prompts: dict[str, str]
    event_count: int
    positions: dict[str, JsonValue]
    """The bargaining position of each acting seat that may take a bargaining action now."""
    batnas: dict[str, JsonValue]
    finished: bool


@dataclass(frozen=True)
class Seen:
    """Every seat's view and BATNA at one moment."""

    views: dict[str, JsonValue]
    batnas: dict[str, JsonValue]


def seen(match: Match) -> Seen:
    game = match.game
    return Seen(
        {seat: _as_json(game.get_player_view(seat)) for seat in match.players}, _as_json_object(game.player_batnas())
    )


@dataclass(frozen=True)
class PlayedMove:
    seat: str
    action: ActionSpec
    payload: dict[str, JsonValue]


@dataclass
class Playthrough:
    match: Match
    snapshots: list[Snapshot] = field(default_factory=list)
    moves: list[PlayedMove] = field(default_factory=list)


def play_randomly(
    game_cls: type[BaseGame[GameConfig]], players: list[str], config: ConfigInput, seed: int, max_moves: int
) -> Playthrough:
    """Play one whole match with random legal moves; raises PlayFailure if it has not ended after `max_moves`."""
    match = Match(game_cls, players, config=config, seed=seed, clock=lambda: 0.0)
    rng = random.Random(seed)
    played = Playthrough(match)
    for _ in range(max_moves):
        played.snapshots.append(snapshot(match))
        if match.finished:
            return played
        acting = match.acting()
        if not acting:
            match.time_out()
            continue
        random_move(played, rng.choice(acting), rng)
    raise PlayFailure(f"the match had not ended after {max_moves} moves")


def seen_on_seed(game_cls: type[BaseGame[GameConfig]], play: Playthrough, config: ConfigInput, seed: int) -> list[Seen]:
    """Every seat's view and BATNA, move by move, when `play`'s moves are made in a match on another
    `seed`, for as long as they stay legal there: item i is aligned with `play.snapshots[i]`."""
    match = Match(game_cls, play.match.players, config=config, seed=seed, clock=lambda: 0.0)
    moments = [seen(match)]
    for event in play.match.events:
        if event.kind not in INPUT_KINDS or played_by_default(event.data):
            continue
        try:
            match.feed(event)
        except NegotiationError:
            break
        moments.append(seen(match))
    return moments


def snapshot(match: Match) -> Snapshot:
    game = match.game
    positions = {
        seat: _as_json(game.bargaining_position(seat))
        for seat in match.acting()
        if any(a.name in BARGAINING_ACTIONS for a in match.allowed_actions(seat))
    }
    now = seen(match)
    return Snapshot(
        views=now.views,
        public=_as_json(game.public_view()),
        prompts={seat: game.get_game_prompt(seat) for seat in match.players},
        event_count=len(match.events),
        positions=positions,
        batnas=now.batnas,
        finished=match.finished,
    )


def _as_json(value: object) -> JsonValue:
    """A deep copy through JSON: views are sent to agents as JSON, so they must survive it."""
    copied: JsonValue = json.loads(json.dumps(value))
    return copied


def _as_json_object(value: dict[str, float]) -> dict[str, JsonValue]:
    copied: dict[str, JsonValue] = json.loads(json.dumps(value))
    return copied


def random_move(played: Playthrough, seat: str, rng: random.Random) -> None:
    """One random legal move of `seat` (or a message, some of the time where talk is open), recorded in
    `played`; the default move where nothing the seat tries is accepted."""
    match = played.match
    allowed = match.allowed_actions(seat)
    talk = match.message_allowance(seat)
    if talk["public"] and (not allowed or rng.random() < MESSAGE_CHANCE):
        match.send_message(seat, f"{seat} is thinking.")
        return
    if talk["private"] and not allowed:
        match.send_message(seat, f"{seat} whispers.", [rng.choice([p for p in match.players if p != seat])])
        return
    for action in rng.sample(allowed, len(allowed)):
        for payload in _candidates(match, seat, action, rng):
            try:
                match.submit(seat, action.name, payload)
            except NegotiationError as refusal:
                if refusal.code in REFUSALS:
                    continue
                raise PlayFailure(f"the engine refused {seat}'s allowed `{action.name}`: {refusal.message}") from None
            played.moves.append(PlayedMove(seat, action, payload))
            return
    match.play_default(seat, NO_LEGAL_MOVE)


def _candidates(match: Match, seat: str, action: ActionSpec, rng: random.Random) -> list[dict[str, JsonValue]]:
    schema = match.game.action_payload_schema(seat, action)
    candidates = [sample_payload(schema, rng) for _ in range(SAMPLES_PER_ACTION)]
    candidates.extend(game_suggestions(match, seat, action, schema))
    rng.shuffle(candidates)
    return candidates


def game_suggestions(
    match: Match, seat: str, action: ActionSpec, schema: dict[str, JsonValue]
) -> Iterator[dict[str, JsonValue]]:
    """Payloads the game itself puts forward for `action`: its default move, its prompt's example and the
    offers its bargaining position describes."""
    phase = match.spec.phase(match.phase) if match.phase else None
    if phase is not None and phase.default_action is not None and phase.default_action.action == action.name:
        yield dict(phase.default_action.payload)
    yield example_payload(action.payload)
    position = match.game.bargaining_position(seat)
    if not position or position.get("action") != action.name:
        return
    for item in position.get("menu", [])[:3]:
        yield dict(item["payload"])
    if "field" in position:
        described = {"payload_schema": schema}
        for value in (position.get("best"), position.get("reservation")):
            if isinstance(value, int | float):
                yield field_offer(described, position["field"], value)
