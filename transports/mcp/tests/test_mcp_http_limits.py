"""What one HTTP client can take from the others, over a real `serve mcp --transport http` on 127.0.0.1:
sessions (bounded per caller and in idle time), request bodies (413 as they stream in), and time
(answers go out at once, not after the client's delayed ACK)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator

import anyio
import httpx2
import pytest
from mcp import Client
from mcp_servers import mcp_server

from negotiation_mcp.limits import DEFAULT_MAX_SESSIONS_PER_CALLER
from negotiation_mcp.sessions import SessionBook, SessionClock
from negotiation_platform.network.exposure import MAX_REQUEST_BYTES
from tests.http_probe import PROMPT_MS, median_get_ms, oversized_post

pytestmark = pytest.mark.anyio
HANDSHAKE = "2025-11-25"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}
JSON_RPC = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """A server with the default limits, shared by the tests that change nothing in it."""
    with mcp_server() as served:
        yield served


async def open_session(http: httpx2.AsyncClient, url: str, address: str | None = None) -> httpx2.Response:
    """An `initialize` without a session id (it opens one); `address` is the caller as a reverse proxy on
    this host reports it (uvicorn trusts X-Forwarded-For from 127.0.0.1)."""
    headers = {**JSON_RPC, **({"x-forwarded-for": address} if address else {})}
    return await http.post(url, json=INITIALIZE, headers=headers)


def in_session(session_id: str) -> dict[str, str]:
    return {**JSON_RPC, "mcp-session-id": session_id, "mcp-protocol-version": HANDSHAKE}


class TestSessions:
    async def test_a_caller_past_its_share_is_refused_while_others_still_get_sessions(self) -> None:
        with mcp_server("--max-sessions-per-caller", "3", "--max-sessions", "4") as url:
            async with httpx2.AsyncClient() as http:
                mine = [await open_session(http, url) for _ in range(3)]
                assert [r.status_code for r in mine] == [200, 200, 200]
                over = await open_session(http, url)
                assert over.status_code == 429
                error = over.json()["error"]
                assert error["code"] == "limit_reached" and error["details"]["limit"] == "max_sessions_per_caller"
                assert "3 open MCP sessions per caller" in error["message"]
                other = await open_session(http, url, "10.0.0.2")  # another caller still gets one
                assert other.status_code == 200 and other.headers["mcp-session-id"]
                # the bound in all (--max-sessions 4) is the SDK's: full now, for everybody
                assert (await open_session(http, url, "10.0.0.3")).status_code == 503
                # ending a session frees its place
                gone = await http.delete(url, headers=in_session(mine[0].headers["mcp-session-id"]))
                assert gone.status_code == 200
                assert (await open_session(http, url)).status_code == 200
                assert (await open_session(http, url)).status_code == 429
            async with Client(url) as client:  # calls without sessions (the default protocol) are not bounded
                await client.call_tool("ping", {})

    async def test_by_default_a_caller_holds_a_bounded_number_of_sessions(self, url: str) -> None:
        async with httpx2.AsyncClient() as http:
            opened = [await open_session(http, url, "10.0.0.9") for _ in range(DEFAULT_MAX_SESSIONS_PER_CALLER)]
            assert {r.status_code for r in opened} == {200}
            assert (await open_session(http, url, "10.0.0.9")).status_code == 429
            opened.append(await open_session(http, url))  # another caller still gets one
            assert opened[-1].status_code == 200
            for answer in opened:
                await http.delete(url, headers=in_session(answer.headers["mcp-session-id"]))

    async def test_idle_sessions_end_and_make_room_for_new_ones(self) -> None:
        with mcp_server("--max-sessions-per-caller", "2", "--session-idle-timeout", "0.5") as url:
            async with Client(url, mode="legacy") as client:  # the official client's session counts
                await client.call_tool("ping", {})
                async with httpx2.AsyncClient() as http:
                    first = await open_session(http, url)
                    assert first.status_code == 200
                    assert (await open_session(http, url)).status_code == 429
                    with anyio.fail_after(10):
                        while (await open_session(http, url)).status_code == 429:
                            await anyio.sleep(0.2)
                    listed = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
                    stale = await http.post(url, json=listed, headers=in_session(first.headers["mcp-session-id"]))
                    assert stale.status_code == 404


def test_the_book_counts_each_callers_sessions_apart() -> None:
    live: set[str] = set()
    book = SessionBook(2, live.__contains__)
    assert book.reserve("a") and book.reserve("a")
    assert not book.reserve("a")  # two openings in flight fill a's share
    assert book.reserve("b") and book.held("b") == 1  # b is not a
    live.add("a1")
    book.settle("a", "a1")
    book.settle("a", None)  # this opening made no session
    assert book.held("a") == 1 and book.reserve("a")
    live.add("a2")
    book.settle("a", "a2")
    assert not book.reserve("a")
    live.discard("a1")  # ended (deleted or idle): its place is free again
    assert book.held("a") == 1 and book.reserve("a")
    book.settle("b", None)
    assert book.held("b") == 0


def test_the_clock_follows_sessions_as_the_sdk_ends_them() -> None:
    now = [0.0]
    sessions = SessionClock(10.0, lambda: now[0])
    sessions.opened("s")
    sessions.begin("s")  # a GET stream: the session lives while it is open
    now[0] = 100.0
    assert sessions.is_open("s")
    sessions.end("s", "GET", 200)
    now[0] = 109.0
    assert sessions.is_open("s")
    now[0] = 110.0  # idle for idle_timeout seconds: ended
    assert not sessions.is_open("s")
    sessions.begin("s")  # a late request on it is not followed (the SDK answers 404)
    sessions.end("s", "POST", 404)
    assert not sessions.is_open("s")
    sessions.opened("t")
    sessions.end("t", "DELETE", 200)  # deleted: ended at once
    assert not sessions.is_open("t")
    sessions.opened("u")
    sessions.begin("u")
    sessions.end("u", "POST", 404)  # the SDK no longer knows it (it failed)
    assert not sessions.is_open("u")


class TestRequestBodies:
    @pytest.mark.parametrize("declared", [True, False], ids=["content-length", "streamed"])
    async def test_a_body_over_the_limit_is_refused_with_413_before_it_is_all_sent(
        self, declared: bool, url: str
    ) -> None:
        status, body, sent = await oversized_post(url, declared=declared)
        assert status == 413, body
        assert body["error"]["code"] == "limit_reached"
        assert body["error"]["details"] == {"limit": "max_request_bytes", "max_bytes": MAX_REQUEST_BYTES}
        assert sent < 8 * MAX_REQUEST_BYTES  # answered while the client was still sending
        # The viewer reads no body: a declared one is refused with 413 up front, a streamed one with 405.
        # The streamed body never ends, so an answer at all shows the viewer did not wait for it (the
        # server may go on draining it after the 405, so how much was sent by then proves nothing).
        status, _, _ = await oversized_post(url.removesuffix("/mcp") + "/view/api/matches", declared=declared)
        assert status == (413 if declared else 405)
        async with Client(url) as client:
            assert not (await client.call_tool("ping", {})).is_error


class TestLatency:
    async def test_sequential_calls_on_one_connection_are_answered_at_once(self, url: str) -> None:
        async with Client(url) as client:  # the official client, as in the report
            took: list[float] = []
            for _ in range(15):
                start = time.perf_counter()
                await client.call_tool("list_games", {})
                took.append((time.perf_counter() - start) * 1e3)
        assert statistics.median(took) < PROMPT_MS, took
        assert await median_get_ms(url.removesuffix("/mcp") + "/view/api/matches") < PROMPT_MS
