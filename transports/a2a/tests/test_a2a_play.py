"""The play page beside a real `serve a2a` subprocess: seat links at the server's base URL, the page and
its API open with a seat token while `--auth-token-file` guards the A2A endpoints, and the same Host
checks as the MCP server."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from a2a_servers import a2a_server

from negotiation_a2a.client import connect

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_an_a2a_server_serves_seat_links_outside_its_auth_token(tmp_path: Any) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("s3cret\n")
    with a2a_server("--auth-token-file", str(token_file)) as (base, _):
        async with (
            httpx.AsyncClient(headers={"Authorization": "Bearer s3cret"}) as guarded,
            connect(base, http=guarded) as api,
        ):
            started = await api.start_game("split_100", opponents=["concession"], human_seats=0)
        assert started["play_url"] == f"{base}/play/{started['match_id']}#token={started['token']}"
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"{base}/.well-known/agent-card.json")).status_code == 401
            assert (await http.get(started["play_url"])).status_code == 200
            state_url = f"{base}/play/api/matches/{started['match_id']}/state"
            state = await http.get(state_url, headers={"X-Seat-Token": started["token"]})
            assert state.status_code == 200 and state.json()["agent_id"] == started["agent_id"]
            rebound = await http.get(state_url, headers={"X-Seat-Token": started["token"], "Host": "evil.example"})
            assert rebound.status_code == 421
