"""Waiting and turn clocks of an arena: a caller waits for its turn or news, a clock that runs out
plays the late seat's default move (or closes the phase), and every change re-arms the clocks.

A mixin of `Arena` (see `negotiation_platform.arena.arena`): it works on the arena's own state,
declared below; the turn-clock rules themselves are `negotiation_platform.arena.clocks`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from negotiation_platform.arena.clocks import expire, next_wake
from negotiation_platform.arena.live import LiveMatch
from negotiation_platform.arena.store_keeping import StoreKeeping
from negotiation_platform.engine.match import Match
from negotiation_platform.errors import ErrorCode, NegotiationError

if TYPE_CHECKING:
    pass

MAX_WAIT_SECONDS = 60.0
"""Longest a single `get_turn_state` call may block; callers loop for longer waits."""
FOLLOW_POLL_SECONDS = 0.25
"""How often a wait on a match another process plays looks into the store for news."""
log = logging.getLogger("negotiation_platform.arena.arena")
State = TypeVar("State", bound=Mapping[str, Any])


class Timers(StoreKeeping):
    """The waiting and clock side of `Arena` (above its store side, whose writes a clock's move uses)."""

    _ticks: set[asyncio.Task[None]]
    _holds: Callable[[LiveMatch], bool]
    """Whether this process still holds the match (see `Seats`)."""
    _play_and_save: Callable[..., None]
    """Default moves for seats that left, then the store write (see `Arena`)."""

    async def _wait_for(
        self,
        locate: Callable[[], Awaitable[tuple[LiveMatch, Callable[[], State]]]],
        wait_seconds: Any,
        done: Callable[[State], bool],
    ) -> State:
        """`read()` (under the match's lock) once there are events, the match is over, `done` says so,
        or `wait_seconds` (at most MAX_WAIT_SECONDS) have passed. `locate` finds the match and its
        reader again whenever the copy in hand went stale (played by another process, or reloaded)."""
        live, read = await locate()
        if (
            isinstance(wait_seconds, bool)
            or not isinstance(wait_seconds, int | float)
            or not math.isfinite(wait_seconds)
            or wait_seconds < 0
        ):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "wait_seconds must be a finite number >= 0.")
        give_up = self._clock() + min(float(wait_seconds), MAX_WAIT_SECONDS)
        while True:
            async with live.lock:
                state = read() if self._holds(live) else None
            if state is None:  # forgotten while this waited for the lock (its write failed): as stored
                live, read = await locate()
                continue
            remaining = give_up - self._clock()
            if done(state) or state["events"] or state["status"] == "finished" or remaining <= 0:
                return state
            if live.follower is not None:  # another process plays it: look into the store again soon
                await asyncio.sleep(min(remaining, FOLLOW_POLL_SECONDS))
            else:
                changed = live.changed
                live.waiting += 1
                try:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(changed.wait(), timeout=remaining)
                finally:
                    live.waiting -= 1
            if live.follower is not None or self._matches.get(live.match_id) is not live:
                if self._persist is None:  # dropped while we waited
                    raise NegotiationError(
                        ErrorCode.UNKNOWN_MATCH, f"Match {live.match_id} was abandoned by its creator."
                    )
                live, read = await locate()  # its current state, from the store

    def _settled(self, live: LiveMatch) -> None:
        """After any change: note who is now due (their turn clocks start), re-arm the timer, wake waiters."""
        match = live.match
        now = self._clock()
        if match is not None:
            # in seat order, never a set's: late seats' default moves are played in this order
            live.turn_started = {a: live.turn_started.get(a, now) for a in match.acting()}
            if match.finished and live.finished_at is None:
                live.finished_at = now
        self._arm_timer(live)
        live.signal()

    def _arm_timer(self, live: LiveMatch) -> None:
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        wake = next_wake(live, self.policy.turn_timeout)
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
        if self._matches.get(live.match_id) is not live:
            return  # forgotten meanwhile (its store write failed): whoever loads it again runs its clocks
        async with live.lock:
            match = live.match
            if match is not None and not match.finished:
                now, before = self._clock(), len(match.events)
                try:
                    await self._mutate(live, lambda: self._expire(live, match, now, before))
                except NegotiationError as failure:
                    if failure.code is not ErrorCode.INTERNAL_ERROR:  # (that one is logged where the game failed)
                        log.warning("match %s: a clock ran out but the move was not kept: %s", live.match_id, failure)
                        return
                    live.turn_started.clear()  # the game failed and nothing changed: fresh clocks, tried again later
        self._settled(live)

    def _expire(self, live: LiveMatch, match: Match, now: float, before: int) -> None:
        """Runs off the loop, under the lock: the late turns forfeited (see `clocks.expire`), then saved."""
        expire(live, match, now, self.policy.turn_timeout)
        self._play_and_save(live, before)
