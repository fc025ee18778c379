"""The arena's argument checks: plain JSON arguments checked before they reach a match."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from negotiation_platform.arena.live import Seat
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.store.records import STATUSES, MatchQuery, SeatRecord
from negotiation_platform.wire.boundary import MAX_TEXT_CHARS
from negotiation_platform.wire.strict_json import json_problem, plain_json_chars
from negotiation_platform.wire.unicode_text import edge_checked, unicode_text

MAX_ARGUMENT_CHARS = MAX_TEXT_CHARS
"""Any single text or JSON argument beyond this is refused before it reaches a match (also in process)."""
MAX_PAGE = 500
"""Most matches one list_matches call returns; `next_cursor` fetches the next page."""


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"`{name}` must be a string.")
    if len(value) > MAX_ARGUMENT_CHARS:
        raise NegotiationError(
            ErrorCode.MESSAGE_TOO_LONG if name == "content" else ErrorCode.INVALID_ARGUMENT,
            f"`{name}` is longer than {MAX_ARGUMENT_CHARS} characters.",
        )
    return unicode_text(name, value)


def action_arguments(action_type: Any, payload: Any) -> tuple[str, dict[str, Any] | None]:
    """An action's type and payload, checked: a JSON object of plain data within `MAX_ARGUMENT_CHARS`."""
    if payload is not None and not isinstance(payload, dict):
        raise NegotiationError(ErrorCode.INVALID_PAYLOAD, "payload must be a JSON object.")
    chars = plain_json_chars(payload)  # the usual payload: plain JSON as it stands, and short
    if chars is None or chars > MAX_ARGUMENT_CHARS:
        problem = None if edge_checked(payload) else json_problem(payload)
        if problem is not None:  # before measuring it: serialising data nested thousands deep would recurse
            where, why = problem
            field = ".".join(str(p) for p in where) or "(payload)"
            raise NegotiationError(ErrorCode.INVALID_PAYLOAD, f"Invalid payload: {field}: {why}.")
        if payload is not None and len(json.dumps(payload, default=str)) > MAX_ARGUMENT_CHARS:
            raise NegotiationError(
                ErrorCode.INVALID_PAYLOAD, f"payload is larger than {MAX_ARGUMENT_CHARS} characters."
            )
    return _text("action_type", action_type), payload


def message_arguments(content: Any, to: list[Any] | None) -> tuple[str, list[str] | None]:
    """A message's text and its recipients (None: public), checked."""
    if to is not None and not all(isinstance(r, str) for r in to):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "`to` must be a list of agent ids.")
    return _text("content", content), to


def _name(name: Any) -> None:
    if name is not None and not isinstance(name, str):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "name must be a string or null.")
    if isinstance(name, str):
        _text("name", name)


def seat_id_base(name: str | None) -> str:
    """The agent id a seat name gives before repeats are numbered (`""`: none, the arena numbers the seat)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", (name or "").strip())[:32]


def _cursor(since: Any) -> int:
    if since is None:
        return 0
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "since must be a non-negative integer (a cursor) or null.")
    return since


def _unknown(match_id: Any) -> NegotiationError:
    return NegotiationError(ErrorCode.UNKNOWN_MATCH, f"No match {match_id!r}; list_matches shows them.")


def _seat_record(seat: Seat, left: bool = False) -> SeatRecord:
    return SeatRecord(seat.agent_id, seat.name, seat.token_hash, seat.house, left, seat.caller, seat.context_hash)


def _match_query(status: Any, game_id: Any, since: Any, limit: Any, cursor: Any) -> MatchQuery:
    """list_matches' filters, checked: a known status, a game id, an ISO 8601 time, a page size, a cursor."""
    if status is not None and status not in STATUSES:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"status must be one of {list(STATUSES)} or null.")
    if game_id is not None:
        _text("game_id", game_id)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"limit must be an integer from 1 to {MAX_PAGE}.")
    if cursor is not None:
        _text("cursor", cursor)
    return MatchQuery(
        status=status,
        game_id=game_id,
        since=None if since is None else _instant(since),
        limit=limit if limit is not None else 100,
        cursor=cursor,
    )


def _instant(since: Any) -> float:
    """An ISO 8601 date or time (UTC unless it names its offset) as seconds since the epoch."""
    try:
        moment = datetime.fromisoformat(_text("since", since))
    except ValueError:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, "since must be an ISO 8601 date or time, e.g. 2025-06-01T12:00:00Z."
        ) from None
    return (moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)).timestamp()
