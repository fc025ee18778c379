"""Putting an arena on the network, the same way for every HTTP transport.

* The listening socket is bound before anything is printed, so a taken or invalid port is one
  clear error line, and the printed URL is one that answers.
* A bearer token (the CLI's `--auth-token-file PATH`, or `NEGOTIATION_AUTH_TOKEN`) makes every HTTP
  request carry `Authorization: Bearer TOKEN`; others get a structured 401. Without a token the
  server binds to 127.0.0.1 by default, and says so on stderr when told to bind elsewhere.
* Library loggers that print a full traceback for a malformed request are cut to one line.
* `with_lifespan` runs the arena's start (resuming stored matches) and stop (giving up its leases)
  inside the server's lifespan, on the loop that serves.
* `run_http` serves every HTTP server of the project (MCP, A2A, the viewer and what sits beside them):
  request bodies over `MAX_REQUEST_BYTES` are refused with 413 as they stream in, answers go out at
  once (TCP_NODELAY, see `bind`), and connections are timed and counted (`ConnectionLimits`).

Plain ASGI and the standard library (uvicorn is imported only by `run_http`), so transports share it
without the core depending on a web stack.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import socket
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from negotiation_platform.errors import CannotStart, ErrorCode, NegotiationError
from negotiation_platform.network.connections import ConnectionLimits

if TYPE_CHECKING:
    import uvicorn

    from negotiation_platform.arena.arena import Arena

TOKEN_ENV = "NEGOTIATION_AUTH_TOKEN"
MAX_REQUEST_BYTES = 4 * 1024 * 1024
"""The largest request body any HTTP server here reads (4 MiB): MCP's limit (the SDK's default, which
the MCP transport passes to it explicitly), on every surface."""
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port, or `CannotStart` with one line saying why not.

    It is made with protocol IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on connections whose
    socket says TCP, and without it Nagle holds the second write of every answer until the client's
    delayed ACK (about 40 ms per HTTP answer)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    except (OSError, OverflowError, UnicodeError) as exc:
        raise CannotStart(f"cannot listen on {host}:{port}: {_why(exc)}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except (OSError, OverflowError) as exc:
        sock.close()
        raise CannotStart(f"cannot listen on {host}:{port}: {_why(exc)}") from None
    return sock


def _why(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


ANNOUNCE_LOGGER = logging.getLogger("negotiation_platform.announce")
"""What a server says on stderr at any log level (where it listens, what it serves): the bare line as
text, one JSON object with `--log-format json` (set up by `observability.logs.configure_logging`)."""


def announce_line(text: str, level: int = logging.INFO) -> None:
    """Say `text` to the operator on stderr (see `ANNOUNCE_LOGGER`); printed as it is where the command
    line did not set up logging (a server started from Python)."""
    if ANNOUNCE_LOGGER.handlers:
        ANNOUNCE_LOGGER.log(level, text)
    else:
        print(text, file=sys.stderr, flush=True)


def announce(url: str, host: str, token: str | None) -> None:
    """Print where the server listens (after binding), and warn when it is open to a network."""
    announce_line(f"{url}{' (bearer token required)' if token else ''}")
    if token is None and not is_loopback(host):
        announce_line(
            f"warning: listening on {host} without an auth token: anyone who can reach it can play "
            "and create matches (use --auth-token-file).",
            logging.WARNING,
        )


def require_bearer(app: Asgi, token: str) -> Asgi:
    """`app` behind a bearer-token check; refusals are the arena's structured error with status 401."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        if hmac.compare_digest(given, expected):
            await app(scope, receive, send)
            return
        refusal = NegotiationError(ErrorCode.FORBIDDEN, "This server needs 'Authorization: Bearer <token>'.")
        await refuse(send, 401, refusal, [(b"www-authenticate", b"Bearer")])

    return guarded


async def refuse(
    send: Send, status: int, refusal: NegotiationError, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """Answer an HTTP request with `status` and the arena's structured error as JSON."""
    body = json.dumps(refusal.to_dict()).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(headers or [])]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


def limit_body(app: Asgi, max_bytes: int = MAX_REQUEST_BYTES) -> Asgi:
    """`app`, refusing a request body over `max_bytes` with 413: at once when Content-Length says so,
    else as soon as the bytes received pass it (nothing is buffered here). The app then reads a
    client that went away, and whatever it still answers is dropped; the connection is closed."""

    too_large = NegotiationError(
        ErrorCode.LIMIT_REACHED,
        f"The request body is larger than {max_bytes} bytes.",
        limit="max_request_bytes",
        max_bytes=max_bytes,
    )

    async def limited(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > max_bytes:
            await refuse(send, 413, too_large, [(b"connection", b"close")])
            return
        received = 0
        answered = refused = False

        async def counted() -> MutableMapping[str, Any]:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > max_bytes:
                    refused = True
                    if not answered:
                        await refuse(send, 413, too_large, [(b"connection", b"close")])
                    return {"type": "http.disconnect"}
            return message

        async def tracked(message: MutableMapping[str, Any]) -> None:
            nonlocal answered
            if refused:
                return
            answered = answered or message["type"] == "http.response.start"
            await send(message)

        await app(scope, counted, tracked)

    return limited


def http_server(
    app: Asgi, log_level: int | str, connections: ConnectionLimits | None = None, **options: Any
) -> uvicorn.Server:
    """A uvicorn server for `app` behind the request body limit and `connections`' bounds (timeouts,
    caps: see `connection_guard`; `options`: more of uvicorn's Config); `run_http` runs one to the end,
    a caller with its own event loop awaits `serve`. uvicorn logs through the process's handler (its
    format, `--log-format`), without access lines: requests are logged by
    `negotiation_platform.observability`, which never writes a query string or a header."""
    import uvicorn

    from negotiation_platform.network.connection_guard import uvicorn_options

    guarded = uvicorn_options(connections or ConnectionLimits())
    options = {"log_config": None, "access_log": False, **guarded, **options}
    return uvicorn.Server(uvicorn.Config(limit_body(app), log_level=log_level, **options))


def run_http(app: Asgi, sock: socket.socket, log_level: int | str, connections: ConnectionLimits | None = None) -> None:
    """Serve `app` on the bound `sock` until stopped, behind the request body limit and `connections`' bounds."""
    http_server(app, log_level, connections).run(sockets=[sock])


async def start_arena(arena: Arena) -> None:
    """Resume the stored matches this process may play, and say so."""
    resumed = await arena.resume()
    if resumed:
        announce_line(f"resumed {resumed} unfinished match(es) from the store")


def with_lifespan(app: Asgi, arena: Arena) -> Asgi:
    """`app`, with the arena started when the server starts (before it accepts requests) and closed when it stops."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await app(scope, receive, send)
            return

        async def hooked() -> MutableMapping[str, Any]:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await start_arena(arena)
            elif message["type"] == "lifespan.shutdown":
                await arena.close()
            return message

        await app(scope, hooked, send)

    return wrapped


class _OneLine(logging.Filter):
    """Drops the traceback of a record (a client's malformed request is not the server's failure)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info:
            reason = record.exc_info[1]
            record.msg = f"{record.getMessage()}: {type(reason).__name__}: {reason}".replace("\n", " ")
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


def one_line_logs(*loggers: str) -> None:
    for name in loggers:
        logging.getLogger(name).addFilter(_OneLine())
