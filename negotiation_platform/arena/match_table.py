"""The matches an arena holds: found by id, loaded from its store, followed read-only, leased.

One table per arena. A match this process plays is *held*: its copy here is the truth until a store
write fails (then it is forgotten and the store stays the truth; the next call loads it again). A
match another process plays (or a finished one no longer held) is *followed*: a read-only copy
rebuilt from the store whenever its log has grown. With a store, the table keeps this process's
leases fresh, and forgets the matches whose lease another process took.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

from negotiation_platform.arena.live import LiveMatch
from negotiation_platform.arena.persistence import rebuild, wrong_owner
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.store.records import MatchRecord

if TYPE_CHECKING:
    from negotiation_platform.arena.persistence import Persistence

Found = TypeVar("Found")
MAX_FOLLOWED = 256
"""Read-only copies of matches played elsewhere (or finished) kept for readers."""
log = logging.getLogger("negotiation_platform.arena.arena")


def unknown_match(match_id: object) -> NegotiationError:
    """The `unknown_match` refusal of `match_id`."""
    return NegotiationError(ErrorCode.UNKNOWN_MATCH, f"No match {match_id!r}; list_matches shows them.")


class MatchTable:
    """Live matches by id: the held ones, the followed copies, the loads under way, and the leases."""

    def __init__(self, registry: Registry, clock: Callable[[], float]) -> None:
        self.registry = registry
        self._clock = clock
        self._held: dict[str, LiveMatch] = {}
        self._loads: dict[str, asyncio.Task[LiveMatch]] = {}
        self._followed: OrderedDict[str, LiveMatch] = OrderedDict()
        self._renewal: asyncio.Task[None] | None = None
        self.persistence: Persistence | None = None
        """The store the matches are kept in (see `Arena.use_store`); None: memory only."""
        self.adopted: Callable[[LiveMatch], Awaitable[None]] | None = None
        """Called with each match adopted from the store, once held: its house seats and clocks start again."""

    # --- what is held ---------------------------------------------------------------------

    def get(self, match_id: str) -> LiveMatch | None:
        """The copy of the match this process holds, if any (no store read)."""
        return self._held.get(match_id)

    def held(self) -> list[LiveMatch]:
        """Every match this process holds, as of now."""
        return list(self._held.values())

    def held_now(self) -> Iterable[LiveMatch]:
        """Every match this process holds, not copied: for a reader that does not wait while it reads."""
        return self._held.values()

    def owns(self, live: LiveMatch) -> bool:
        """Whether `live` is this process's own copy of its match (not forgotten, not a read-only one)."""
        return self._held.get(live.match_id) is live

    def holds(self, live: LiveMatch) -> bool:
        """Whether `live` is still the match's copy (a read-only one, or this process's own): the copy
        of a change whose store write failed is forgotten, and must not be read."""
        return live.follower is not None or self._held.get(live.match_id) is live

    def add(self, live: LiveMatch) -> None:
        self._held[live.match_id] = live

    def drop(self, live: LiveMatch) -> None:
        """Stop holding `live` (abandoned, evicted); its waiters are not woken."""
        if self._held.get(live.match_id) is live:
            del self._held[live.match_id]

    def forget(self, live: LiveMatch) -> None:
        """Drop `live`, stop its clock and wake its waiters: whoever reads it next reads it from the store."""
        self.drop(live)
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        live.signal()

    def stale(self, now: float, ttl: float) -> list[LiveMatch]:
        """Matches finished, or still waiting for players, at least `ttl` seconds before `now`."""
        return [
            m
            for m in self._held.values()
            if now - (m.finished_at if m.finished_at is not None else m.seated_at) >= ttl
            and (m.finished_at is not None or m.match is None)
        ]

    # --- finding ----------------------------------------------------------------------------

    async def find(self, match_id: str, *, write: bool = False) -> LiveMatch:
        """The match: in memory, else loaded from the store. A call that changes it (`write`) needs
        a match this process owns; one that reads may get a read-only copy of another's."""
        live = self._held.get(match_id)  # `match_id` is checked where it came in (a request's, or the host's)
        if live is None:
            if self.persistence is None:
                raise unknown_match(match_id)
            live = await self._load(match_id)
        if write and live.follower not in (None, "finished"):
            raise wrong_owner(live.match_id, live.follower)
        return live

    @contextlib.asynccontextmanager
    async def committed(
        self, find: Callable[[], Awaitable[tuple[LiveMatch, Found]]]
    ) -> AsyncIterator[tuple[LiveMatch, Found]]:
        """What `find` finds, under its match's lock, as committed: found again (from the store) when
        the copy in hand was forgotten while this waited for the lock."""
        while True:
            found = await find()
            await found[0].lock.acquire()
            if self.holds(found[0]):
                break
            found[0].lock.release()
        try:
            yield found
        finally:
            found[0].lock.release()

    # --- loading from the store -------------------------------------------------------------

    async def resume(self) -> int:
        """Adopt every unfinished match of the store that no live process holds; returns how many."""
        persist = self.persistence
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
        self.keep_leases()
        return adopted

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
        persist = self.persistence
        assert persist is not None
        record = await persist.read(lambda: persist.store.get_match(match_id))
        if record is None or record.status == "abandoned":
            raise unknown_match(match_id)
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
        self._held[match_id] = live
        self._followed.pop(match_id, None)
        if self.adopted is not None:
            await self.adopted(live)
        self.keep_leases()
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
        """The stored match rebuilt from one snapshot of its record and events (see `persistence.rebuild`)."""
        persist = self.persistence
        assert persist is not None
        stored = await persist.read(lambda: persist.store.snapshot(match_id))
        if stored is None:
            raise unknown_match(match_id)
        return await rebuild(*stored, self.registry, self._clock)

    # --- leases -----------------------------------------------------------------------------

    def keep_leases(self) -> None:
        """Start renewing this process's leases (once, on the running loop)."""
        if self.persistence is None or self._renewal is not None:
            return
        renewing = self.persistence.keep_leases(self._clock, self._still_held)
        self._renewal = asyncio.get_running_loop().create_task(renewing)

    def stop_renewing(self) -> None:
        """Stop renewing leases (they lapse unless given up, see `close`)."""
        if self._renewal is not None:
            self._renewal.cancel()
            self._renewal = None

    async def close(self) -> None:
        """Stop renewing leases and give them up, so another process may adopt the matches at once."""
        self.stop_renewing()
        persist = self.persistence
        if persist is not None:
            with contextlib.suppress(NegotiationError):
                await persist.read(lambda: persist.store.release(persist.owner))

    def _still_held(self, ours: set[str], renewed_at: float) -> None:
        """Forget unfinished matches whose lease another process has taken (this one stalled too long)."""
        for live in list(self._held.values()):
            if live.match_id not in ours and live.held_since < renewed_at and live.status != "finished":
                log.warning("match %s is now played by another process; forgetting this copy", live.match_id)
                self.forget(live)
