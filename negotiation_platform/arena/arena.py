"""`Arena`: the transport-neutral service every transport and in-process driver talks to.

It owns live matches, seats and their secret tokens, waiting (an agent can wait for its turn
instead of polling) and deadlines. Every operation takes plain JSON-ready arguments and returns
plain JSON-ready dicts; refusals raise `NegotiationError` and change nothing. The argument names
here are the ones every transport reuses.

Game code runs under a per-match lock; on a served arena it runs off the event loop
(`asyncio.to_thread`), so a slow step of one match never stalls the others or the server. What
a shared server adds (secret seeds, turn clocks, limits, steps off the loop) is its `ArenaPolicy`;
see `negotiation_platform.arena.policy`.
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
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import ValidationError

from negotiation_platform.arena.policy import ArenaPolicy
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
MAX_DEFAULTS_PER_STEP = 10_000
"""Bound on default moves played in one go for seats that left (every game's rounds are finite)."""
LEFT = "left the match"
StepResult = TypeVar("StepResult")
CALLER: ContextVar[str | None] = ContextVar("negotiation_arena_caller", default=None)
"""Who is calling, as the transport knows it (its address or auth token); limits count per caller."""


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
    creator: str | None = None
    seats: list[Seat] = field(default_factory=list)
    match: Match | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.TimerHandle | None = None
    turn_started: dict[str, float] = field(default_factory=dict)
    """When each seat that must act now became due: its turn clock runs from there."""
    left: set[str] = field(default_factory=set)
    finished_at: float | None = None
    seated_at: float = 0.0
    """When a seat was last taken: a match still waiting for players long after that is abandoned."""
    prompts: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Each seat's last prompt text and the length of the log it was built at: a prompt depends only
    on the game's state, which changes only with the log, so it is built once per turn, on demand."""

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
    """Live matches, seats and waiting, behind the operations of the design.

    `policy` defaults to the in-process one (reproducible seeds, no clocks or limits); a server
    sets `ArenaPolicy.served(...)` before serving.
    """

    def __init__(
        self,
        registry: Registry | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        new_match_id: Callable[[], str] = lambda: uuid.uuid4().hex[:12],
        policy: ArenaPolicy | None = None,
    ) -> None:
        self.registry = registry if registry is not None else Registry()
        self.policy = policy if policy is not None else ArenaPolicy()
        self._clock = clock
        self._new_match_id = new_match_id
        self._matches: dict[str, LiveMatch] = {}
        self._ticks: set[asyncio.Task[None]] = set()

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
        """Create a match and take its first seat; returns the seat's secret token.

        The match's draws come from `seed` only in a reproducible arena; a served one derives
        them from its secret (see `ArenaPolicy`), and reveals the seed used once the match is over.
        """
        entry = self.registry.game(_text("game_id", game_id))
        parsed = self._config(entry, config)
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "seed must be an integer or null.")
        _name(name)
        spec = entry.cls.spec_for(parsed)
        caller = CALLER.get()
        self._check_limits(caller)
        match_id = self._new_match_id()
        live = LiveMatch(
            match_id=match_id,
            entry=entry,
            config=parsed.model_dump(mode="json"),
            seed=self.policy.match_seed(match_id, seed),
            seats_total=spec.roles.min_players,
            creator=caller,
        )
        self._matches[live.match_id] = live
        try:
            seat = await self._take_seat(live, name)
        except BaseException:
            del self._matches[live.match_id]
            raise
        return {"match_id": live.match_id, "agent_id": seat.agent_id, "token": seat.token, "seats": live.seats_total}

    async def join_game(self, match_id: str, name: str | None = None) -> dict[str, Any]:
        """Take the next free seat of a match; the match starts when the last seat is taken."""
        live = self._live(match_id)
        _name(name)
        seat = await self._take_seat(live, name)
        return {"agent_id": seat.agent_id, "token": seat.token}

    async def leave_game(self, match_id: str, token: str) -> dict[str, Any]:
        """Give up a seat. Before the match starts the seat is freed, and the match is dropped when its
        creator leaves (its other seats may be built-in opponents nobody else wants); once it runs,
        every later turn of the seat is its default move, logged as a timeout with the reason "left
        the match", so the others can finish. The token can still read a running match."""
        live, seat = self._seat(match_id, token)
        async with live.lock:
            if live.match is None:
                if seat is live.seats[0]:
                    del self._matches[live.match_id]
                    live.seats.clear()
                    live.signal()
                else:
                    live.seats.remove(seat)
            elif live.match.finished:
                raise NegotiationError(ErrorCode.MATCH_OVER, "The match is over; there is nothing to leave.")
            else:
                live.left.add(seat.agent_id)
                await self._step(self._play_for_absent, live)
        self._settled(live)
        return {"ok": True, "status": live.status if live.match_id in self._matches else "abandoned"}

    # --- per-seat operations --------------------------------------------------------------

    async def get_turn_state(
        self,
        match_id: str,
        token: str,
        since: int | None = None,
        wait_seconds: float = 0,
        include_prompt: bool = True,
    ) -> dict[str, Any]:
        """Everything the seat needs now; waits up to `wait_seconds` for its turn or something new.

        `include_prompt=False` leaves out the prompt text, for agents that read only the data.
        """
        live, seat = self._seat(match_id, token)
        cursor = _cursor(since)
        if not isinstance(include_prompt, bool):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "include_prompt must be true or false.")
        if (
            isinstance(wait_seconds, bool)
            or not isinstance(wait_seconds, int | float)
            or not math.isfinite(wait_seconds)
            or wait_seconds < 0
        ):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "wait_seconds must be a finite number >= 0.")
        give_up = self._clock() + min(float(wait_seconds), MAX_WAIT_SECONDS)
        while True:
            if self._matches.get(live.match_id) is not live:  # dropped while we waited
                raise NegotiationError(ErrorCode.UNKNOWN_MATCH, f"Match {live.match_id} was abandoned by its creator.")
            async with live.lock:
                state = self._turn_state(live, seat, cursor, include_prompt)
            remaining = give_up - self._clock()
            if state["your_turn"] or state["events"] or state["status"] == "finished" or remaining <= 0:
                return state
            changed = live.changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), timeout=remaining)

    async def send_public_message(self, match_id: str, token: str, content: str) -> dict[str, Any]:
        live, seat = self._running(match_id, token)
        text = _text("content", content)
        return await self._after(live, seat, lambda m: m.send_message(seat.agent_id, text))

    async def send_private_message(self, match_id: str, token: str, to: list[str], content: str) -> dict[str, Any]:
        live, seat = self._running(match_id, token)
        if not isinstance(to, list) or not all(isinstance(r, str) for r in to):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "`to` must be a list of agent ids.")
        text = _text("content", content)
        return await self._after(live, seat, lambda m: m.send_message(seat.agent_id, text, to))

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
        action = _text("action_type", action_type)
        return await self._after(live, seat, lambda m: m.submit(seat.agent_id, action, payload))

    async def play_default(self, match_id: str, token: str, reason: str) -> dict[str, Any]:
        """Forfeit the seat's move: the phase's default action is played and the reason logged.

        For hosts that relay a remote agent (a late, garbled or illegal reply); not a transport operation.
        """
        live, seat = self._running(match_id, token)
        why = _text("reason", reason)
        return await self._after(live, seat, lambda m: m.play_default(seat.agent_id, why))

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
        """The matches in memory, and the limits that apply (finished ones leave after a while)."""
        self._evict()
        return {
            "limits": self.policy.limits(),
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
            ],
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

    def _check_limits(self, caller: str | None) -> None:
        self._evict()
        policy = self.policy
        live = [m for m in self._matches.values() if m.status != "finished"]
        if policy.max_live_matches is not None and len(live) >= policy.max_live_matches:
            raise NegotiationError(
                ErrorCode.LIMIT_REACHED,
                f"This server runs at most {policy.max_live_matches} unfinished matches; join one or try later.",
                limit="max_live_matches",
            )
        waiting = [m for m in live if m.match is None and m.creator == caller]
        if policy.max_waiting_per_caller is not None and len(waiting) >= policy.max_waiting_per_caller:
            raise NegotiationError(
                ErrorCode.LIMIT_REACHED,
                f"You have {len(waiting)} matches waiting for players, the most allowed; "
                "fill or leave one (leave_game) first.",
                limit="max_waiting_per_caller",
            )

    def _evict(self) -> None:
        """Forget matches finished, or still waiting for players, longer than the policy's TTL."""
        ttl = self.policy.finished_ttl
        if ttl is None:
            return
        now = self._clock()
        for match_id in [
            m.match_id
            for m in self._matches.values()
            if now - (m.finished_at if m.finished_at is not None else m.seated_at) >= ttl
            and (m.finished_at is not None or m.match is None)
        ]:
            del self._matches[match_id]

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
        if seat.agent_id in live.left:
            raise NegotiationError(ErrorCode.FORBIDDEN, "You left this match; your turns are played by default.")
        return live, seat

    async def _take_seat(self, live: LiveMatch, name: str | None) -> Seat:
        async with live.lock:
            if len(live.seats) >= live.seats_total:
                raise NegotiationError(ErrorCode.MATCH_FULL, f"Match {live.match_id} has no free seat.")
            taken = {s.agent_id for s in live.seats}
            base = re.sub(r"[^A-Za-z0-9_-]", "_", (name or "").strip())[:32] or f"player_{len(live.seats) + 1}"
            agent_id, n = base, 1
            while agent_id in taken:
                n += 1
                agent_id = f"{base}_{n}"
            seat = Seat(agent_id=agent_id, token=secrets.token_urlsafe(24), name=name or agent_id)
            if len(live.seats) + 1 == live.seats_total:
                live.match = await self._step(
                    Match,
                    live.entry.cls,
                    [s.agent_id for s in live.seats] + [agent_id],
                    config=live.config,
                    seed=live.seed,
                    match_id=live.match_id,
                    clock=self._clock,
                )
            live.seats.append(seat)
            live.seated_at = self._clock()
        self._settled(live)
        return seat

    async def _after(self, live: LiveMatch, seat: Seat, change: Callable[[Match], list[Any]]) -> dict[str, Any]:
        """Run a change on the match off the loop, then wake waiters, re-arm the clocks, report what happened."""
        match = live.match
        assert match is not None
        async with live.lock:
            before = len(match.events)
            await self._step(self._change, live, change)
            live.turn_started.pop(seat.agent_id, None)  # whoever acted starts a fresh turn clock
            acting = match.acting()
            outcome = {
                "ok": True,
                "events": [e.to_dict() for e in match.events_for(seat.agent_id, before)],
                "status": live.status,
                "your_turn": seat.agent_id in acting,
                "acting": acting,
                "cursor": len(match.events),
            }
        self._settled(live)
        return outcome

    async def _step(self, step: Callable[..., StepResult], *args: Any, **kwargs: Any) -> StepResult:
        """Run one step of game code: in a worker thread when the policy says so, else right here."""
        if self.policy.steps_in_thread:
            return await asyncio.to_thread(step, *args, **kwargs)
        return step(*args, **kwargs)

    def _change(self, live: LiveMatch, change: Callable[[Match], list[Any]]) -> None:
        assert live.match is not None
        change(live.match)
        self._play_for_absent(live)

    def _play_for_absent(self, live: LiveMatch) -> None:
        """Default moves for every due seat that left the match (runs off the loop, under the lock)."""
        match = live.match
        assert match is not None
        for _ in range(MAX_DEFAULTS_PER_STEP):
            due = [a for a in match.acting() if a in live.left]
            if not due:
                return
            match.play_default(due[0], LEFT)

    def _settled(self, live: LiveMatch) -> None:
        """After any change: note who is now due (their turn clocks start), re-arm the timer, wake waiters."""
        match = live.match
        now = self._clock()
        if match is not None:
            acting = set(match.acting())
            live.turn_started = {a: live.turn_started.get(a, now) for a in acting}
            if match.finished and live.finished_at is None:
                live.finished_at = now
        self._arm_timer(live)
        live.signal()

    def _next_wake(self, live: LiveMatch) -> float | None:
        """The earliest of the phase's deadline and the seats' turn clocks, on the arena's clock."""
        match = live.match
        if match is None or match.finished:
            return None
        wakes = [] if match.deadline is None else [match.deadline]
        timeout = self.policy.turn_timeout
        if timeout is not None and live.turn_started:
            wakes.append(min(live.turn_started.values()) + timeout)
        return min(wakes, default=None)

    def _arm_timer(self, live: LiveMatch) -> None:
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        wake = self._next_wake(live)
        if wake is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        live.timer = loop.call_later(max(0.0, wake - self._clock()), self._on_timer, live)

    def _on_timer(self, live: LiveMatch) -> None:
        live.timer = None
        task = asyncio.get_running_loop().create_task(self._tick(live))
        self._ticks.add(task)
        task.add_done_callback(self._ticks.discard)

    async def _tick(self, live: LiveMatch) -> None:
        """A clock ran out: the phase's deadline, or a seat's turn clock (its default move is played)."""
        async with live.lock:
            match = live.match
            if match is not None and not match.finished:
                await self._step(self._expire, live, match, self._clock())
        self._settled(live)

    def _expire(self, live: LiveMatch, match: Match, now: float) -> None:
        """Runs off the loop, under the lock. Only the turn that was late is forfeited: once the
        round or phase moves on, the seats due in it get fresh clocks."""
        timeout = self.policy.turn_timeout
        if match.expire_due():
            live.turn_started.clear()
        elif timeout is not None:
            turn = (match.round, match.phase)
            for agent_id in [a for a, since in live.turn_started.items() if now - since >= timeout]:
                if match.finished or (match.round, match.phase) != turn:
                    break
                if agent_id not in match.acting():
                    continue
                match.play_default(agent_id, f"turn clock: no move within {timeout:g} s")
                live.turn_started.pop(agent_id)
            if (match.round, match.phase) != turn:
                live.turn_started.clear()
        self._play_for_absent(live)

    def _turn_state(self, live: LiveMatch, seat: Seat, cursor: int, include_prompt: bool) -> dict[str, Any]:
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
        acting = match.acting()
        state.update(
            round=match.round,
            rounds=match.spec.rounds,
            phase=match.phase,
            acting=acting,
            your_turn=me in acting,
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
        )
        if include_prompt:
            state["prompt"] = self._prompt(live, match, me)
        if match.result is not None:
            state["result"] = {"payoffs": match.result.final_scores, "agreement": match.result.game_data["agreement"]}
        return state

    @staticmethod
    def _prompt(live: LiveMatch, match: Match, agent_id: str) -> str:
        built_at, prompt = live.prompts.get(agent_id, (-1, ""))
        if built_at != len(match.events):
            prompt = match.game.get_game_prompt(agent_id)
            live.prompts[agent_id] = (len(match.events), prompt)
        return prompt


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"`{name}` must be a string.")
    if len(value) > MAX_ARGUMENT_CHARS:
        raise NegotiationError(
            ErrorCode.MESSAGE_TOO_LONG if name == "content" else ErrorCode.INVALID_ARGUMENT,
            f"`{name}` is longer than {MAX_ARGUMENT_CHARS} characters.",
        )
    return value


def _name(name: Any) -> None:
    if name is not None and not isinstance(name, str):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "name must be a string or null.")
    if isinstance(name, str):
        _text("name", name)


def _cursor(since: Any) -> int:
    if since is None:
        return 0
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "since must be a non-negative integer (a cursor) or null.")
    return since
