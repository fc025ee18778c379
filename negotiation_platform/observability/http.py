"""`/healthz`, `/metrics` and the browser pages' request records, beside any HTTP app of the project.

* `/healthz` answers 200 while the process serves (for a container's health check and a load
  balancer); it needs no token and says nothing about matches.
* `/metrics` is the Prometheus text exposition (see `metrics`); where the server has an auth token,
  it needs the same `Authorization: Bearer` header as the API.
* Every request but `/healthz` passes the server's Host/Origin check (`network.hosts`), `/metrics` and
  the pages included, token or not. Requests refused before any operation read them are recorded
  too: operation `host` (a foreign Host or Origin) and `auth` (401, no or a wrong bearer token),
  with the refusal's code; the token itself is never looked at here.
* Requests under `/view` and `/play` do not pass the operations' dispatcher: each is recorded here
  as operation `view` or `play`, with the match from its path and, for `/play`, the seat found from
  its `X-Seat-Token` header. The code is `ok`, or the code of the structured refusal it answered.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, MutableMapping
from typing import TYPE_CHECKING, Any

from negotiation_platform.errors import ErrorCode
from negotiation_platform.network.exposure import Asgi, Receive, Scope, Send, require_bearer
from negotiation_platform.network.hosts import guard_hosts
from negotiation_platform.observability.metrics import CODES, CONTENT_TYPE, METRICS, OK, OTHER
from negotiation_platform.observability.requests import held_statuses, known_match, record, seat_of, store_failures

if TYPE_CHECKING:
    from negotiation_platform.arena.arena import Arena

HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"
PAGES = ("view", "play")
"""The first path segments recorded here, each its own `operation` label."""
HOST_CHECK = "host"
AUTH_CHECK = "auth"
"""The `operation` labels of requests refused by the Host/Origin check and by the bearer-token check."""
UNAUTHORIZED = 401
SEAT_HEADER = b"x-seat-token"
MAX_REFUSAL_BYTES = 16 * 1024
"""A refusal's body is read for its code only up to this size (refusals are small JSON objects)."""


def with_operator_routes(app: Asgi, arena: Arena | None, token: str | None, hosts: Iterable[str]) -> Asgi:
    """`app` with `/healthz` and `/metrics` (the latter behind `token` if given), recording page requests
    and 401 refusals, and everything but `/healthz` answered only for `hosts` (see `network.hosts`)."""
    exposition = require_bearer(_metrics(arena), token) if token else _metrics(arena)

    async def dispatch(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if (parts := path.split("/"))[1:2] and parts[1] in PAGES and parts[2:3] != ["static"]:
            await _recorded(app, arena, parts[1], scope, receive, send)
        else:
            await _unauthorized_recorded(exposition if path == METRICS_PATH else app, scope, receive, send)

    guarded = guard_hosts(dispatch, hosts, lambda: _refused_at_edge(HOST_CHECK, time.perf_counter()))

    async def served(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") == HEALTH_PATH:
            await _answer(send, 200, "application/json", b'{"status": "ok"}')
        else:
            await guarded(scope, receive, send)

    return served


async def _unauthorized_recorded(app: Asgi, scope: Scope, receive: Receive, send: Send) -> None:
    """`app`, recording the request as `auth` if it was refused with 401 (only the bearer check answers 401)."""
    started = time.perf_counter()
    status = 0

    async def watched(message: MutableMapping[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        await send(message)

    try:
        await app(scope, receive, watched)
    finally:
        if status == UNAUTHORIZED:
            _refused_at_edge(AUTH_CHECK, started)


def _refused_at_edge(check: str, started: float) -> None:
    record(check, ErrorCode.FORBIDDEN.value, started, lambda: (None, None))


def _metrics(arena: Arena | None) -> Asgi:
    async def exposition(scope: Scope, receive: Receive, send: Send) -> None:
        text = METRICS.exposition(held_statuses(arena), store_failures(arena))
        await _answer(send, 200, CONTENT_TYPE, text.encode())

    return exposition


async def _recorded(app: Asgi, arena: Arena | None, page: str, scope: Scope, receive: Receive, send: Send) -> None:
    started = time.perf_counter()
    status, refusal = 0, b""

    async def watched(message: MutableMapping[str, Any]) -> None:
        nonlocal status, refusal
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body" and status >= 400 and len(refusal) < MAX_REFUSAL_BYTES:
            refusal += message.get("body", b"")
        await send(message)

    code = OTHER
    try:
        await app(scope, receive, watched)
        code = OK if 0 < status < 400 else _code_of(refusal)
    finally:
        label = AUTH_CHECK if status == UNAUTHORIZED else page  # `serve view --auth-token-file` guards its pages
        record(label, code, started, lambda: _match_and_seat(arena, page, scope, code))


def _match_and_seat(arena: Arena | None, page: str, scope: Scope, code: str) -> tuple[str | None, str | None]:
    """The match a page request names in its path if the arena knows it, and for /play the seat its
    token header names."""
    named = _named_match(scope.get("path", "").split("/")[2:])
    match_id = known_match(arena, named, code) if arena is not None and named else None
    if page != "play" or arena is None or match_id is None:
        return match_id, None
    credential = dict(scope.get("headers") or []).get(SEAT_HEADER, b"").decode("latin-1")
    return match_id, seat_of(arena, match_id, credential)


def _named_match(parts: list[str]) -> str | None:
    """The match id in a page path after its prefix: api/matches/ID/…, match/ID (viewer), ID (play)."""
    if parts[:2] == ["api", "matches"] and len(parts) > 2:
        return parts[2]
    if parts[:1] == ["match"] and len(parts) > 1:
        return parts[1]
    return parts[0] if len(parts) == 1 and parts[0] not in ("", "api", "match") else None


def _code_of(body: bytes) -> str:
    """The code of a structured refusal (`{"error": {"code": ...}}`), else `other`."""
    try:
        code = json.loads(body)["error"]["code"]
    except (ValueError, TypeError, KeyError):
        return OTHER
    return code if code in CODES else OTHER


async def _answer(send: Send, status: int, content_type: str, body: bytes) -> None:
    head = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})
