"""Committing changes to a match: run the change, write what it changed to the store, or undo it.

Every call that changes a match goes through one `Committer`. The change and its store write run
as one step (in a worker thread when the policy says so). If the store refuses the write, the copy
in memory is forgotten and the store stays the truth; if the game fails midway through a change,
the match is rolled back (`negotiation_platform.arena.rollback`). Either way the caller gets the
refusal, and nothing of the change is seen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import NoReturn, ParamSpec, TypeVar, Unpack

from negotiation_platform.arena.clocks import play_for_absent
from negotiation_platform.arena.listing import result_fields
from negotiation_platform.arena.live import LiveMatch, Seat
from negotiation_platform.arena.match_table import MatchTable
from negotiation_platform.arena.persistence import Change, match_record, seat_record
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.arena.rollback import roll_back
from negotiation_platform.errors import ErrorCode, NegotiationError

Params = ParamSpec("Params")
StepResult = TypeVar("StepResult")
STORE_FAILURES = {ErrorCode.WRONG_OWNER, ErrorCode.STORE_UNAVAILABLE}


class Committer:
    """Changes to the matches of one table: run, saved, or undone."""

    def __init__(self, table: MatchTable, policy: ArenaPolicy, clock: Callable[[], float]) -> None:
        self._table = table
        self._policy = policy
        self._clock = clock

    async def step(self, step: Callable[Params, StepResult], *args: Params.args, **kwargs: Params.kwargs) -> StepResult:
        """Run one step of game code: in a worker thread when the policy says so, else right here."""
        if self._policy.steps_in_thread:
            return await asyncio.to_thread(step, *args, **kwargs)
        return step(*args, **kwargs)

    async def mutate(self, live: LiveMatch, work: Callable[[], None]) -> None:
        """Run `work` (a change and its store write) as a step (see `step`); a failure is handled by `undo`."""
        before = len(live.match.events) if live.match is not None else 0
        try:
            await self.step(work)
        except Exception as failure:
            await self.undo(live, before, failure)

    async def undo(self, live: LiveMatch, before: int, failure: Exception) -> NoReturn:
        """After a change begun at `before` events failed: if the store refused the write, the in-memory copy
        is forgotten (the store stays the truth, and the next call loads it from there); if the game failed
        midway, the match is rolled back (see `negotiation_platform.arena.rollback`). Raises the refusal."""
        forget = self._table.forget
        if isinstance(failure, NegotiationError):
            if failure.code in STORE_FAILURES:
                forget(live)
            elif live.match is not None and len(live.match.events) != before:
                await roll_back(live, before, failure, self._clock, forget)
            raise failure
        raise await roll_back(live, before, failure, self._clock, forget) from None

    def save(self, live: LiveMatch, before: int | None = None, **change: Unpack[Change]) -> None:
        """Write what changed (the events from `before` on, status, round, result); blocking, off the loop."""
        persist = self._table.persistence
        if persist is None:
            return
        match = live.match
        if match is not None and before is not None:
            change["events"], change["round"] = match.events[before:], match.round
            if live.status != live.stored_status:
                change["status"] = live.status
                if match.result is not None:
                    change["result"] = result_fields(match)
        persist.write(live.match_id, **change)
        live.stored_status = change.get("status", live.stored_status)

    def play_and_save(self, live: LiveMatch, before: int, **change: Unpack[Change]) -> None:
        """Default moves for seats that left, then the store write of everything since `before`."""
        if live.left:
            play_for_absent(live)
        if self._table.persistence is not None:
            self.save(live, before, **change)

    def save_seat(self, live: LiveMatch, seat: Seat) -> None:
        """Write a seat just taken: the whole match with its first seat, else the seat (and a start)."""
        persist = self._table.persistence
        assert persist is not None
        if len(live.seats) == 1:
            persist.create(match_record(live))
            live.stored_status = "waiting_for_players"
            if live.match is not None:  # a game for one
                self.save(live, 0)
            return
        self.save(live, 0 if live.match is not None else None, seated=seat_record(seat))
