"""MCP over stdio where every request line is answered, including a line the SDK cannot read.

The SDK's stdio reader parses each line with pydantic, whose JSON parser refuses text that is not
Unicode (a lone surrogate escape such as "\\ud800"), and validates it as a JSON-RPC message. A line
that fails is handed to the session as an exception, which the session only logs (at debug level):
the client never gets an answer and waits forever. Over streamable HTTP the SDK answers such a body
with a JSON-RPC error; `Answering` gives stdio the same answers (-32700 for text that is not JSON,
-32602 for JSON that is not a JSON-RPC message), with the request's id when a lenient reading of the
line finds one, so the client's call fails at once instead of hanging.
"""

from __future__ import annotations

import json
import logging
from types import TracebackType
from typing import Protocol

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import JsonValue, ValidationError

log = logging.getLogger(__name__)
Item = SessionMessage | Exception


class Incoming(Protocol):
    """The read stream `mcp.server.stdio.stdio_server` yields, as far as `Answering` uses it."""

    async def receive(self) -> Item: ...
    async def aclose(self) -> None: ...


class Replies(Protocol):
    """The write stream `mcp.server.stdio.stdio_server` yields, as far as `Answering` uses it."""

    async def send(self, item: SessionMessage, /) -> None: ...


async def run_stdio(server: Server[object]) -> None:
    """Serve `server` over this process's stdin and stdout until the client closes the pipe."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(Answering(read_stream, write_stream), write_stream, server.create_initialization_options())


class Answering:
    """The SDK's stdio read stream, minus the lines it could not read: each gets its JSON-RPC error."""

    def __init__(self, inner: Incoming, replies: Replies) -> None:
        """`inner` and `replies`: the read and the write stream `mcp.server.stdio.stdio_server` yields."""
        self._inner = inner
        self._replies = replies

    @property
    def last_context(self) -> object:
        """The sender's context of the last item (read by the SDK's session; see ReadStream)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Item:
        while True:
            item: Item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            answer = unreadable_answer(item)
            if answer is not None:
                await self._replies.send(SessionMessage(answer))

    def __aiter__(self) -> Answering:
        return self

    async def __anext__(self) -> Item:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Answering:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def unreadable_answer(failure: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error for a line that could not be read, as the SDK answers it over HTTP; None for
    a notification (it gets no answer)."""
    errors = failure.errors() if isinstance(failure, ValidationError) else []
    line = errors[0]["input"] if errors else None
    request = _lenient(line) if isinstance(line, str) else line
    request_id = request.get("id") if isinstance(request, dict) else None
    if isinstance(request, dict) and "method" in request and "id" not in request:
        log.info("dropped an unreadable notification: %s", errors[0]["msg"] if errors else failure)
        return None
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        request_id = None
    if errors and errors[0]["type"] == "json_invalid":
        error = types.ErrorData(code=types.PARSE_ERROR, message=f"Parse error: {errors[0]['msg']}")
    else:
        error = types.ErrorData(code=types.INVALID_PARAMS, message=f"Validation error: {failure}")
    log.info("answered an unreadable line: %s", error.message.splitlines()[0])
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def _lenient(line: str) -> JsonValue:
    """`line` read by Python's JSON parser, which also reads lone surrogates (None if it cannot)."""
    try:
        read: JsonValue = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return read
