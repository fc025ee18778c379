"""Slow clients against a real `serve mcp --transport http` with one-second timeouts: a body that trickles
is cut off with 408, unfinished headers are closed while an MCP client plays, and what the server itself
holds open (a long poll, the viewer's live stream) outlives every timeout: only reading is timed."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from mcp_servers import mcp_server

from negotiation_mcp.client import connect as connect_mcp
from tests.slow_clients import PARTIAL_REQUEST, connect, refusal, trickled_post, until_closed

pytestmark = pytest.mark.anyio
GENEROUS = 10.0
TIMEOUTS = ("--header-timeout", "1", "--idle-timeout", "1", "--body-timeout", "1")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with mcp_server(*TIMEOUTS) as served:
        yield served


def port_of(url: str) -> int:
    return urlsplit(url).port or 80


def test_a_trickled_body_is_cut_off_with_408(url: str) -> None:
    answer, sent = trickled_post(port_of(url), "/mcp", 1000, 0.2, GENEROUS)
    status, error = refusal(answer)
    assert status == 408 and error["code"] == "limit_reached" and error["details"]["limit"] == "body_timeout"
    assert sent < 100  # cut off after about a second, not when the body was complete


async def test_unfinished_headers_are_closed_while_a_client_plays(url: str) -> None:
    hostile = [connect(port_of(url), f"127.0.0.{10 + n}") for n in range(10)]
    for sock in hostile:
        sock.sendall(PARTIAL_REQUEST)
    async with connect_mcp(url) as api:
        started = await api.start_game("split_100", name="alice", opponents=["concession"])
        assert started["match_id"]
    for sock in hostile:
        with sock:
            answer, _ = until_closed(sock, GENEROUS)
        assert refusal(answer)[0] == 408


async def test_a_long_poll_and_a_live_stream_outlive_the_timeouts(url: str) -> None:
    async with connect_mcp(url) as api:
        started = await api.start_game("split_100", name="alice")  # waits for a second player
        stream = connect(port_of(url))
        path = f"/view/api/matches/{started['match_id']}/stream"
        stream.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port_of(url)}\r\n\r\n".encode())
        start = time.monotonic()
        await api.get_turn_state(started["match_id"], started["token"], wait_seconds=3)
        assert time.monotonic() - start >= 2.5  # a long poll held three times the timeouts
        with stream:
            assert still_open(stream).startswith(b"HTTP/1.1 200")


def still_open(sock: socket.socket) -> bytes:
    """What `sock` received so far, failing if the server closed it."""
    sock.setblocking(False)
    received = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except BlockingIOError:
            return received
        assert chunk, f"the server closed the stream after {received!r}"
        received += chunk
