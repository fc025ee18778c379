"""DNS-rebinding protection on a real `serve a2a` subprocess: the same Host/Origin check as every other
HTTP surface (one guard around the whole server), on the A2A endpoints, the viewer and `/metrics` alike,
token or not; `--allowed-host` names a further host."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from a2a_servers import a2a_server

pytestmark = pytest.mark.anyio

START = {"operation": "start_game", "arguments": {"game_id": "split_100", "opponents": ["concession"]}}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def send_message(data: dict[str, Any]) -> dict[str, Any]:
    message = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"data": data}]}
    return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}


async def test_a_foreign_host_starts_no_match_and_reads_neither_the_viewer_nor_the_metrics() -> None:
    with a2a_server("--allowed-host", "arena.example:*") as (base, _):
        async with httpx.AsyncClient(base_url=base, headers={"A2A-Version": "1.0"}, timeout=30) as http:
            for url in ("/a2a/jsonrpc", "/"):
                rebound = await http.post(url, json=send_message(START), headers={"Host": "evil.example"})
                assert rebound.status_code == 421, rebound.text
                assert rebound.json()["error"]["code"] == "forbidden"
            for path in ("/view/", "/view/api/matches", "/metrics"):
                refused = await http.get(path, headers={"Host": "evil.example:80"})
                assert refused.status_code == 421 and refused.json()["error"]["code"] == "forbidden", path
                from_elsewhere = await http.get(path, headers={"Origin": "http://evil.example"})
                assert from_elsewhere.status_code == 403, path
            assert (await http.get("/view/api/matches")).json()["matches"] == []  # nothing was started
            assert (await http.get("/healthz", headers={"Host": "10.0.0.7:9000"})).status_code == 200
            named = await http.get("/view/api/matches", headers={"Host": "arena.example:443"})
            assert named.status_code == 200  # --allowed-host
