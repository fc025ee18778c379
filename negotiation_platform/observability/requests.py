"""Timing and recording requests: every operation at the dispatcher, and the browser pages' requests.

A record carries the operation, the match (only an id the arena knows: a mistyped argument could be
a token), the seat as its agent id (found by the hash of the token or context id the call carried,
never the credential itself), the outcome code and the duration. It goes to the request log and to
the process's metrics.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar

from pydantic import JsonValue

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.observability.logs import RequestRecord, log_request, logging_requests
from negotiation_platform.observability.metrics import METRICS, OK, OTHER, operation_label

if TYPE_CHECKING:
    from negotiation_platform.arena.arena import Arena

P = ParamSpec("P")
Answer = dict[str, Any]


class HasArena(Protocol):
    @property
    def arena(self) -> Arena: ...


House = TypeVar("House", bound=HasArena)
Dispatcher = Callable[Concatenate[House, str, dict[str, JsonValue], P], Awaitable[Answer]]


def observed_operation(run: Dispatcher[House, P]) -> Dispatcher[House, P]:
    """`run` (the operations' dispatcher), recording each call it answers or refuses."""

    @functools.wraps(run)
    async def observed(
        house: House, name: str, arguments: dict[str, JsonValue], /, *args: P.args, **kw: P.kwargs
    ) -> Answer:
        started = time.perf_counter()
        code, answer = OTHER, None
        try:
            answer = await run(house, name, arguments, *args, **kw)
            code = OK
            return answer
        except NegotiationError as refusal:
            code = refusal.code.value
            raise
        except Exception:
            code = ErrorCode.INTERNAL_ERROR.value
            raise
        finally:
            subject = functools.partial(_subject, house.arena, name, arguments, answer, code)
            record(operation_label(name, code), code, started, subject)

    return observed


def record(operation: str, code: str, started: float, subject: Callable[[], tuple[str | None, str | None]]) -> None:
    """Count one request that began at `started` (`time.perf_counter()`) and log it with its
    `subject()` (match and seat, found only when the line is logged)."""
    seconds = time.perf_counter() - started
    METRICS.observe(operation, code, seconds)
    if logging_requests():
        match_id, seat = subject()
        log_request(RequestRecord(operation, match_id, seat, code, round(seconds * 1000, 1)))


def _subject(
    arena: Arena, name: str, arguments: dict[str, JsonValue], answer: Answer | None, code: str
) -> tuple[str | None, str | None]:
    """The match and the seat an operation was about: from its answer, else from its arguments."""
    given = arguments if isinstance(arguments, dict) else {}
    match_id = answer.get("match_id") if answer else None
    match_id = match_id if isinstance(match_id, str) else known_match(arena, given.get("match_id"), code)
    seat = answer.get("agent_id") if answer and name in ("start_game", "join_game") else None
    return match_id, seat if isinstance(seat, str) else seat_of(arena, match_id, given.get("token"))


def known_match(arena: Arena, match_id: object, code: str) -> str | None:
    """`match_id` if it names a match: the call was answered, or this process holds it."""
    if not isinstance(match_id, str):
        return None
    return match_id if code == OK or arena.held(match_id) is not None else None


def seat_of(arena: Arena, match_id: str | None, credential: object) -> str | None:
    """The agent id of the seat whose token (or A2A context id) is `credential`, in a match held here."""
    return arena.seat_of(match_id, credential)


def held_statuses(arena: Arena | None) -> Iterator[str]:
    """The status of each match `arena` plays in this process (not the read-only copies it follows)."""
    if arena is not None:
        yield from (live.status for live in arena.held_matches())


def store_failures(arena: Arena | None) -> int:
    """How many of `arena`'s store calls failed since it began (0 without a store)."""
    persist = arena.persistence if arena is not None else None
    return persist.failures if persist is not None else 0
