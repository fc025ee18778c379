"""Seat links for people: the play page's URL of a seat, and the seats `start_game` keeps for people.

A link is `{base}/play/{match_id}#token={token}`: the token sits in the fragment, which browsers
never send in a request line or a Referer, so it stays out of server logs; the page sends it in a
header. Only an arena served beside the play page (`ArenaPolicy.play_base_url`) hands out links.
Standard library only: the arena builds links without the web stack.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from negotiation_platform.errors import ErrorCode, NegotiationError

MAX_HUMAN_SEATS = 100
"""The most seats `human_seats` may ask for in any game (each game allows at most its seats less one)."""
HUMAN_NAME = "human"
"""The name (and so the agent id, numbered after the first) of a seat kept for a person."""
PARTICIPANT_NAME = "participant"
"""The name of a study participant's seat (a person's, like `HUMAN_NAME`: no client may take it)."""


def play_link(base_url: str, match_id: str, token: str) -> str:
    """The play page of a seat: the token in the fragment only."""
    return f"{base_url.rstrip('/')}/play/{quote(match_id, safe='')}#token={quote(token, safe='')}"


def seat_link(base_url: str | None, match_id: str, token: str) -> dict[str, Any]:
    """`{"play_url": ...}` on a server that serves the play page, else nothing."""
    return {} if base_url is None else {"play_url": play_link(base_url, match_id, token)}


def human_seat_count(value: int | None, free: int) -> int:
    """`human_seats` (a request's: a whole number from 0, or None) within the seats left (`free`) after the
    caller's and the house's."""
    if value is None:
        return 0
    if value > free:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"human_seats is {value}, but only {max(free, 0)} seat(s) are left besides yours and the opponents'.",
            free=max(free, 0),
        )
    return value
