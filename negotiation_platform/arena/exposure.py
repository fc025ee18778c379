"""Putting an arena on the network, the same way for every HTTP transport.

* The listening socket is bound before anything is printed, so a taken or invalid port is one
  clear error line, and the printed URL is one that answers.
* `--auth-token-file PATH` (or `NEGOTIATION_AUTH_TOKEN`) makes every HTTP request carry
  `Authorization: Bearer TOKEN`; others get a structured 401. Without a token the server binds
  to 127.0.0.1 by default, and says so on stderr when told to bind elsewhere.
* Library loggers that print a full traceback for a malformed request are cut to one line.
* `with_lifespan` runs the arena's start (resuming stored matches) and stop (giving up its leases)
  inside the server's lifespan, on the loop that serves.

Standard library only (plain ASGI), so transports share it without the core depending on a web stack.
"""

from __future__ import annotations

import argparse
import hmac
import ipaddress
import json
import logging
import os
import socket
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from negotiation_platform.arena.arena import Arena

TOKEN_ENV = "NEGOTIATION_AUTH_TOKEN"
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]


def add_exposure_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--auth-token-file",
        default=None,
        metavar="PATH",
        help=f"HTTP: require 'Authorization: Bearer <the file's content>' (or set {TOKEN_ENV})",
    )


def add_view_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-view",
        dest="view",
        action="store_false",
        help="HTTP: do not serve the match viewer at /view (it shows public match data to anyone)",
    )


def auth_token(path: str | None) -> str | None:
    """The bearer token from `path` (stripped), else from the environment, else None."""
    if path is not None:
        try:
            token = Path(path).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise SystemExit(f"cannot read --auth-token-file {path}: {exc.strerror or exc}") from None
        if not token:
            raise SystemExit(f"--auth-token-file {path} is empty")
        return token
    return os.environ.get(TOKEN_ENV, "").strip() or None


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port, or SystemExit with one line saying why not."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
    except (OSError, OverflowError, UnicodeError) as exc:
        raise SystemExit(f"cannot listen on {host}:{port}: {_why(exc)}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except (OSError, OverflowError) as exc:
        sock.close()
        raise SystemExit(f"cannot listen on {host}:{port}: {_why(exc)}") from None
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


def announce(url: str, host: str, token: str | None) -> None:
    """Print where the server listens (after binding), and warn when it is open to a network."""
    print(f"{url}{' (bearer token required)' if token else ''}", file=sys.stderr, flush=True)
    if token is None and not is_loopback(host):
        print(
            f"warning: listening on {host} without an auth token: anyone who can reach it can play "
            "and create matches (use --auth-token-file).",
            file=sys.stderr,
            flush=True,
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
        body = json.dumps(
            {"error": {"code": "forbidden", "message": "This server needs 'Authorization: Bearer <token>'."}}
        ).encode()
        headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return guarded


async def start_arena(arena: Arena) -> None:
    """Resume the stored matches this process may play, and say so."""
    resumed = await arena.resume()
    if resumed:
        print(f"resumed {resumed} unfinished match(es) from the store", file=sys.stderr, flush=True)


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
