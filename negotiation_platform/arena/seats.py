"""A seat's operations, typed: the arena's JSON operations and in-process players share them.

`Arena.get_turn_state`, `perform_action`, `send_*_message` and `play_default` check their JSON
arguments, find the seat by its token, and answer `to_dict()` of what these return. A player in
the arena's own process (`play`, tournaments) gets a `LocalSeat` from `Arena.seat_for` instead:
its token is checked once, and each call goes straight to the same locks, rules, event log, store
writes and turn clocks, answering the typed `TurnState` and `Acted` (events as logged), with
nothing encoded as JSON.

A mixin of `Arena` (see `negotiation_platform.arena.arena`): it works on the arena's own state,
declared below.
"""

from __future__ import annotations

import contextlib
import hmac
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from negotiation_platform.arena.arguments import _cursor, _text, action_arguments, message_arguments
from negotiation_platform.arena.live import LiveMatch, Seat
from negotiation_platform.arena.timers import Timers
from negotiation_platform.arena.turn_state import Acted, TurnState
from negotiation_platform.engine.match import Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.store.records import token_hash

Found = TypeVar("Found")


class Seats(Timers):
    """The seat side of `Arena`: tokens to seats, reads as committed, and the changes a seat makes."""

    _find: Callable[..., Awaitable[LiveMatch]]
    """The match by id, in memory or from the store (see `Arena`)."""

    async def seat_for(self, match_id: str, token: str) -> LocalSeat:
        """The seat `token` holds in the match, for a player in this process (see `LocalSeat`)."""
        live, seat = await self._seat(match_id, token)
        return LocalSeat(self, live, seat, token)

    def _holds(self, live: LiveMatch) -> bool:
        """Whether `live` is still the match's copy (a read-only one, or this process's own): the copy
        of a change whose store write failed is forgotten, and must not be read."""
        return live.follower is not None or self._matches.get(live.match_id) is live

    @contextlib.asynccontextmanager
    async def _committed(
        self, find: Callable[[], Awaitable[tuple[LiveMatch, Found]]]
    ) -> AsyncIterator[tuple[LiveMatch, Found]]:
        """What `find` finds, under its match's lock, as committed: found again (from the store) when
        the copy in hand was forgotten while this waited for the lock."""
        while True:
            found = await find()
            await found[0].lock.acquire()
            if self._holds(found[0]):
                break
            found[0].lock.release()
        try:
            yield found
        finally:
            found[0].lock.release()

    async def _read_turn(
        self, find: Callable[[], Awaitable[tuple[LiveMatch, Seat]]], cursor: int, include_prompt: bool
    ) -> TurnState:
        """The seat's turn state as committed. A match whose lock is free is read at once: no change is
        under way, and none can start while this reads (it does not wait in between)."""
        live, seat = await find()
        if not live.lock.locked() and self._holds(live):
            return TurnState(live, seat, cursor, include_prompt, self.policy, self._clock)
        async with self._committed(find) as (live, seat):
            return TurnState(live, seat, cursor, include_prompt, self.policy, self._clock)

    async def _seat(self, match_id: str, token: str, *, write: bool = False) -> tuple[LiveMatch, Seat]:
        live = await self._find(match_id, write=write)
        if isinstance(token, str):
            digest = token_hash(token)
            for seat in live.seats:
                if hmac.compare_digest(seat.token_hash, digest) or hmac.compare_digest(seat.context_hash or "", digest):
                    return live, seat
        raise NegotiationError(ErrorCode.FORBIDDEN, "This token does not hold a seat in this match.")

    async def _running(self, match_id: str, token: str) -> tuple[LiveMatch, Seat]:
        live, seat = await self._seat(match_id, token, write=True)
        return _playing(live, seat)

    async def _act(self, live: LiveMatch, seat: Seat, action_type: Any, payload: Any) -> Acted:
        action, data = action_arguments(action_type, payload)
        return await self._after(live, seat, lambda m: m.submit(seat.agent_id, action, data))

    async def _say(self, live: LiveMatch, seat: Seat, content: Any, to: list[Any] | None) -> Acted:
        text, recipients = message_arguments(content, to)
        return await self._after(live, seat, lambda m: m.send_message(seat.agent_id, text, recipients))

    async def _forfeit(self, live: LiveMatch, seat: Seat, reason: Any) -> Acted:
        why = _text("reason", reason)
        return await self._after(live, seat, lambda m: m.play_default(seat.agent_id, why, forfeit=True))

    async def _after(self, live: LiveMatch, seat: Seat, change: Callable[[Match], Sequence[Any]]) -> Acted:
        """Run a change on the match (off the loop when the policy says so) and write it to the store, then
        wake waiters, re-arm the clocks, report what happened."""
        match = live.match
        assert match is not None
        if self.policy.steps_in_thread or live.lock.locked():
            async with live.lock:
                before = len(match.events)
                await self._mutate(live, lambda: self._change(live, change, before))
                return self._acted(live, seat, before)
        before = len(match.events)
        try:  # the lock is free and the step runs here: nothing else runs until it is done, as if it were held
            self._change(live, change, before)
        except Exception as failure:
            async with live.lock:  # free, so taken at once: readers wait while the failure is undone
                await self._undo(live, before, failure)
        return self._acted(live, seat, before)

    def _acted(self, live: LiveMatch, seat: Seat, before: int) -> Acted:
        live.turn_started.pop(seat.agent_id, None)  # whoever acted starts a fresh turn clock
        outcome = Acted(live, seat, before)
        self._settled(live)
        return outcome

    def _change(self, live: LiveMatch, change: Callable[[Match], Sequence[Any]], before: int) -> None:
        assert live.match is not None
        change(live.match)
        self._play_and_save(live, before)


def _playing(live: LiveMatch, seat: Seat) -> tuple[LiveMatch, Seat]:
    """The seat, if it may change its match now: the match has started and the seat has not left it."""
    if live.match is None:
        raise NegotiationError(
            ErrorCode.NOT_STARTED,
            f"The match starts when all {live.seats_total} seats are taken ({len(live.seats)} so far).",
        )
    if seat.agent_id in live.left:
        raise NegotiationError(ErrorCode.FORBIDDEN, "You left this match; your turns are played by default.")
    return live, seat


class LocalSeat:
    """One seat of an in-process arena, for a player in the same process: what `Arena.seat_for` gives.

    It keeps the seat it was given, and finds it again by its token only when its match's copy went
    away (forgotten after a failed store write, or played by another process), so a call costs no
    token hashing; the match's lock, rules, log, store and clocks are the JSON operations' own.
    """

    __slots__ = ("_arena", "_live", "_seat", "_token", "match_id")

    def __init__(self, arena: Seats, live: LiveMatch, seat: Seat, token: str) -> None:
        self._arena, self._live, self._seat, self._token = arena, live, seat, token
        self.match_id = live.match_id

    @property
    def agent_id(self) -> str:
        return self._seat.agent_id

    async def turn(
        self, since: int | None = None, *, include_prompt: bool = True, wait_seconds: float = 0
    ) -> TurnState:
        """The seat's turn state, with its events after cursor `since`; waits up to `wait_seconds` for its
        turn or something new (see `Arena.get_turn_state`)."""
        cursor, arena = _cursor(since), self._arena
        if not wait_seconds:
            found = self._current()
            if found is not None and not found[0].lock.locked():  # as `_read_turn` reads a match nobody changes
                return TurnState(found[0], found[1], cursor, include_prompt, arena.policy, arena._clock)
            return await arena._read_turn(self._located, cursor, include_prompt)

        async def locate() -> tuple[LiveMatch, Callable[[], TurnState]]:
            live, seat = await self._located()
            return live, lambda: TurnState(live, seat, cursor, include_prompt, arena.policy, arena._clock)

        return await arena._wait_for(locate, wait_seconds, lambda state: state.your_turn)

    async def act(self, action_type: str, payload: dict[str, Any] | None = None) -> Acted:
        """Take an action (see `Arena.perform_action`)."""
        live, seat = _playing(*(self._current() or await self._located(write=True)))
        return await self._arena._act(live, seat, action_type, payload)

    async def say(self, content: str, to: list[str] | None = None) -> Acted:
        """A public message, or (`to`) a private one to those players."""
        live, seat = _playing(*(self._current() or await self._located(write=True)))
        return await self._arena._say(live, seat, content, to)

    async def forfeit(self, reason: str) -> Acted:
        """Give up the move: the phase's default action is played and `reason` logged (see `Arena.play_default`)."""
        live, seat = _playing(*(self._current() or await self._located(write=True)))
        return await self._arena._forfeit(live, seat, reason)

    def _current(self) -> tuple[LiveMatch, Seat] | None:
        """The seat as held, while its match's copy is this process's own and the seat still in it."""
        live, seat = self._live, self._seat
        if self._arena._matches.get(live.match_id) is live and seat in live.seats:
            return live, seat
        return None

    async def _located(self, *, write: bool = False) -> tuple[LiveMatch, Seat]:
        """The seat as held, or found again by its token (a fresh copy of its match, read-only for readers
        when another process plays it)."""
        found = self._current()
        if found is None:
            found = self._live, self._seat = await self._arena._seat(self.match_id, self._token, write=write)
        return found
