"""Raw HTTP/1.1 on a socket, for what client libraries hide from the tests of every HTTP server: a body
that is still being sent when the answer comes, and answers on one kept-alive connection."""

from __future__ import annotations

import asyncio
import contextlib
import json
import statistics
import time
from typing import Any
from urllib.parse import urlsplit

from negotiation_platform.network.exposure import MAX_REQUEST_BYTES

CHUNK = 64 * 1024
PROMPT_MS = 30.0
"""An answer sent at once takes a few milliseconds on loopback, even on a busy machine; one held by
Nagle until the client's delayed ACK takes 40 ms or more."""


async def _answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, Any]]:
    """The status and JSON body of the next answer on `reader`."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    status = int(head.split()[1])
    headers = dict(line.split(": ", 1) for line in head.strip().split("\r\n")[1:])
    length = int({k.lower(): v for k, v in headers.items()}.get("content-length", "0"))
    body = (await reader.readexactly(length)).decode() if length else ""
    try:
        return status, json.loads(body)
    except json.JSONDecodeError:
        return status, {"text": body}


async def oversized_post(
    url: str, *, declared: bool, headers: dict[str, str] | None = None, seconds: float = 20
) -> tuple[int, dict[str, Any], int]:
    """POST a body over `MAX_REQUEST_BYTES` to `url` and read the answer while still sending.

    `declared`: Content-Length says 100 MB up front and no byte of the body follows. Else the body is
    streamed in chunks (no Content-Length) up to 8 times the limit and never finished. Either way an
    answer at all means the server did not wait for the whole body. `headers` are sent besides.
    Returns the status, the JSON body and how many body bytes were sent when the answer came."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    reader, writer = await asyncio.open_connection(host, port)
    framing = f"Content-Length: {100 * 1024 * 1024}" if declared else "Transfer-Encoding: chunked"
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    writer.write(
        f"POST {parts.path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n{extra}{framing}\r\n\r\n".encode()
    )
    sent = 0

    async def feed() -> None:
        nonlocal sent
        while not declared and sent < 8 * MAX_REQUEST_BYTES:
            writer.write(b"%x\r\n%b\r\n" % (CHUNK, b" " * CHUNK))
            await writer.drain()
            sent += CHUNK
            await asyncio.sleep(0)  # drain() yields only when paused: read the answer between chunks

    feeding = asyncio.create_task(feed())
    try:
        status, body = await asyncio.wait_for(_answer(reader), seconds)
    finally:
        feeding.cancel()
        with contextlib.suppress(BaseException):
            await feeding
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    return status, body, sent


async def median_get_ms(url: str, times: int = 15) -> float:
    """Median milliseconds of sequential GETs of `url` on one kept-alive connection."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    reader, writer = await asyncio.open_connection(host, port)
    request = f"GET {parts.path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    took = []
    try:
        for _ in range(times):
            start = time.perf_counter()
            writer.write(request)
            status, _ = await asyncio.wait_for(_answer(reader), 10)
            took.append(time.perf_counter() - start)
            assert status == 200, status
    finally:
        writer.close()
    return statistics.median(took) * 1e3
