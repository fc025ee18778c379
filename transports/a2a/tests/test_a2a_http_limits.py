"""What one HTTP client can take from the others, over a real `serve a2a` on 127.0.0.1: request bodies
(413 as they stream in, on JSON-RPC, REST and the viewer) and time (answers go out at once)."""

from __future__ import annotations

import pytest

from negotiation_a2a.client import connect
from negotiation_a2a.wire import JSONRPC_PATH, REST_PATH
from negotiation_platform.network.exposure import MAX_REQUEST_BYTES
from tests.http_probe import PROMPT_MS, median_get_ms, oversized_post

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def base(shared_a2a_base: str) -> str:
    return shared_a2a_base  # the session's plain server


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "streamed"])
async def test_a_body_over_the_limit_is_refused_with_413_before_it_is_all_sent(declared: bool, base: str) -> None:
    for path in (JSONRPC_PATH, REST_PATH + "/message:send"):
        status, body, sent = await oversized_post(base + path, declared=declared, headers={"A2A-Version": "1.0"})
        assert status == 413, (path, body)
        assert body["error"]["code"] == "limit_reached"
        assert body["error"]["details"] == {"limit": "max_request_bytes", "max_bytes": MAX_REQUEST_BYTES}
        assert sent < 8 * MAX_REQUEST_BYTES  # answered while the client was still sending
    # The viewer reads no body: a declared one is refused with 413 up front, a streamed one with 405.
    # The streamed body never ends, so an answer at all shows the viewer did not wait for it (the
    # server may go on draining it after the 405, so how much was sent by then proves nothing).
    status, _, _ = await oversized_post(base + "/view/api/matches", declared=declared)
    assert status == (413 if declared else 405)
    async with connect(base) as api:  # and the server serves on
        assert "split_100" in {g["id"] for g in (await api.list_games())["games"]}


async def test_answers_on_one_connection_go_out_at_once(base: str) -> None:
    assert await median_get_ms(base + "/.well-known/agent-card.json") < PROMPT_MS
    assert await median_get_ms(base + "/view/api/matches") < PROMPT_MS
