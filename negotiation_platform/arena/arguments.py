"""Plain values of a caller in this process that meet the arena outside a request: a `LocalSeat`'s moves
and reads, and the host's reads (`Arena.spectate`, `Arena.seat_for`). A request's values are checked when
it is built (`negotiation_platform.arena.requests`); these are checked here, once, where they come in."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

from pydantic import JsonValue

from negotiation_platform.arena.requests import MAX_PAGE, MatchListRequest, payload_size
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.store.records import MatchQuery
from negotiation_platform.wire.boundary import MAX_TEXT_CHARS
from negotiation_platform.wire.strict_json import json_problem, plain_json_chars
from negotiation_platform.wire.unicode_text import unicode_text

MAX_ARGUMENT_CHARS = MAX_TEXT_CHARS
"""Any single text or JSON argument beyond this is refused before it reaches a match (also in process)."""
__all__ = ["MAX_ARGUMENT_CHARS", "MAX_PAGE"]


def text_argument(name: str, value: object) -> str:
    """`value`, a string of at most `MAX_ARGUMENT_CHARS` characters that UTF-8 can carry, or the refusal."""
    if type(value) is str and value.isascii() and len(value) <= MAX_ARGUMENT_CHARS:
        return value  # ASCII is Unicode text: what the checks below conclude, without them
    if not isinstance(value, str):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"`{name}` must be a string.")
    if len(value) > MAX_ARGUMENT_CHARS:
        raise NegotiationError(
            ErrorCode.MESSAGE_TOO_LONG if name == "content" else ErrorCode.INVALID_ARGUMENT,
            f"`{name}` is longer than {MAX_ARGUMENT_CHARS} characters.",
        )
    return unicode_text(name, value)


def action_arguments(action_type: object, payload: object) -> tuple[str, dict[str, JsonValue] | None]:
    """An action's type and payload, checked: a JSON object of plain data within `MAX_ARGUMENT_CHARS`."""
    if payload is not None and not isinstance(payload, dict):
        raise NegotiationError(ErrorCode.INVALID_PAYLOAD, "payload must be a JSON object.")
    chars = plain_json_chars(payload)
    if chars is None and (problem := json_problem(payload)) is not None:
        where, why = problem  # before measuring it: serialising data nested thousands deep would recurse
        field = ".".join(str(p) for p in where) or "(payload)"
        raise NegotiationError(ErrorCode.INVALID_PAYLOAD, f"Invalid payload: {field}: {why}.")
    if payload is not None and (chars is None or chars > MAX_TEXT_CHARS):  # else within bounds as measured
        payload_size(payload)
    return text_argument("action_type", action_type), payload


def message_arguments(content: object, to: object) -> tuple[str, list[str] | None]:
    """A message's text and its recipients (None: public), checked."""
    if to is not None and not (isinstance(to, list) and all(isinstance(r, str) for r in to)):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "`to` must be a list of agent ids.")
    return text_argument("content", content), to


def seat_id_base(name: str | None) -> str:
    """The agent id a seat name gives before repeats are numbered (`""`: none, the arena numbers the seat)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", (name or "").strip())[:32]


def cursor_argument(since: object) -> int:
    """An event cursor: a non-negative integer, 0 for None."""
    if since is None:
        return 0
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "since must be a non-negative integer (a cursor) or null.")
    return since


def wait_argument(wait_seconds: object) -> float:
    """How long to wait: a finite number of seconds, at least 0."""
    if (
        isinstance(wait_seconds, bool)
        or not isinstance(wait_seconds, int | float)
        or not math.isfinite(wait_seconds)
        or wait_seconds < 0
    ):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "wait_seconds must be a finite number >= 0.")
    return float(wait_seconds)


def match_query(request: MatchListRequest) -> MatchQuery:
    """list_matches' filters as the store reads them: the creation time read as ISO 8601."""
    since = request.created()
    return MatchQuery(
        status=request.status,
        game_id=request.game_id,
        since=None if since is None else _instant(since),
        limit=request.limit if request.limit is not None else 100,
        cursor=request.cursor,
    )


def _instant(since: str) -> float:
    """An ISO 8601 date or time (UTC unless it names its offset) as seconds since the epoch."""
    try:
        moment = datetime.fromisoformat(since)
    except ValueError:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, "since must be an ISO 8601 date or time, e.g. 2025-06-01T12:00:00Z."
        ) from None
    return (moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)).timestamp()
