"""`check_game`: what every game must satisfy, checked by playing it."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import jsonschema
from pydantic import JsonValue

from negotiation_platform.engine import Event, Match
from negotiation_platform.engine.contract import GameContractError
from negotiation_platform.games.base_game import BARGAINING_ACTIONS, BaseGame, ConfigInput, GameConfig
from negotiation_platform.spec import GameSpec, payload_schema
from negotiation_platform.spec.rules_text import render_rules
from negotiation_platform.testing.bounds import HOW_TO_BOUND, unbounded_numbers
from negotiation_platform.testing.playthrough import PlayFailure, Playthrough, Seen, play_randomly, seen_on_seed
from negotiation_platform.testing.privacy import find_leak

DEFAULT_SEEDS = range(5)
DEFAULT_MAX_MOVES = 5_000
OTHER_SEED_STEP = 1_000_003


class GameCheckError(AssertionError):
    """A game broke one of the checks; `check` names it, `seed` the match that showed it (None: no match)."""

    def __init__(self, check: str, game_id: str, seed: int | None, detail: str) -> None:
        where = f"{game_id}, seed {seed}" if seed is not None else game_id
        super().__init__(f"check_game [{check}] failed for {where}: {detail}")
        self.check = check
        self.game_id = game_id
        self.seed = seed


Failure = Callable[[str, str], GameCheckError]
"""Makes the error of a failed check: `fail(check, detail)`."""


def check_game(
    game_cls: type[BaseGame[GameConfig]],
    seeds: Iterable[int] = DEFAULT_SEEDS,
    config: ConfigInput = None,
    *,
    max_moves: int = DEFAULT_MAX_MOVES,
) -> None:
    """Play `game_cls` with random legal moves on every seed and check what every game must satisfy.

    Raises `GameCheckError` (an AssertionError) naming the check and the seed. The checks:

    - `spec`: the spec serialises to JSON, and every payload's JSON Schema is a valid schema;
    - `bounds`: every number of the config's and every payload's JSON Schema has a finite minimum
      and maximum (see `negotiation_platform.testing.bounds` for why);
    - `rules_text`: the rules text renders; every prompt is non-empty text;
    - `payload_schemas`: every default move, every move the game accepted during play (random
      ones, and those its own default, prompt example and bargaining position suggest) and every
      offer on a bargaining menu validates against the action's published JSON Schema;
    - `determinism`: the same seed played twice gives the same events, views, prompts and result;
    - `replay`: the events, through JSON, replayed into a fresh `Match` give the same log and result;
    - `payoffs`: the result has a finite number for every seat;
    - `bargaining_position`: a game with `propose`, `offer`, `counter_offer` or `accept` actions
      describes the position (`{"action", "field", "best", "reservation"}` or `{"action", "menu",
      "batna"}`) of every seat that may take one;
    - `private_views`: no view shows another seat's secret, and the public view shows nothing that
      some seat may not know (the rule is in `negotiation_platform.testing.privacy`);
    - `contract`: the hooks keep the engine's contract (`phase_order` gives every player once and
      agrees with the phase's start rule; `begin_round` and `begin_phase` set `current_round` and
      `current_phase`, as BaseGame's do when an override calls `super()`);
    - `play`: the match ends within `max_moves` moves and the engine accepts what it offers.
    """
    spec = game_cls.spec_for(config)
    _check_spec(spec)
    _check_bounds(game_cls, spec)
    players = [f"seat_{i}" for i in range(1, spec.roles.min_players + 1)]
    plays = [_check_seed(game_cls, spec, players, config, seed, max_moves) for seed in seeds]
    elsewhere = [_longest_views_elsewhere(game_cls, play, config) for play in plays]
    leak = find_leak(plays, elsewhere, {*players, *spec.roles.names})
    if leak is not None:
        seeds_text = ", ".join(str(play.match.seed) for play in plays)
        raise GameCheckError("private_views", spec.id, None, f"{leak} (seeds {seeds_text})")


def _longest_views_elsewhere(
    game_cls: type[BaseGame[GameConfig]], play: Playthrough, config: ConfigInput
) -> list[Seen]:
    """The views when the play's moves are made on other seeds: the seed on which they stay legal longest
    (a seeded turn order can make the first move illegal elsewhere)."""
    tries = [seen_on_seed(game_cls, play, config, play.match.seed + OTHER_SEED_STEP * k) for k in (1, 2, 3)]
    return max(tries, key=len)


def _check_spec(spec: GameSpec) -> None:
    def fail(check: str, detail: str) -> GameCheckError:
        return GameCheckError(check, spec.id, None, detail)

    try:
        dumped = json.loads(spec.model_dump_json())
    except Exception as exc:
        raise fail("spec", f"the spec does not serialise to JSON: {exc}") from exc
    for phase, raw_phase in zip(spec.phases, dumped["phases"], strict=True):
        for action, raw_action in zip(phase.actions, raw_phase["actions"], strict=True):
            try:
                jsonschema.Draft202012Validator.check_schema(raw_action["payload"])
            except jsonschema.SchemaError as exc:
                raise fail("spec", f"`{action.name}` has an invalid payload schema: {exc.message}") from None
        default = phase.default_action
        if default is not None:
            played = phase.action(default.action)
            assert played is not None, "the spec validates its default actions"
            problem = _schema_problem(payload_schema(played.payload), default.payload)
            if problem:
                raise fail("payload_schemas", f"phase `{phase.name}`'s default `{played.name}` {problem}")
    rules = render_rules(spec)
    if not isinstance(rules, str) or not rules.strip():
        raise fail("rules_text", "the rules text is empty")


def _check_bounds(game_cls: type[BaseGame[GameConfig]], spec: GameSpec) -> None:
    schemas = [("its config", game_cls.Config.model_json_schema())] + [
        (f"the payload of `{action.name}`", payload_schema(action.payload))
        for phase in spec.phases
        for action in phase.actions
    ]
    for where, schema in schemas:
        unbounded = unbounded_numbers(schema)
        if unbounded:
            fields = ", ".join(f"`{path}`" for path in unbounded)
            raise GameCheckError(
                "bounds", spec.id, None, f"{where} has numbers without finite bounds: {fields}; {HOW_TO_BOUND}"
            )


def _check_seed(
    game_cls: type[BaseGame[GameConfig]],
    spec: GameSpec,
    players: list[str],
    config: ConfigInput,
    seed: int,
    max_moves: int,
) -> Playthrough:
    def fail(check: str, detail: str) -> GameCheckError:
        return GameCheckError(check, spec.id, seed, detail)

    first, second = (_play(game_cls, players, config, seed, max_moves, fail) for _ in range(2))
    difference = _first_difference(_transcript(first), _transcript(second))
    if difference:
        raise fail("determinism", f"two matches with the same seed and moves differ at {difference}")
    _check_replay(game_cls, players, config, seed, first.match, fail)
    _check_payoffs(first.match, fail)
    for move in first.moves:
        problem = _schema_problem(payload_schema(move.action.payload), move.payload)
        if problem:
            raise fail("payload_schemas", f"{move.seat}'s accepted `{move.action.name}` {problem}")
    bargaining = bool(spec.all_action_names() & BARGAINING_ACTIONS)
    for shot in first.snapshots:
        for seat, prompt in shot.prompts.items():
            if not isinstance(prompt, str) or not prompt.strip():
                raise fail("rules_text", f"{seat}'s prompt is empty")
        for seat, position in shot.positions.items():
            problem = _position_problem(spec, position) if bargaining else None
            if problem:
                raise fail("bargaining_position", f"{seat} may bargain but {problem}")
    return first


def _play(
    game_cls: type[BaseGame[GameConfig]],
    players: list[str],
    config: ConfigInput,
    seed: int,
    max_moves: int,
    fail: Failure,
) -> Playthrough:
    try:
        return play_randomly(game_cls, players, config, seed, max_moves)
    except PlayFailure as exc:
        raise fail("play", str(exc)) from None
    except GameContractError as exc:
        raise fail("contract", str(exc)) from None
    except (TypeError, ValueError) as exc:  # a view that is not JSON, or a game that broke
        raise fail("play", f"{type(exc).__name__}: {exc}") from exc


def _transcript(play: Playthrough) -> list[tuple[str, object]]:
    parts: list[tuple[str, object]] = [(f"event {e.seq}", e.to_dict()) for e in play.match.events]
    for i, shot in enumerate(play.snapshots):
        parts += [(f"move {i}: {seat}'s view", view) for seat, view in shot.views.items()]
        parts += [(f"move {i}: the public view", shot.public), (f"move {i}: the prompts", shot.prompts)]
    result = play.match.result
    parts.append(("the result", result.to_dict() if result is not None else None))
    return parts


def _first_difference(first: list[tuple[str, object]], second: list[tuple[str, object]]) -> str | None:
    for (label, a), (_, b) in zip(first, second, strict=False):
        if a != b:
            return f"{label}: {_short(a)} vs {_short(b)}"
    if len(first) != len(second):
        return f"their length: {len(first)} vs {len(second)} recorded items"
    return None


def _check_replay(
    game_cls: type[BaseGame[GameConfig]],
    players: list[str],
    config: ConfigInput,
    seed: int,
    match: Match,
    fail: Failure,
) -> None:
    try:
        logged = json.loads(json.dumps([event.to_dict() for event in match.events]))
    except (TypeError, ValueError) as exc:
        raise fail("replay", f"the event log is not JSON: {exc}") from None
    replayed = Match.replay(
        game_cls, players, [Event.from_dict(raw) for raw in logged], config=config, seed=seed, clock=lambda: 0.0
    )
    difference = _first_difference(
        [(f"event {e.seq}", e.to_dict()) for e in match.events],
        [(f"event {e.seq}", e.to_dict()) for e in replayed.events],
    )
    if difference is None:
        before, after = (m.result.to_dict() if m.result is not None else None for m in (match, replayed))
        if before != after:
            difference = f"the result: {_short(before)} vs {_short(after)}"
    if difference:
        raise fail("replay", f"replaying the events gives a different match, at {difference}")


def _check_payoffs(match: Match, fail: Failure) -> None:
    assert match.result is not None
    scores = match.result.payoffs
    if set(scores) != set(match.players):
        raise fail("payoffs", f"payoffs are for {sorted(scores)}, the seats are {match.players}")
    for seat, score in scores.items():
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            raise fail("payoffs", f"{seat}'s payoff is {score!r}, not a finite number")


def _position_problem(spec: GameSpec, position: JsonValue) -> str | None:
    if not isinstance(position, dict):
        return "bargaining_position() returned None" if position is None else "bargaining_position() is not a dict"
    action = position.get("action")
    if action not in spec.all_action_names():
        return f"its bargaining position names the action {action!r}, which the spec does not have"
    accept = position.get("accept_action")
    if accept is not None and accept not in spec.all_action_names():
        return f"its bargaining position names the accept action {accept!r}, which the spec does not have"
    if "menu" in position:
        menu = position["menu"]
        if not isinstance(menu, list) or not menu or not _is_number(position.get("batna")):
            return "its bargaining position needs a non-empty `menu` and a numeric `batna`"
        target = next(a for p in spec.phases for a in p.actions if action in (a.name, *a.aliases))
        for item in menu:
            if not isinstance(item, dict) or not _is_number(item.get("utility")):
                return "a menu item has no numeric `utility`"
            problem = _schema_problem(payload_schema(target.payload), item.get("payload"))
            if problem:
                return f"a menu offer {problem}"
        return None
    if not isinstance(position.get("field"), str) or not all(
        _is_number(position.get(k)) for k in ("best", "reservation")
    ):
        return "its bargaining position needs `field` with numeric `best` and `reservation` (or a `menu`)"
    return None


def _multiple_of_within_rounding(
    validator: Any, divisor: float, instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    """`multipleOf` up to float rounding, as pydantic checks it (78486.62 is a multiple of 0.01)."""
    if validator.is_type(instance, "number") and divisor:
        quotient = instance / divisor
        if not math.isclose(quotient, round(quotient), rel_tol=1e-9, abs_tol=1e-9):
            yield jsonschema.ValidationError(f"{instance!r} is not a multiple of {divisor}")


PayloadValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator, {"multipleOf": _multiple_of_within_rounding}
)


def _schema_problem(schema: dict[str, JsonValue], payload: JsonValue) -> str | None:
    """None when `payload` validates against `schema`, else what the schema says is wrong."""
    error = jsonschema.exceptions.best_match(PayloadValidator(schema).iter_errors(payload))
    return None if error is None else f"payload {_short(payload)} fails its JSON Schema: {error.message}"


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _short(value: object, limit: int = 200) -> str:
    text = json.dumps(value, sort_keys=True, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"
