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
from collections import Counter
from collections.abc import Callable, MutableMapping
from typing import Any

from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from negotiation_mcp.limits import SessionLimits
from negotiation_platform.arena.exposure import Asgi, Receive, Scope, Send, refuse
from negotiation_platform.errors import ErrorCode, NegotiationError

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


def manager_book(manager: StreamableHTTPSessionManager, per_caller: int) -> SessionBook:
    """A book over the sessions `manager` keeps. The SDK has no public list of open sessions; its
    `_server_instances` is the one it consults itself (a session leaves it however it ends)."""
    return SessionBook(per_caller, lambda session_id: session_id in manager._server_instances)


def per_caller_sessions(app: Asgi, manager: StreamableHTTPSessionManager, limits: SessionLimits) -> Asgi:
    """`app` (the MCP endpoint of `manager`), refusing a request that would open a session past its
    caller's share."""
    book = manager_book(manager, limits.per_caller)
    refusal = NegotiationError(
        ErrorCode.LIMIT_REACHED,
        f"At most {limits.per_caller} open MCP sessions per caller: end one (DELETE) or let one expire "
        f"({limits.idle_timeout:g} seconds without a request).",
        limit="max_sessions_per_caller",
        max_sessions_per_caller=limits.per_caller,
        session_idle_timeout_seconds=limits.idle_timeout,
    )

    async def bounded(scope: Scope, receive: Receive, send: Send) -> None:
        if not _opens_session(scope):
            await app(scope, receive, send)
            return
        client = scope.get("client")
        caller = str(client[0]) if client else "unknown"
        if not book.reserve(caller):
            await refuse(send, 429, refusal, [(b"retry-after", str(math.ceil(limits.idle_timeout)).encode())])
            return
        opened: str | None = None

        async def noted(message: MutableMapping[str, Any]) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and message["status"] < 400:
                given = dict(message.get("headers") or []).get(_SESSION_ID)
                opened = given.decode() if given else None
            await send(message)

        try:
            await app(scope, receive, noted)
        finally:
            book.settle(caller, opened)

    return bounded


def _opens_session(scope: Scope) -> bool:
    """Whether the session manager would open a session for this request: a POST without a session id
    in the handshake era (no protocol version header, or a handshake one; later versions have no
    sessions)."""
    if scope["type"] != "http" or scope.get("method") != "POST":
        return False
    headers = dict(scope.get("headers") or [])
    version = headers.get(_VERSION)
    return _SESSION_ID not in headers and (version is None or version.decode("latin-1") in HANDSHAKE_PROTOCOL_VERSIONS)
