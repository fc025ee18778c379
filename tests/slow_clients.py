"""Clients that hold a server's connections without finishing a request, on raw 127.0.0.x sockets, for
the tests of every HTTP server's connection bounds (`negotiation_platform.network.connection_guard`)."""

from __future__ import annotations

import http.client
import json
import socket
import time
from typing import Any

PARTIAL_REQUEST = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Never: end"
"""A request whose headers never end."""


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A connection to 127.0.0.1:`port` from `source` (any 127.0.0.x is this host on Linux)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    return sock


def until_closed(sock: socket.socket, seconds: float) -> tuple[bytes, float]:
    """What the server sent before it closed `sock`, and after how many seconds; socket.timeout (an
    OSError) when it was still open after `seconds`."""
    start = time.monotonic()
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
            sock.settimeout(max(0.01, seconds - (time.monotonic() - start)))
    except ConnectionResetError:
        pass
    return received, time.monotonic() - start


def refusal(answer: bytes) -> tuple[int, dict[str, Any]]:
    """The status and structured error of a whole answer the server sent before closing."""
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)["error"]


def status_of(port: int, path: str, source: str = "127.0.0.1") -> int:
    """The status of a plain GET of `path` from `source`."""
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        client.request("GET", path)
        return client.getresponse().status
    finally:
        client.close()


def trickled_post(port: int, path: str, length: int, seconds_per_byte: float, seconds: float) -> tuple[bytes, int]:
    """POST `path` declaring `length` body bytes and sending one every `seconds_per_byte`; what the
    server answered before closing (within `seconds`), and how many bytes had gone."""
    sock = connect(port)
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\r\n".encode()
    )
    sent = 0
    deadline = time.monotonic() + seconds
    sock.settimeout(seconds_per_byte)
    with sock:
        while sent < length and time.monotonic() < deadline:
            try:
                if sock.recv(1, socket.MSG_PEEK):
                    break  # the server answered
            except TimeoutError:
                pass
            try:
                sock.sendall(b" ")
            except OSError:
                break
            sent += 1
        answer, _ = until_closed(sock, max(0.1, deadline - time.monotonic()))
    return answer, sent
