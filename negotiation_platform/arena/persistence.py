"""How an arena keeps its matches in a store: what each call writes, and how a match is rebuilt.

`Persistence` runs the store's (blocking) methods off the event loop and turns their failures
into the arena's refusals: `wrong_owner` (another arena process holds the match's lease; its
name is in the details) and `store_unavailable` (the database failed; nothing was written).
Every process names itself (`owner`); a match is written only under its owner's lease, which
each write and a background renewal keep fresh, and which expires when the process dies, so
another process (or the same one restarted) can adopt the match.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

from negotiation_platform.arena.listing import result_fields
from negotiation_platform.arena.live import LiveMatch, Seat
from negotiation_platform.engine.events import Event
from negotiation_platform.errors import CannotStart, ErrorCode, NegotiationError
from negotiation_platform.store import default_location, masked, open_store
from negotiation_platform.store.records import MatchChange, MatchRecord, SeatRecord, StoreUnavailable, WrongOwner

if TYPE_CHECKING:
    from negotiation_platform.arena.arena import Arena
    from negotiation_platform.registry import Registry
    from negotiation_platform.store.sql import SqlStore

LEASE_SECONDS = 30.0
"""How long a match stays its owner's after the owner's last sign of life."""
log = logging.getLogger(__name__)
T = TypeVar("T")


class Change(TypedDict, total=False):
    """The fields of one call's `MatchChange`, as the arena's writes name them."""

    events: list[Event]
    status: str | None
    round: int | None
    result: dict[str, Any] | None
    seated: SeatRecord | None
    unseated: str | None
    left: str | None
    new_token_hash: tuple[str, str] | None
    context_hash: tuple[str, str] | None


class Persistence:
    def __init__(self, store: SqlStore, owner: str, lease_seconds: float = LEASE_SECONDS) -> None:
        self.store = store
        self.owner = owner
        self.lease_seconds = lease_seconds
        self.failures = 0
        """Store calls that failed (unreachable, refused) since this process began: for `/metrics`."""

    def write(self, match_id: str, **change: Unpack[Change]) -> None:
        """Write one call's change (fields of `MatchChange`) under this owner's lease; blocking."""
        self._guarded(lambda: self.store.apply(match_id, self.owner, MatchChange(**change), self.lease_seconds))

    def create(self, record: MatchRecord) -> None:
        self._guarded(lambda: self.store.create(record, self.owner, self.lease_seconds))

    def claim(self, match_id: str) -> None:
        """Take the match's lease, or refuse with `wrong_owner` naming the process that holds it."""
        holder = self._guarded(lambda: self.store.claim(match_id, self.owner, self.lease_seconds))
        if holder is not None:
            raise wrong_owner(match_id, holder)

    async def read(self, fn: Callable[[], T]) -> T:
        """Run a reading call of the store off the loop."""
        return await asyncio.to_thread(self._guarded, fn)

    def _guarded(self, fn: Callable[[], T]) -> T:
        """`guarded`, counting the store's failures."""
        try:
            return guarded(fn)
        except NegotiationError as refusal:
            if refusal.code is ErrorCode.STORE_UNAVAILABLE:
                self.failures += 1
            raise

    async def keep_leases(self, clock: Callable[[], float], held: Callable[[set[str], float], None]) -> None:
        """Renew this owner's leases well before they expire, until cancelled; after each renewal,
        `held(matches still ours, clock() when the renewal began)` lets the arena forget the others."""
        while True:
            await asyncio.sleep(self.lease_seconds / 3)
            began = clock()
            try:
                ours = await asyncio.to_thread(self.store.renew, self.owner, self.lease_seconds)
            except StoreUnavailable as failure:
                self.failures += 1
                log.warning("could not renew match leases: %s", failure)
                continue
            held(ours, began)


class ReadOnlyPersistence(Persistence):
    """For a process that only shows matches (`serve view`): it never takes a lease nor writes, so
    every unfinished match is followed from the store as the process that holds it plays it."""

    def write(self, match_id: str, **change: Unpack[Change]) -> None:
        raise NegotiationError(ErrorCode.FORBIDDEN, "This process only reads the match store.")

    def create(self, record: MatchRecord) -> None:
        raise NegotiationError(ErrorCode.FORBIDDEN, "This process only reads the match store.")

    def claim(self, match_id: str) -> None:
        raise wrong_owner(match_id, "the arena process that plays it")


def guarded(fn: Callable[[], T]) -> T:
    """Run a store call; its failures become the arena's structured refusals."""
    try:
        return fn()
    except WrongOwner as lost:
        raise wrong_owner(lost.match_id, lost.owner) from None
    except StoreUnavailable as failure:
        log.error("store failure: %s", failure)
        raise NegotiationError(
            ErrorCode.STORE_UNAVAILABLE, "The match store could not be reached or refused the write; try again."
        ) from None


def wrong_owner(match_id: str, owner: str | None) -> NegotiationError:
    return NegotiationError(
        ErrorCode.WRONG_OWNER,
        f"Match {match_id} is played on another arena process ({owner}); send calls that change it there. "
        "Reading it (get_turn_state, get_result, list_matches) works on any process.",
        owner=owner,
    )


def attach_store(
    arena: Arena, location: str | None, instance: str, lease_seconds: float = LEASE_SECONDS, *, read_only: bool = False
) -> Persistence | None:
    """Keep `arena`'s matches in the store at `location` (default: `default_location()`), as `instance`
    (`read_only`: only show what other processes keep there); a store it must not read, or cannot
    reach, is `CannotStart` with the reason."""
    from negotiation_platform.store.schema import SchemaMismatch

    where = location or default_location()
    try:
        store = open_store(where)
    except (SchemaMismatch, StoreUnavailable, ValueError) as refused:
        raise CannotStart(masked(f"cannot use --store {where}: {refused}")) from None
    if store is None:
        return None
    kind = ReadOnlyPersistence if read_only else Persistence
    persistence = kind(store, instance, lease_seconds)
    arena.use_store(persistence)
    return persistence


def default_instance(*parts: object) -> str:
    return ":".join([socket.gethostname(), *map(str, parts)])


def match_record(live: LiveMatch) -> MatchRecord:
    """What the store holds of a live match (its row and seats), as of now."""
    match = live.match
    return MatchRecord(
        match_id=live.match_id,
        game_id=live.entry.game_id,
        config=live.config,
        seed=live.seed,
        seats_total=live.seats_total,
        status=live.status,
        created_at=live.created_at,
        creator=live.creator,
        seats=tuple(seat_record(s, s.agent_id in live.left) for s in live.seats),
        round=match.round if match is not None else 0,
        event_count=len(match.events) if match is not None else 0,
        result=result_fields(match) if match is not None and match.result is not None else None,
    )


async def rebuild(
    record: MatchRecord, events: list[Event], registry: Registry, clock: Callable[[], float]
) -> LiveMatch:
    """A match as stored: seats from its record, state by replaying its `events` (read with the record, in
    one snapshot: see `SqlStore.snapshot`) into a fresh `Match`."""
    entry = registry.game(record.game_id)
    live = LiveMatch(
        match_id=record.match_id,
        entry=entry,
        config=record.config,
        seed=record.seed,
        seats_total=record.seats_total,
        creator=record.creator,
        created_at=record.created_at,
        seats=[Seat(s.agent_id, s.token_hash, s.name, s.house, s.caller, s.context_hash) for s in record.seats],
        left={s.agent_id for s in record.seats if s.left},
        seated_at=clock(),
        event_count=record.event_count,
        stored_status=record.status,
    )
    if len(live.seats) == live.seats_total:
        live.match = await live.replayed(events, clock)
        if len(live.match.events) != record.event_count:  # one snapshot: not a write seen halfway
            log.error(
                "match %s: replaying its %d stored events gave %d (store records %d)",
                record.match_id,
                len(events),
                len(live.match.events),
                record.event_count,
            )
            raise NegotiationError(
                ErrorCode.STORE_UNAVAILABLE,
                f"Match {record.match_id} could not be rebuilt from the store: its stored events replay "
                "differently here (this server's game differs from the one that played them).",
            )
        if live.match.finished:
            live.finished_at = clock()
    return live


def seat_record(seat: Seat, left: bool = False) -> SeatRecord:
    """What the store keeps of `seat`."""
    return SeatRecord(seat.agent_id, seat.name, seat.token_hash, seat.house, left, seat.caller, seat.context_hash)
