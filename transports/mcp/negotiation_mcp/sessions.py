"""Streamable-HTTP sessions bounded per caller and in idle time, so one caller cannot lock others out.

Only the handshake era of streamable HTTP (`initialize`, protocol 2025-11-25 and before) has
sessions. The SDK's session manager ends a session idle for `idle_timeout` seconds and refuses
everybody (503) once `max_sessions` are open. In front of it, `per_caller_sessions` counts the
sessions each caller holds and refuses a caller past its share (`per_caller`) with 429 and the
arena's structured error before a session is made, so the others still get theirs.

A caller is the peer's address as uvicorn reports it (behind a reverse proxy on this host, the
X-Forwarded-For that proxy sets), not the bearer token: with `--auth-token-file` every client
shares one token.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Mapping

from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import Message

from negotiation_mcp.limits import SessionLimits
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.network.exposure import Asgi, Receive, Scope, Send, refuse

_SESSION_ID = MCP_SESSION_ID_HEADER.lower().encode()
_VERSION = MCP_PROTOCOL_VERSION_HEADER.lower().encode()


class SessionBook:
    """Which open sessions each caller holds, and how many it is opening right now (counted too, so
    concurrent openings cannot overshoot its share). `is_open` says whether a session still lives."""

    def __init__(self, per_caller: int, is_open: Callable[[str], bool]) -> None:
        self.per_caller = per_caller
        self._is_open = is_open
        self._held: dict[str, set[str]] = {}
        self._opening: Counter[str] = Counter()

    def held(self, caller: str) -> int:
        self._forget_closed()
        return len(self._held.get(caller, ())) + self._opening[caller]

    def reserve(self, caller: str) -> bool:
        """Take a place for a session `caller` opens, or False when it holds its share already."""
        if self.held(caller) >= self.per_caller:
            return False
        self._opening[caller] += 1
        return True

    def settle(self, caller: str, session_id: str | None) -> None:
        """The opening ended: with the id of the session it made, or None when it made none."""
        self._opening[caller] -= 1
        if self._opening[caller] <= 0:
            del self._opening[caller]
        if session_id is not None and self._is_open(session_id):
            self._held.setdefault(caller, set()).add(session_id)

    def _forget_closed(self) -> None:
        """Drop sessions that ended (deleted, idle, failed), for every caller: the book never grows past
        the sessions open."""
        for caller in list(self._held):
            self._held[caller] = {s for s in self._held[caller] if self._is_open(s)}
            if not self._held[caller]:
                del self._held[caller]


class SessionClock:
    """Which handshake-era sessions the SDK's session manager still keeps, as seen from in front of it
    (the SDK lists them nowhere public): a session lives from the answer that opened it while a request
    on it is in flight (an open GET stream included), and until `idle_timeout` seconds after the last
    one ended, as the SDK times it; a DELETE that succeeded or a 404 for its id ends it at once."""

    def __init__(self, idle_timeout: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_timeout = idle_timeout
        self._clock = clock
        self._in_flight: Counter[str] = Counter()
        self._idle_since: dict[str, float] = {}

    def is_open(self, session_id: str) -> bool:
        if self._in_flight[session_id] > 0:
            return True
        since = self._idle_since.get(session_id)
        if since is not None and self._clock() - since < self.idle_timeout:
            return True
        self._forget(session_id)
        return False

    def opened(self, session_id: str) -> None:
        """The answer that opened `session_id` went out: it is idle from now."""
        self._idle_since[session_id] = self._clock()

    def begin(self, session_id: str) -> None:
        """A request on `session_id` reached the session manager."""
        if self.is_open(session_id):
            self._in_flight[session_id] += 1

    def end(self, session_id: str, method: str, status: int | None) -> None:
        """A request on `session_id` was answered with `status` (None: it was not answered)."""
        if status == 404 or (method == "DELETE" and status is not None and status < 400):
            self._forget(session_id)
        elif self._in_flight[session_id] > 0:  # else not a session this clock follows
            self._in_flight[session_id] -= 1
            if self._in_flight[session_id] == 0:
                del self._in_flight[session_id]
                self._idle_since[session_id] = self._clock()

    def _forget(self, session_id: str) -> None:
        self._in_flight.pop(session_id, None)
        self._idle_since.pop(session_id, None)


def per_caller_sessions(app: Asgi, limits: SessionLimits) -> Asgi:
    """`app` (the MCP endpoint of the SDK's session manager, run with `limits`), refusing a request that
    would open a session past its caller's share."""
    sessions = SessionClock(limits.idle_timeout)
    book = SessionBook(limits.per_caller, sessions.is_open)
    refusal = NegotiationError(
        ErrorCode.LIMIT_REACHED,
        f"At most {limits.per_caller} open MCP sessions per caller: end one (DELETE) or let one expire "
        f"({limits.idle_timeout:g} seconds without a request).",
        limit="max_sessions_per_caller",
        max_sessions_per_caller=limits.per_caller,
        session_idle_timeout_seconds=limits.idle_timeout,
    )

    async def bounded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        given = headers.get(_SESSION_ID)
        session = given.decode("latin-1") if given else None
        caller = None
        if session is not None:
            sessions.begin(session)
        elif _opens_session(scope["method"], headers):
            client = scope.get("client")
            caller = str(client[0]) if client else "unknown"
            if not book.reserve(caller):
                await refuse(send, 429, refusal, [(b"retry-after", str(math.ceil(limits.idle_timeout)).encode())])
                return
        status: int | None = None
        made: str | None = None

        async def noted(message: Message) -> None:
            nonlocal status, made
            if message["type"] == "http.response.start":
                status = message["status"]
                opened = dict(message.get("headers") or []).get(_SESSION_ID)
                made = opened.decode("latin-1") if opened and status is not None and status < 400 else None
            await send(message)

        try:
            await app(scope, receive, noted)
        finally:
            if session is not None:
                sessions.end(session, scope["method"], status)
            elif caller is not None:
                if made is not None:
                    sessions.opened(made)
                book.settle(caller, made)

    return bounded


def _opens_session(method: str, headers: Mapping[bytes, bytes]) -> bool:
    """Whether the session manager would open a session for this request (which carries no session id):
    a POST in the handshake era (no protocol version header, or a handshake one; later versions have no
    sessions)."""
    version = headers.get(_VERSION)
    return method == "POST" and (version is None or version.decode("latin-1") in HANDSHAKE_PROTOCOL_VERSIONS)
