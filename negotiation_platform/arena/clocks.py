"""Turn clocks: when a match must wake next, which late turns are forfeited, and default moves
for seats that left (pure functions of the live match); and `TurnClocks`, which arms a timer per
match, and plays the late seat's default move (or closes the phase) when it runs out."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from negotiation_platform.arena.live import LiveMatch
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.engine.match import Match
from negotiation_platform.errors import ErrorCode, NegotiationError

if TYPE_CHECKING:
    from negotiation_platform.arena.committer import Committer
    from negotiation_platform.arena.match_table import MatchTable

MAX_DEFAULTS_PER_STEP = 10_000
"""Bound on default moves played in one go for seats that left (every game's rounds are finite)."""
LEFT = "left the match"
log = logging.getLogger("negotiation_platform.arena.arena")


def play_for_absent(live: LiveMatch) -> None:
    """Default moves for every due seat that left the match (runs off the loop, under the lock)."""
    match = live.match
    assert match is not None
    if not live.left:
        return
    for _ in range(MAX_DEFAULTS_PER_STEP):
        due = [a for a in match.acting() if a in live.left]
        if not due:
            return
        match.play_default(due[0], LEFT)


def next_wake(live: LiveMatch, timeout: float | None) -> float | None:
    """The earliest of the phase's deadline and the seats' turn clocks, on the arena's clock."""
    match = live.match
    if match is None or match.finished:
        return None
    deadline = match.deadline
    if timeout is None or not live.turn_started:  # asked after every move: most matches run no turn clock
        return deadline
    turn = min(live.turn_started.values()) + timeout
    return turn if deadline is None else min(deadline, turn)


def expire(live: LiveMatch, match: Match, now: float, timeout: float | None) -> None:
    """Runs off the loop, under the lock. Only the turn that was late is forfeited: once the
    round or phase moves on, the seats due in it get fresh clocks."""
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


class TurnClocks:
    """The timers of a table's matches: re-armed after every change, a clock's move committed as any other."""

    def __init__(
        self, table: MatchTable, committer: Committer, policy: ArenaPolicy, clock: Callable[[], float]
    ) -> None:
        self._table = table
        self._committer = committer
        self._policy = policy
        self._clock = clock
        self._ticks: set[asyncio.Task[None]] = set()

    def settled(self, live: LiveMatch) -> None:
        """After any change: note who is now due (their turn clocks start), re-arm the timer, wake waiters."""
        match = live.match
        if match is not None:
            if self._policy.turn_timeout is not None:  # else no turn clock reads when a seat became due
                now = self._clock()
                # in seat order, never a set's: late seats' default moves are played in this order
                live.turn_started = {a: live.turn_started.get(a, now) for a in match.acting()}
            if live.finished_at is None and match.result is not None:
                live.finished_at = self._clock()
            if live.timer is None and self._policy.turn_timeout is None and not match.clocked:
                live.signal()  # no clock can run in this match: there is no timer to arm
                return
        self._arm(live)
        live.signal()

    def _arm(self, live: LiveMatch) -> None:
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        wake = next_wake(live, self._policy.turn_timeout)
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
        if not self._table.owns(live):
            return  # forgotten meanwhile (its store write failed): whoever loads it again runs its clocks
        async with live.lock:
            match = live.match
            if match is not None and not match.finished:
                now, before = self._clock(), len(match.events)
                try:
                    await self._committer.mutate(live, lambda: self._expire(live, match, now, before))
                except NegotiationError as failure:
                    if failure.code is not ErrorCode.INTERNAL_ERROR:  # (that one is logged where the game failed)
                        log.warning("match %s: a clock ran out but the move was not kept: %s", live.match_id, failure)
                        return
                    live.turn_started.clear()  # the game failed and nothing changed: fresh clocks, tried again later
        self.settled(live)

    def _expire(self, live: LiveMatch, match: Match, now: float, before: int) -> None:
        """Runs off the loop, under the lock: the late turns forfeited (see `expire`), then saved."""
        expire(live, match, now, self._policy.turn_timeout)
        self._committer.play_and_save(live, before)
