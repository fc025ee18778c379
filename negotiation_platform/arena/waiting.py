"""Waiting: a caller waits for its turn or news instead of polling.

A wait on a match this process holds sleeps until the match signals a change; on a match another
process plays, it looks into the store again every `FOLLOW_POLL_SECONDS`. Either way a reader
reads only what is committed, and finds the match again when the copy in hand went stale.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from negotiation_platform.arena.live import LiveMatch
from negotiation_platform.arena.match_table import MatchTable
from negotiation_platform.errors import ErrorCode, NegotiationError

MAX_WAIT_SECONDS = 60.0
"""Longest a single `get_turn_state` call may block; callers loop for longer waits."""
FOLLOW_POLL_SECONDS = 0.25
"""How often a wait on a match another process plays looks into the store for news."""
State = TypeVar("State", bound=Mapping[str, object])


class Waiters:
    """Waits on the matches of one table."""

    def __init__(self, table: MatchTable, clock: Callable[[], float]) -> None:
        self._table = table
        self._clock = clock

    async def wait_for(
        self,
        locate: Callable[[], Awaitable[tuple[LiveMatch, Callable[[], State]]]],
        wait_seconds: float,
        done: Callable[[State], bool],
    ) -> State:
        """`read()` (under the match's lock) once there are events, the match is over, `done` says so,
        or `wait_seconds` (at most MAX_WAIT_SECONDS) have passed. `locate` finds the match and its
        reader again whenever the copy in hand went stale (played by another process, or reloaded)."""
        live, read = await locate()  # `wait_seconds` is checked where it came in (a request, or a LocalSeat's call)
        table = self._table
        give_up = self._clock() + min(float(wait_seconds), MAX_WAIT_SECONDS)
        while True:
            async with live.lock:
                state = read() if table.holds(live) else None
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
            if live.follower is not None or not table.owns(live):
                if table.persistence is None:  # dropped while we waited
                    raise NegotiationError(
                        ErrorCode.UNKNOWN_MATCH, f"Match {live.match_id} was abandoned by its creator."
                    )
                live, read = await locate()  # its current state, from the store
