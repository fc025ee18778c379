"""uvicorn's h11 protocol with the bounds of `ConnectionLimits`, for every HTTP server here.

A client that opens connections and sends nothing, or half a request, or a body one byte at a time,
would otherwise hold a descriptor each for as long as it likes, until the process has none left for
anybody else. Here each connection is timed only while the server waits for the client: for a
request's headers (from when it opens, or from the first byte of a kept-alive connection's next
request, which may first stay silent for `idle_timeout`) and for a request's body (a grace
period plus one second per `MIN_BODY_RATE` bytes). While the server answers (a long poll, an SSE
stream) nothing is timed. Connections are counted per peer address and in all; one over either
bound gets a one-line refusal and is closed at once, before anything of it is read.

The h11 implementation is pinned (not httptools): it also bounds a request's headers in size.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from http import HTTPStatus
from typing import Any, ClassVar

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.network.connections import MIN_BODY_RATE, ConnectionLimits

PAUSED_RECHECK = 1.0
"""Seconds between looks at a body whose reading the server itself paused (the app is not reading)."""


def uvicorn_options(limits: ConnectionLimits) -> dict[str, Any]:
    """uvicorn `Config` options that apply `limits` to one server's connections."""
    return {"http": guarded_protocol(limits), "timeout_keep_alive": limits.idle_timeout}


def guarded_protocol(chosen: ConnectionLimits) -> type[GuardedH11Protocol]:
    """The protocol class for one server: `chosen` limits, and its own book of open connections."""

    class ServerGuard(GuardedH11Protocol):
        limits = chosen
        book = ConnectionBook(chosen)

    return ServerGuard


class ConnectionBook:
    """A server's open connections, in all and per peer address."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.total = limits.total
        self.per_address = limits.per_address
        self.by_address: Counter[str] = Counter()

    def admit(self, address: str) -> tuple[int, NegotiationError] | None:
        """Count a new connection from `address`; or the status and refusal it gets instead."""
        if self.by_address[address] >= self.per_address:
            return 429, NegotiationError(
                ErrorCode.LIMIT_REACHED,
                f"This server takes at most {self.per_address} connections from one address.",
                limit="max_connections_per_address",
                max_connections_per_address=self.per_address,
            )
        if self.by_address.total() >= self.total:
            return 503, NegotiationError(
                ErrorCode.LIMIT_REACHED,
                f"This server has its {self.total} connections open; try again shortly.",
                limit="max_connections",
                max_connections=self.total,
            )
        self.by_address[address] += 1
        return None

    def release(self, address: str) -> None:
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]


def raw_answer(status: int, refusal: NegotiationError) -> bytes:
    """A whole HTTP/1.1 answer carrying `refusal`, after which the connection closes."""
    body = json.dumps(refusal.to_dict()).encode()
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, timed while it reads from the client and counted per address."""

    limits: ClassVar[ConnectionLimits]
    book: ClassVar[ConnectionBook]

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.address: str | None = None
        """The peer's address once admitted (None: refused, or gone)."""
        self.timer: asyncio.TimerHandle | None = None
        self.waiting_since = 0.0
        self.heard = False
        """Whether part of a request came since the server began waiting for one."""
        self.kept_alive = False
        """Whether the connection waits after an answer (idle) rather than since it opened."""
        self.body_cycle: object = None
        self.body_since = 0.0
        self.body_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else ""
        refused = self.book.admit(address)
        if refused is not None:
            transport.write(raw_answer(*refused))
            transport.close()
            return
        self.address = address
        self.begin_waiting(kept_alive=False)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.address is not None:
            self.book.release(self.address)
            self.address = None
        self.stop_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.waiting() and self.kept_alive and not self.heard:
            self.waiting_since = self.loop.time()  # the idle wait is over: the headers' clock starts
            self.heard = True
        super().data_received(data)
        self.note_request()
        if self.waiting():
            self.heard = True
        else:
            self.body_bytes += len(data)
        self.retime()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self.begin_waiting(kept_alive=True)

    def waiting(self) -> bool:
        """Whether no request is being answered: the server waits for the next one's headers."""
        return self.cycle is None or self.cycle.response_complete

    def note_request(self) -> None:
        """Start the body clock of a request whose headers just came (by data or a pipelined one)."""
        if not self.waiting() and self.cycle is not self.body_cycle:
            self.body_cycle = self.cycle
            self.body_since = self.loop.time()
            self.body_bytes = 0

    def begin_waiting(self, kept_alive: bool) -> None:
        self.waiting_since = self.loop.time()
        self.kept_alive = kept_alive
        self.heard = False
        self.retime()

    def deadline(self) -> float | None:
        """When the wait for the client ends (None: the server is answering, nothing is timed)."""
        if self.waiting():
            idle = self.kept_alive and not self.heard
            return self.waiting_since + (self.limits.idle_timeout if idle else self.limits.header_timeout)
        if self.conn.their_state is h11.SEND_BODY:
            return self.body_since + self.limits.body_timeout + self.body_bytes / MIN_BODY_RATE
        return None

    def retime(self) -> None:
        """The timer set for the current deadline (one timer: headers and body are never read at once)."""
        self.note_request()
        deadline = self.deadline()
        if deadline is None or self.transport.is_closing():
            self.stop_timer()
        elif self.timer is None or self.timer.when() > deadline:
            self.stop_timer()
            self.timer = self.loop.call_at(deadline, self.check)

    def stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def check(self) -> None:
        self.timer = None
        deadline = self.deadline()
        if deadline is None or self.transport.is_closing():
            return
        now = self.loop.time()
        if now < deadline:
            self.timer = self.loop.call_at(deadline, self.check)
        elif self.flow.read_paused and not self.waiting():
            self.timer = self.loop.call_at(now + PAUSED_RECHECK, self.check)
        else:
            self.expire()

    def expire(self) -> None:
        """Close the connection; with a 408 when part of a request came and nothing was answered yet."""
        answering = not self.waiting()
        if (self.heard or answering) and not (answering and self.cycle.response_started):
            what = "request body" if answering else "request headers"
            limit = "body_timeout" if answering else "header_timeout"
            refusal = NegotiationError(ErrorCode.LIMIT_REACHED, f"The {what} did not arrive in time.", limit=limit)
            self.transport.write(raw_answer(408, refusal))
        if answering:
            self.cycle.disconnected = True  # the app reads a client that went away; its answer is dropped
            self.cycle.message_event.set()
        self.transport.close()
