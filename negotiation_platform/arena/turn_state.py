"""Typed answers to a seat: its turn state (`TurnState`) and what a change it made did (`Acted`).

The JSON operations answer `to_dict()` of these; an in-process seat (`LocalSeat`) gets them as they
are, with the logged `Event`s themselves rather than their dicts. A `TurnState` is also a read-only
mapping with the keys of the JSON answer (events as dicts there), which is what agents read. The
parts of it that cost the most to build (the allowed actions with their payload schemas, the
messaging allowance, the seat's view, its bargaining position, the prompt) are made when first
read, from the match as it was taken: whoever hands a state on must have it read, or `freeze` it,
before the match can change again (the drivers do; see `negotiation_platform.agents.driver`).
A part read later than that is refused (`StaleTurnState`) rather than answered from a newer state.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from negotiation_platform.arena.live import LiveMatch, Seat
from negotiation_platform.arena.paging import MAX_PAGE_EVENTS, EventPage, seat_page
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.engine.events import Event, EventKind
from negotiation_platform.engine.match import Match
from negotiation_platform.games.narrated import event_text

_WAITING_KEYS = ("match_id", "game_id", "agent_id", "status", "players", "seats", "your_turn", "acting")
_RUNNING_KEYS = (
    *_WAITING_KEYS[:6],
    "round",
    "rounds",
    "phase",
    "acting",
    "your_turn",
    "deadline_seconds",
    "allowed_actions",
    "messaging",
    "view",
    "bargaining",
)
_PAGE_KEYS = ("events", "cursor", "more")
_NARRATED = frozenset(
    {EventKind.ACTION, EventKind.NOTICE, EventKind.REVEALED, EventKind.TIMEOUT, EventKind.MATCH_ENDED}
)
_LAZY = frozenset({"allowed_actions", "messaging", "view", "bargaining", "prompt"})
_SHAPES = {
    (prompt, result): (*_RUNNING_KEYS, *_PAGE_KEYS, *(("prompt",) if prompt else ()), *(("result",) if result else ()))
    for prompt in (False, True)
    for result in (False, True)
}
"""The keys of a running match's state, by (prompt included, result known)."""
_PLAIN = frozenset({"match_id", "game_id", "agent_id", "status", "acting", "your_turn", "cursor", "more"})
_PLAIN_RUNNING = _PLAIN | {"round", "rounds", "phase", "deadline_seconds"}
"""Keys read straight from the attributes (of a waiting match's state; of a running one's)."""


class StaleTurnState(RuntimeError):
    """A part of a turn state was first read after its match had moved on (it would not be the state taken)."""


class TurnState(Mapping[str, Any]):
    """What a seat sees of its match: its view, allowed actions, deadline and a page of its events."""

    __slots__ = (
        "_at",
        "_events",
        "_keys",
        "_live",
        "_made",
        "_match",
        "_plain",
        "_since",
        "acting",
        "agent_id",
        "cursor",
        "deadline_seconds",
        "game_id",
        "match_id",
        "more",
        "phase",
        "refusal",
        "result",
        "round",
        "rounds",
        "status",
        "your_turn",
    )

    _keys: tuple[str, ...]

    def __init__(
        self,
        live: LiveMatch,
        seat: Seat,
        cursor: int,
        include_prompt: bool,
        policy: ArenaPolicy,
        clock: Callable[[], float],
    ) -> None:
        me = seat.agent_id
        match = live.match
        self._live, self._match, self._since = live, match, cursor
        self._events: list[Event] | None = None
        self.match_id, self.game_id, self.agent_id = live.match_id, live.entry.game_id, me
        self.refusal: dict[str, Any] | None = None
        self.result: dict[str, Any] | None = None
        if match is None:
            self.status = live.status
            self._at, self.cursor, self.more = 0, cursor, False
            self.round, self.rounds, self.phase, self.acting, self.your_turn = 0, 0, None, [], False
            self.deadline_seconds = None
            self._keys, self._plain = (*_WAITING_KEYS, *_PAGE_KEYS), _PLAIN
            self._made: dict[str, Any] = {
                "players": _players(live),
                "seats": _seats(live),
            }  # they change till it starts
            self._made.update(cursor=cursor, more=False)
            return
        at = self._at = len(match.events)
        self.cursor = min(at, cursor + MAX_PAGE_EVENTS)  # where `seat_page` ends the page
        self.more = self.cursor < at
        self.round, self.rounds, self.phase = match.round, match.spec.rounds, match.phase
        acting = self.acting = match.acting()
        self.your_turn = me in acting
        # without a turn clock, the seat's deadline is the phase's (see `seat_deadline`)
        deadline = match.deadline if policy.turn_timeout is None else seat_deadline(live, match, me, policy)
        self.deadline_seconds = None if deadline is None else max(0.0, round(deadline - clock(), 3))
        self._made = {}
        self._plain = _PLAIN_RUNNING
        result = match.result
        self.status = "running" if result is None else "finished"  # `live.status` of a match that started
        if result is not None:
            self.result = {"payoffs": result.final_scores, "agreement": result.game_data["agreement"]}
        self._keys = _SHAPES[include_prompt, result is not None]

    @property
    def events(self) -> list[Event]:
        """The page of the seat's events after the cursor it asked from, as logged (made when first read:
        the log only grows, and a logged event never changes)."""
        events = self._events
        if events is None:
            match = self._match
            events = self._events = (
                [] if match is None else seat_page(match, self.agent_id, self._since, self._at).events
            )
        return events

    @property
    def players(self) -> list[str]:
        return self._made.get("players") or _players(self._live)  # (a running match's seats stay as they are)

    @property
    def seats(self) -> dict[str, int]:
        return self._made.get("seats") or _seats(self._live)

    def narration(self) -> list[str]:
        """What happened in the page's events, in the game's plain words from this seat's side (moves,
        news, reveals, time-outs; not messages, which prompts quote, nor rounds and phases opening)."""
        match = self._match
        if match is None:
            return []
        return [event_text(match.game, e.to_dict(), self.agent_id) for e in self.events if e.kind in _NARRATED]

    def refused(self, refusal: dict[str, Any]) -> TurnState:
        """This state with the refusal of the agent's last decision (the `refusal` key)."""
        again: TurnState = copy.copy(self)
        again._made = dict(self._made)
        again.refusal = refusal
        again._keys = (*self._keys, "refusal")
        return again

    def freeze(self) -> TurnState:
        """Make every part now, so the state can be read after the match moved on."""
        for key in self._keys:
            self[key]
        return self

    def to_dict(self) -> dict[str, Any]:
        """The JSON answer: every key, the events as dicts in a page cut to the wire's budget."""
        if self._match is None:
            state = {key: self[key] for key in self._keys}
        else:  # the same keys, in the same order, made at once (every served turn state is made this way)
            state = {
                "match_id": self.match_id,
                "game_id": self.game_id,
                "agent_id": self.agent_id,
                "status": self.status,
                "players": self.players,
                "seats": self.seats,
                "round": self.round,
                "rounds": self.rounds,
                "phase": self.phase,
                "acting": self.acting,
                "your_turn": self.your_turn,
                "deadline_seconds": self.deadline_seconds,
                "allowed_actions": self["allowed_actions"],
                "messaging": self["messaging"],
                "view": self["view"],
                "bargaining": self["bargaining"],
                "events": None,
                "cursor": None,
                "more": None,
            }
            for key in self._keys[len(state) :]:
                state[key] = self[key]
        state["events"], state["cursor"], state["more"] = EventPage(self.events, self.cursor, self.more).encoded()
        return state

    def __getitem__(self, key: str) -> Any:
        if key in self._plain:
            return getattr(self, key)
        made = self._made
        if key in made:
            return made[key]
        if key not in self._keys:
            raise KeyError(key)
        if key == "events":
            value: Any = [event.to_dict() for event in self.events]
        elif key in _LAZY:
            value = self._lazy(key)
        else:
            value = getattr(self, key)
        made[key] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"TurnState({self.match_id!r}, {self.agent_id!r}, round={self.round}, your_turn={self.your_turn})"

    def _lazy(self, key: str) -> Any:
        match, me = self._match, self.agent_id
        assert match is not None
        if len(match.events) != self._at or self._live.match is not match:
            raise StaleTurnState(f"`{key}` of a turn state first read after match {self.match_id} moved on")
        game = match.game
        if key == "allowed_actions":
            return seat_actions(match, me)
        if key == "messaging":
            return match.message_allowance(me)
        if key == "view":
            return game.get_player_view(me)
        if key == "bargaining":
            return game.bargaining_position(me) if not match.finished else None
        return _prompt(self._live, match, me)


class Acted:
    """What a seat's change did: the match's status and who acts now, and the events it caused that the
    seat may see (a page of them, made when read)."""

    __slots__ = ("_acting", "_agent_id", "_before", "_match", "_until", "status")

    def __init__(self, live: LiveMatch, seat: Seat, before: int) -> None:
        match = live.match
        assert match is not None
        self._match, self._agent_id, self._before, self._until = match, seat.agent_id, before, len(match.events)
        self.status = "running" if match.result is None else "finished"  # `live.status` of a match that started
        self._acting = match.acting_now()  # the tuple as it is now: the listed `acting` is made when read

    @property
    def acting(self) -> list[str]:
        """Who acts now (as the change left the match)."""
        return list(self._acting)

    @property
    def your_turn(self) -> bool:
        return self._agent_id in self._acting

    @property
    def events(self) -> list[Event]:
        return self._page().events

    def to_dict(self) -> dict[str, Any]:
        events, cursor, more = self._page().encoded()
        return {
            "ok": True,
            "events": events,
            "status": self.status,
            "your_turn": self.your_turn,
            "acting": self.acting,
            "cursor": cursor,
            "more": more,
        }

    def _page(self) -> EventPage:
        """The seat's page of the events the change caused (a logged event never changes)."""
        return seat_page(self._match, self._agent_id, self._before, self._until)


def seat_actions(match: Match, agent_id: str) -> list[dict[str, Any]]:
    """The actions `agent_id` may take now, as a turn state lists them: name, description, the payload's
    JSON Schema as the game shows it to this seat, and the uses left (None: unlimited)."""
    game = match.game
    return [
        {
            "name": a.name,
            "description": a.description,
            "payload_schema": game.action_payload_schema(agent_id, a),
            "remaining": match.remaining_uses(agent_id, a),
        }
        for a in match.allowed_actions(agent_id)
    ]


def _players(live: LiveMatch) -> list[str]:
    return [s.agent_id for s in live.seats]


def _seats(live: LiveMatch) -> dict[str, int]:
    return {"filled": len(live.seats), "total": live.seats_total}


def seat_deadline(live: LiveMatch, match: Match, agent_id: str, policy: ArenaPolicy) -> float | None:
    """When the seat's default move comes, on the arena's clock: its turn clock or the phase's deadline."""
    deadline = match.deadline
    started, timeout = live.turn_started.get(agent_id), policy.turn_timeout
    if started is not None and timeout is not None:
        deadline = min(started + timeout, deadline if deadline is not None else math.inf)
    return deadline


def _prompt(live: LiveMatch, match: Match, agent_id: str) -> str:
    built_at, prompt = live.prompts.get(agent_id, (-1, ""))
    if built_at != len(match.events):
        prompt = match.game.get_game_prompt(agent_id)
        live.prompts[agent_id] = (len(match.events), prompt)
    return prompt
