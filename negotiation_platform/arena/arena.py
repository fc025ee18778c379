"""`Arena`: the transport-neutral service every transport and in-process driver talks to.

It owns live matches, seats and their secret tokens, waiting (an agent can wait for its turn
instead of polling) and deadlines. Every operation takes plain JSON-ready arguments and returns
plain JSON-ready dicts; refusals raise `NegotiationError` and change nothing. The argument names
here are the ones every transport reuses.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import math
import re
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from negotiation_platform.engine.match import Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.payloads import validation_problems
from negotiation_platform.registry import GameEntry, Registry
from negotiation_platform.rules_text import render_rules
from negotiation_platform.strict_json import json_problem

MAX_WAIT_SECONDS = 60.0
"""Longest a single `get_turn_state` call may block; callers loop for longer waits."""
MAX_ARGUMENT_CHARS = 65_536
"""Any single text or JSON argument beyond this is refused before it reaches a match."""


@dataclass
class Seat:
    agent_id: str
    token: str
    name: str


@dataclass
class LiveMatch:
    """A match in the arena: its seats, and the engine's `Match` once every seat is filled."""

    match_id: str
    entry: GameEntry
    config: dict[str, Any]
    seed: int
    seats_total: int
    seats: list[Seat] = field(default_factory=list)
    match: Match | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    timer: asyncio.TimerHandle | None = None

    @property
    def status(self) -> str:
        if self.match is None:
            return "waiting_for_players"
        return "finished" if self.match.finished else "running"

    def signal(self) -> None:
        """Wake everyone waiting on this match, and arm a fresh event for the next waiters."""
        self.changed.set()
        self.changed = asyncio.Event()


class Arena:
    """Live matches, seats and waiting, behind the ten operations of the design."""

    def __init__(
        self,
        registry: Registry | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        new_match_id: Callable[[], str] = lambda: uuid.uuid4().hex[:12],
    ) -> None:
        self.registry = registry if registry is not None else Registry()
        self._clock = clock
        self._new_match_id = new_match_id
        self._matches: dict[str, LiveMatch] = {}

    # --- catalogue ------------------------------------------------------------------------

    async def list_games(self) -> dict[str, Any]:
        return {"games": [entry.summary() for entry in self.registry.games().values()]}

    async def get_game_rules(self, game_id: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
        entry = self.registry.game(_text("game_id", game_id))
        spec = entry.cls.spec_for(self._config(entry, config))
        return {"game_id": entry.game_id, "rules": render_rules(spec), "spec": spec.model_dump(mode="json")}

    # --- seats ----------------------------------------------------------------------------

    async def start_game(
        self,
        game_id: str,
        config: dict[str, Any] | None = None,
        seed: int | None = None,
        name: str | None = None,
    ) -> dict[str, Any]:
        """Create a match and take its first seat; returns the seat's secret token."""
        entry = self.registry.game(_text("game_id", game_id))
        parsed = self._config(entry, config)
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "seed must be an integer or null.")
        spec = entry.cls.spec_for(parsed)
        live = LiveMatch(
            match_id=self._new_match_id(),
            entry=entry,
            config=parsed.model_dump(mode="json"),
            seed=seed if seed is not None else secrets.randbelow(2**31),
            seats_total=spec.roles.min_players,
        )
        self._matches[live.match_id] = live
        seat = self._take_seat(live, name)
        return {"match_id": live.match_id, "agent_id": seat.agent_id, "token": seat.token, "seats": live.seats_total}

    async def join_game(self, match_id: str, name: str | None = None) -> dict[str, Any]:
        """Take the next free seat of a match; the match starts when the last seat is taken."""
        live = self._live(match_id)
        if len(live.seats) >= live.seats_total:
            raise NegotiationError(ErrorCode.MATCH_FULL, f"Match {match_id} has no free seat.")
        seat = self._take_seat(live, name)
        return {"agent_id": seat.agent_id, "token": seat.token}

    # --- per-seat operations --------------------------------------------------------------

    async def get_turn_state(
        self, match_id: str, token: str, since: int | None = None, wait_seconds: float = 0
    ) -> dict[str, Any]:
        """Everything the seat needs now; waits up to `wait_seconds` for its turn or something new."""
        live, seat = self._seat(match_id, token)
        cursor = _cursor(since)
        if (
            isinstance(wait_seconds, bool)
            or not isinstance(wait_seconds, int | float)
            or not math.isfinite(wait_seconds)
            or wait_seconds < 0
        ):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "wait_seconds must be a finite number >= 0.")
        give_up = self._clock() + min(float(wait_seconds), MAX_WAIT_SECONDS)
        while True:
            state = self._turn_state(live, seat, cursor)
            remaining = give_up - self._clock()
            if state["your_turn"] or state["events"] or state["status"] == "finished" or remaining <= 0:
                return state
            changed = live.changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), timeout=remaining)

    async def send_public_message(self, match_id: str, token: str, content: str) -> dict[str, Any]:
        live, seat = self._running(match_id, token)
        return self._after(live, seat, lambda m: m.send_message(seat.agent_id, _text("content", content)))

    async def send_private_message(self, match_id: str, token: str, to: list[str], content: str) -> dict[str, Any]:
        live, seat = self._running(match_id, token)
        if not isinstance(to, list) or not all(isinstance(r, str) for r in to):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "`to` must be a list of agent ids.")
        return self._after(live, seat, lambda m: m.send_message(seat.agent_id, _text("content", content), to))

    async def perform_action(
        self, match_id: str, token: str, action_type: str, payload: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        live, seat = self._running(match_id, token)
        if payload is not None and not isinstance(payload, dict):
            raise NegotiationError(ErrorCode.INVALID_PAYLOAD, "payload must be a JSON object.")
        problem = json_problem(payload)
        if problem is not None:  # before measuring it: serialising data nested thousands deep would recurse
            where, why = problem
            field = ".".join(str(p) for p in where) or "(payload)"
            raise NegotiationError(ErrorCode.INVALID_PAYLOAD, f"Invalid payload: {field}: {why}.")
        if payload is not None and len(json.dumps(payload, default=str)) > MAX_ARGUMENT_CHARS:
            raise NegotiationError(
                ErrorCode.INVALID_PAYLOAD, f"payload is larger than {MAX_ARGUMENT_CHARS} characters."
            )
        return self._after(live, seat, lambda m: m.submit(seat.agent_id, _text("action_type", action_type), payload))

    async def play_default(self, match_id: str, token: str, reason: str) -> dict[str, Any]:
        """Forfeit the seat's move: the phase's default action is played and the reason logged.

        For hosts that relay a remote agent (a late, garbled or illegal reply); not a transport operation.
        """
        live, seat = self._running(match_id, token)
        return self._after(live, seat, lambda m: m.play_default(seat.agent_id, _text("reason", reason)))

    # --- results and listing --------------------------------------------------------------

    async def get_result(self, match_id: str) -> dict[str, Any]:
        live = self._live(match_id)
        match = live.match
        if match is None or match.result is None:
            return {"match_id": live.match_id, "game_id": live.entry.game_id, "status": live.status, "result": None}
        result = match.result
        return {
            "match_id": live.match_id,
            "game_id": live.entry.game_id,
            "status": live.status,
            "seed": live.seed,
            "config": live.config,
            "players": {s.agent_id: s.name for s in live.seats},
            "agreement": result.game_data["agreement"],
            "terms": result.game_data["terms"],
            "payoffs": result.final_scores,
            "winner": result.winner,
            "rounds": result.total_rounds,
            "result": result.to_dict(),
        }

    async def list_matches(self) -> dict[str, Any]:
        return {
            "matches": [
                {
                    "match_id": live.match_id,
                    "game_id": live.entry.game_id,
                    "status": live.status,
                    "seats": {"filled": len(live.seats), "total": live.seats_total},
                    "players": [s.agent_id for s in live.seats],
                    "round": live.match.round if live.match else 0,
                }
                for live in self._matches.values()
            ]
        }

    def events(self, match_id: str) -> list[dict[str, Any]]:
        """The whole log of a match, for its host (a CLI or a test), never exposed to a seat."""
        match = self._live(match_id).match
        return [e.to_dict() for e in match.events] if match is not None else []

    # --- internals ------------------------------------------------------------------------

    def _config(self, entry: GameEntry, config: Any) -> Any:
        if config is not None and not isinstance(config, dict):
            raise NegotiationError(ErrorCode.INVALID_CONFIG, "config must be a JSON object or null.")
        try:
            return entry.cls.parse_config(config)
        except ValidationError as exc:
            problems = validation_problems(exc, "(config)")
            raise NegotiationError(
                ErrorCode.INVALID_CONFIG,
                f"Invalid config for {entry.game_id}: " + "; ".join(f"{p['field']}: {p['problem']}" for p in problems),
                problems=problems,
            ) from None

    def _live(self, match_id: str) -> LiveMatch:
        live = self._matches.get(match_id) if isinstance(match_id, str) else None
        if live is None:
            raise NegotiationError(ErrorCode.UNKNOWN_MATCH, f"No match {match_id!r}; list_matches shows them.")
        return live

    def _seat(self, match_id: str, token: str) -> tuple[LiveMatch, Seat]:
        live = self._live(match_id)
        if isinstance(token, str):
            for seat in live.seats:
                if hmac.compare_digest(seat.token.encode(), token.encode()):
                    return live, seat
        raise NegotiationError(ErrorCode.FORBIDDEN, "This token does not hold a seat in this match.")

    def _running(self, match_id: str, token: str) -> tuple[LiveMatch, Seat]:
        live, seat = self._seat(match_id, token)
        if live.match is None:
            raise NegotiationError(
                ErrorCode.NOT_STARTED,
                f"The match starts when all {live.seats_total} seats are taken ({len(live.seats)} so far).",
            )
        return live, seat

    def _take_seat(self, live: LiveMatch, name: str | None) -> Seat:
        if name is not None and not isinstance(name, str):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "name must be a string or null.")
        taken = {s.agent_id for s in live.seats}
        base = re.sub(r"[^A-Za-z0-9_-]", "_", (name or "").strip())[:32] or f"player_{len(live.seats) + 1}"
        agent_id, n = base, 1
        while agent_id in taken:
            n += 1
            agent_id = f"{base}_{n}"
        seat = Seat(agent_id=agent_id, token=secrets.token_urlsafe(24), name=name or agent_id)
        live.seats.append(seat)
        if len(live.seats) == live.seats_total:
            live.match = Match(
                live.entry.cls,
                [s.agent_id for s in live.seats],
                config=live.config,
                seed=live.seed,
                match_id=live.match_id,
                clock=self._clock,
            )
            self._arm_timer(live)
        live.signal()
        return seat

    def _after(self, live: LiveMatch, seat: Seat, change: Callable[[Match], list[Any]]) -> dict[str, Any]:
        """Run a change on the match, then wake waiters, re-arm the deadline and report what happened."""
        assert live.match is not None
        before = len(live.match.events)
        change(live.match)
        self._arm_timer(live)
        live.signal()
        acting = live.match.acting()
        return {
            "ok": True,
            "events": [e.to_dict() for e in live.match.events_for(seat.agent_id, before)],
            "status": live.status,
            "your_turn": seat.agent_id in acting,
            "acting": acting,
            "cursor": len(live.match.events),
        }

    def _arm_timer(self, live: LiveMatch) -> None:
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        match = live.match
        if match is None or match.deadline is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        live.timer = loop.call_later(max(0.0, match.deadline - self._clock()), self._on_deadline, live)

    def _on_deadline(self, live: LiveMatch) -> None:
        live.timer = None
        if live.match is not None and live.match.expire_due():
            live.signal()
        self._arm_timer(live)

    def _turn_state(self, live: LiveMatch, seat: Seat, cursor: int) -> dict[str, Any]:
        state: dict[str, Any] = {
            "match_id": live.match_id,
            "game_id": live.entry.game_id,
            "agent_id": seat.agent_id,
            "status": live.status,
            "players": [s.agent_id for s in live.seats],
            "seats": {"filled": len(live.seats), "total": live.seats_total},
        }
        match = live.match
        if match is None:
            return {**state, "your_turn": False, "acting": [], "events": [], "cursor": cursor}
        me = seat.agent_id
        events = match.events_for(me, cursor)
        deadline = match.deadline
        allowed = match.allowed_actions(me)
        state.update(
            round=match.round,
            rounds=match.spec.rounds,
            phase=match.phase,
            acting=match.acting(),
            your_turn=me in match.acting(),
            deadline_seconds=None if deadline is None else max(0.0, round(deadline - self._clock(), 3)),
            allowed_actions=[
                {
                    "name": a.name,
                    "description": a.description,
                    "payload_schema": match.game.action_payload_schema(me, a),
                    "remaining": match.remaining_uses(me, a),
                }
                for a in allowed
            ],
            messaging=match.message_allowance(me),
            view=match.game.get_player_view(me),
            bargaining=match.game.bargaining_position(me) if not match.finished else None,
            events=[e.to_dict() for e in events],
            cursor=len(match.events),
            prompt=match.game.get_game_prompt(me),
        )
        if match.result is not None:
            state["result"] = {"payoffs": match.result.final_scores, "agreement": match.result.game_data["agreement"]}
        return state


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"`{name}` must be a string.")
    if len(value) > MAX_ARGUMENT_CHARS:
        raise NegotiationError(
            ErrorCode.MESSAGE_TOO_LONG if name == "content" else ErrorCode.INVALID_ARGUMENT,
            f"`{name}` is longer than {MAX_ARGUMENT_CHARS} characters.",
        )
    return value


def _cursor(since: Any) -> int:
    if since is None:
        return 0
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "since must be a non-negative integer (a cursor) or null.")
    return since
