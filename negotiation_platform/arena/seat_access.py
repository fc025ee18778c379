"""Seat access: which seat a credential (a seat's token, or an A2A context id bound to it) holds.

The one place credentials are compared: only their hashes are kept, and each is compared in
constant time (`hmac.compare_digest`), so how long a refusal takes tells nothing of a token.
"""

from __future__ import annotations

import hmac

from negotiation_platform.arena.live import LiveMatch, Seat
from negotiation_platform.arena.match_table import MatchTable
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.store.records import token_hash


def holder(live: LiveMatch, credential: object) -> Seat | None:
    """The seat of `live` that `credential` holds (its token, or its bound context id), else None."""
    if not isinstance(credential, str):
        return None
    digest = token_hash(credential)
    for seat in live.seats:
        if hmac.compare_digest(seat.token_hash, digest) or hmac.compare_digest(seat.context_hash or "", digest):
            return seat
    return None


def playing(live: LiveMatch, seat: Seat) -> tuple[LiveMatch, Seat]:
    """The seat, if it may change its match now: the match has started and the seat has not left it."""
    if live.match is None:
        raise NegotiationError(
            ErrorCode.NOT_STARTED,
            f"The match starts when all {live.seats_total} seats are taken ({len(live.seats)} so far).",
        )
    if seat.agent_id in live.left:
        raise NegotiationError(ErrorCode.FORBIDDEN, "You left this match; your turns are played by default.")
    return live, seat


class SeatAccess:
    """Credentials to seats, over the matches of one table."""

    def __init__(self, table: MatchTable) -> None:
        self._table = table

    async def seat(self, match_id: str, token: str, *, write: bool = False) -> tuple[LiveMatch, Seat]:
        """The match and the seat `token` holds in it; `forbidden` for any other token."""
        live = await self._table.find(match_id, write=write)
        seat = holder(live, token)
        if seat is None:
            raise NegotiationError(ErrorCode.FORBIDDEN, "This token does not hold a seat in this match.")
        return live, seat

    async def running(self, match_id: str, token: str) -> tuple[LiveMatch, Seat]:
        """The seat, for a change: in a match this process owns, started, and not left."""
        return playing(*await self.seat(match_id, token, write=True))

    def held_seat(self, match_id: str | None, credential: object) -> Seat | None:
        """The seat `credential` holds in a match this process holds (no store read), else None."""
        live = self._table.get(match_id) if match_id is not None else None
        return holder(live, credential) if live is not None else None
