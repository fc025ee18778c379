"""Keeping an arena's matches in its store: writing what changed, adopting and rebuilding stored
matches, following matches another process plays, and renewing leases.

A mixin of `Arena` (see `negotiation_platform.arena.arena`): it works on the arena's own state,
declared below. If the store refuses a write, the copy in memory is forgotten and the store stays
the truth; if the game fails midway through a change, the match is rolled back
(`negotiation_platform.arena.rollback`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from negotiation_platform.arena.arguments import _seat_record, _unknown
from negotiation_platform.arena.listing import result_fields
from negotiation_platform.arena.live import LiveMatch, Seat
from negotiation_platform.arena.persistence import match_record, rebuild
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.arena.rollback import roll_back
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.store.records import MatchRecord, token_hash

if TYPE_CHECKING:
    from negotiation_platform.arena.persistence import Persistence

StepResult = TypeVar("StepResult")
MAX_FOLLOWED = 256
"""Read-only copies of matches played elsewhere (or finished) kept for readers."""
STORE_FAILURES = {ErrorCode.WRONG_OWNER, ErrorCode.STORE_UNAVAILABLE}
HouseDriver = Callable[[str, str, str, dict[str, Any]], None]
"""(match_id, agent_id, token, house) -> None: plays a server-side seat again after its match was resumed."""
log = logging.getLogger("negotiation_platform.arena.arena")


class StoreKeeping:
    """The store side of `Arena`."""

    registry: Registry
    _policy: ArenaPolicy
    house_driver: HouseDriver | None
    _clock: Callable[[], float]
    _matches: dict[str, LiveMatch]
    _persist: Persistence | None
    _loads: dict[str, asyncio.Task[LiveMatch]]
    _followed: OrderedDict[str, LiveMatch]
    _renewal: asyncio.Task[None] | None
    _settled: Callable[[LiveMatch], None]
    """Wakes waiters and re-arms the clocks of a match (see `Timers`)."""

    @property
    def policy(self) -> ArenaPolicy:
        """What this arena allows and guarantees: given to `Arena(policy=...)` and fixed from then on
        (no setter: clocks, limits and draws already armed under one policy never meet another)."""
        return self._policy

    def use_store(self, persistence: Persistence) -> None:
        """Keep every match in `persistence`'s store from now on (set before serving)."""
        self._persist = persistence

    async def resume(self) -> int:
        """Adopt every unfinished match of the store that no live process holds; returns how many.

        Each is rebuilt by replaying its events: seats keep their tokens and cursors, every seat
        due to act gets a fresh turn clock, and server-side seats are handed to `house_driver`.
        """
        persist = self._persist
        if persist is None:
            return 0
        adopted = 0
        for match_id in await persist.read(lambda: persist.store.adoptable(persist.owner)):
            try:
                live = await self._load(match_id)
            except NegotiationError as failure:
                log.warning("could not resume match %s: %s", match_id, failure.message)
                continue
            adopted += live.follower is None
        self._keep_leases()
        return adopted

    async def close(self) -> None:
        """Stop renewing leases and give them up, so another process may adopt the matches at once."""
        if self._renewal is not None:
            self._renewal.cancel()
            self._renewal = None
        if self._persist is not None:
            persist = self._persist
            with contextlib.suppress(NegotiationError):
                await persist.read(lambda: persist.store.release(persist.owner))

    async def _step(self, step: Callable[..., StepResult], *args: Any, **kwargs: Any) -> StepResult:
        """Run one step of game code: in a worker thread when the policy says so, else right here."""
        if self.policy.steps_in_thread:
            return await asyncio.to_thread(step, *args, **kwargs)
        return step(*args, **kwargs)

    async def _mutate(self, live: LiveMatch, work: Callable[[], None]) -> None:
        """Run `work` (a change and its store write) as a step (see `_step`); a failure is handled by `_undo`."""
        before = len(live.match.events) if live.match is not None else 0
        try:
            await self._step(work)
        except Exception as failure:
            await self._undo(live, before, failure)

    async def _undo(self, live: LiveMatch, before: int, failure: Exception) -> NoReturn:
        """After a change begun at `before` events failed: if the store refused the write, the in-memory copy
        is forgotten (the store stays the truth, and the next call loads it from there); if the game failed
        midway, the match is rolled back (see `negotiation_platform.arena.rollback`). Raises the refusal."""
        if isinstance(failure, NegotiationError):
            if failure.code in STORE_FAILURES:
                self._forget(live)
            elif live.match is not None and len(live.match.events) != before:
                await roll_back(live, before, failure, self._clock, self._forget)
            raise failure
        raise await roll_back(live, before, failure, self._clock, self._forget) from None

    def _forget(self, live: LiveMatch) -> None:
        if self._matches.get(live.match_id) is live:
            del self._matches[live.match_id]
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        live.signal()

    def _save(self, live: LiveMatch, before: int | None = None, **change: Any) -> None:
        """Write what changed (the events from `before` on, status, round, result); blocking, off the loop."""
        if self._persist is None:
            return
        match = live.match
        if match is not None and before is not None:
            change.update(events=match.events[before:], round=match.round)
            if live.status != live.stored_status:
                change["status"] = live.status
                if match.result is not None:
                    change["result"] = result_fields(match)
        self._persist.write(live.match_id, **change)
        live.stored_status = change.get("status", live.stored_status)

    def _save_seat(self, live: LiveMatch, seat: Seat) -> None:
        assert self._persist is not None
        if len(live.seats) == 1:
            self._persist.create(match_record(live))
            live.stored_status = "waiting_for_players"
            if live.match is not None:  # a game for one
                self._save(live, 0)
            return
        self._save(live, 0 if live.match is not None else None, seated=_seat_record(seat))

    async def _load(self, match_id: str) -> LiveMatch:
        """The match rebuilt from the store; one load at a time per match, however many callers ask."""
        pending = self._loads.get(match_id)
        if pending is None:
            pending = asyncio.get_running_loop().create_task(self._load_now(match_id))
            self._loads[match_id] = pending
            pending.add_done_callback(lambda _: self._loads.pop(match_id, None))
        return await asyncio.shield(pending)

    async def _load_now(self, match_id: str) -> LiveMatch:
        """Adopt an unfinished match whose lease is free (or ours); else a read-only copy for readers."""
        persist = self._persist
        assert persist is not None
        record = await persist.read(lambda: persist.store.get_match(match_id))
        if record is None or record.status == "abandoned":
            raise _unknown(match_id)
        if record.status == "finished":
            return await self._follow(record, "finished")
        try:
            await asyncio.to_thread(persist.claim, match_id)
        except NegotiationError as refused:
            if refused.code is not ErrorCode.WRONG_OWNER:
                raise
            return await self._follow(record, refused.details["owner"])
        live = await self._rebuilt(match_id)  # ours now: nobody else writes it
        live.held_since = self._clock()
        self._matches[match_id] = live
        self._followed.pop(match_id, None)
        await self._reattach_house_seats(live)
        self._settled(live)
        self._keep_leases()
        log.info("resumed match %s (%s, %s)", match_id, live.entry.game_id, live.status)
        return live

    async def _follow(self, record: MatchRecord, owner: str) -> LiveMatch:
        """A read-only copy of a stored match, rebuilt again only when its log has grown."""
        known = self._followed.get(record.match_id)
        if known is None or known.event_count != record.event_count or len(known.seats) != len(record.seats):
            known = await self._rebuilt(record.match_id)  # as stored now: maybe further on than `record`
            self._followed[record.match_id] = known
            while len(self._followed) > MAX_FOLLOWED:
                self._followed.popitem(last=False)
        known.follower = owner
        return known

    async def _rebuilt(self, match_id: str) -> LiveMatch:
        """The stored match rebuilt from one snapshot of its record and events (see `persistence.rebuild`):
        this arena needs a store for it."""
        persist = self._persist
        assert persist is not None
        stored = await persist.read(lambda: persist.store.snapshot(match_id))
        if stored is None:
            raise _unknown(match_id)
        return await rebuild(*stored, self.registry, self._clock)

    async def _reattach_house_seats(self, live: LiveMatch) -> None:
        """Give each server-played seat of a resumed match a fresh token (only hashes are stored) and
        hand it to `house_driver`, which plays it again."""
        if live.status == "finished" or self.house_driver is None:
            return
        for seat in live.seats:
            if seat.house is None or seat.agent_id in live.left:
                continue
            token = secrets.token_urlsafe(24)
            change = {"new_token_hash": (seat.agent_id, token_hash(token))}
            await self._mutate(live, partial(self._save, live, None, **change))
            seat.token_hash = change["new_token_hash"][1]
            self.house_driver(live.match_id, seat.agent_id, token, seat.house)

    def _keep_leases(self) -> None:
        """Start renewing this process's leases (once, on the running loop)."""
        if self._persist is None or self._renewal is not None:
            return
        self._renewal = asyncio.get_running_loop().create_task(self._persist.keep_leases(self._clock, self._still_held))

    def _still_held(self, ours: set[str], renewed_at: float) -> None:
        """Forget unfinished matches whose lease another process has taken (this one stalled too long)."""
        for live in list(self._matches.values()):
            if live.match_id not in ours and live.held_since < renewed_at and live.status != "finished":
                log.warning("match %s is now played by another process; forgetting this copy", live.match_id)
                self._forget(live)
