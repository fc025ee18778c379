"""Who is calling, and how many matches each caller may hold on a served arena.

A caller is what its transport knows of it (`Caller`): the network address it calls from, and the
session it calls in where the transport has one (an MCP session id in the handshake era of
streamable HTTP, the A2A context id). The address is the coarse part: a client can open sessions
or contexts at will, but not addresses, so every per-caller limit is also bounded per address.
The bearer token of `--auth-token-file` is not part of it: every client shares that token.

What counts (`check_limits`, run by `start_game`):

* **`max_live_matches`**: unfinished matches on this process, whoever holds them.
* **`max_live_per_caller`** and **`max_live_per_address`**: unfinished matches in which the
  caller (or anyone calling from its address) holds a seat it has not left. A house seat (a
  built-in or remote agent the server plays) is nobody's, so a match between a caller and house
  opponents is counted once, against the caller, and a match between two callers against both
  (`leave_game` takes one's count back at once). Seats are counted whoever must act now: a count
  that skipped matches momentarily waiting on house seats would let a burst of `start_game`
  calls pass the limit all at once in a game where the house moves first.
* **`max_waiting_per_caller`**: matches the caller created that wait for another caller to join.
  Seats that `start_game` reserves for house opponents are not waited for: they are being taken
  by the server within the same call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

from negotiation_platform.errors import ErrorCode, NegotiationError

if TYPE_CHECKING:
    from negotiation_platform.arena.live import LiveMatch
    from negotiation_platform.arena.policy import ArenaPolicy


@dataclass(frozen=True)
class Caller:
    """Who calls, as the transport knows it: `address` (e.g. "address:10.0.0.7", "stdio") and, where
    the transport has one, `session` (an MCP session id, an A2A context id)."""

    address: str
    session: str | None = None

    def key(self) -> str:
        """What a match keeps of its creator and seats: a hash of the address, a colon, a hash of the session."""
        return f"{_digest(self.address)}:{_digest(self.session or '')}"


CALLER: ContextVar[Caller | None] = ContextVar("negotiation_arena_caller", default=None)
"""The caller of the operation running now, set by its transport; limits count per caller."""


def address_part(key: str | None) -> str | None:
    """The address part of a caller key (a key stored before sessions counted is an address's whole)."""
    return None if key is None else key.partition(":")[0]


def check_limits(policy: ArenaPolicy, matches: Iterable[LiveMatch], caller: str | None) -> None:
    """Refuse a new match (`limit_reached`, naming the limit) when one of the policy's limits is reached
    by the matches held in this process; `caller` is the key of who asks (None in-process)."""
    limits = (policy.max_live_matches, policy.max_live_per_caller, policy.max_live_per_address)
    if limits == (None, None, None) and policy.max_waiting_per_caller is None:
        return  # nothing to count (in process, where finished matches stay: counting would be O(matches))
    live = [m for m in matches if m.status != "finished"]
    _refuse_at(policy.max_live_matches, len(live), "max_live_matches", "unfinished matches on this server")
    holders = [_holders(m) for m in live]
    mine = sum(caller in held for held in holders)
    _refuse_at(policy.max_live_per_caller, mine, "max_live_per_caller", "unfinished matches you hold a seat in")
    address = address_part(caller)
    near = sum(address in {address_part(k) for k in held} for held in holders)
    _refuse_at(policy.max_live_per_address, near, "max_live_per_address", "unfinished matches held from your address")
    waiting = sum(  # the creator's own seat counts as taken from the start: it is taken in the same call
        m.match is None and m.creator == caller and max(len(m.seats), 1) + m.reserved < m.seats_total for m in live
    )
    _refuse_at(policy.max_waiting_per_caller, waiting, "max_waiting_per_caller", "matches waiting for players")


def _holders(live: LiveMatch) -> set[str | None]:
    """The callers holding a seat of `live` they have not left; its creator while it has no seat yet."""
    if not live.seats:
        return {live.creator}
    return {s.caller for s in live.seats if s.house is None and s.agent_id not in live.left}


def _refuse_at(limit: int | None, count: int, name: str, what: str) -> None:
    if limit is not None and count >= limit:
        raise NegotiationError(
            ErrorCode.LIMIT_REACHED,
            f"There are {count} {what}, the most allowed ({name} = {limit}); "
            "finish or leave one (leave_game) first, or try later.",
            limit=name,
        )


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]
