"""The play page's HTTP API on a real `serve mcp --transport http` subprocess, without a browser: seat
links from start_game, the seat token as the only credential, one seat never acting or seeing for
another, the MCP server's DNS-rebinding protection on /play, bounded bodies and waits, and an
`--auth-token-file` that guards /mcp but not the page."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_servers import mcp_server

from negotiation_mcp.client import McpArena

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def server(shared_mcp_url: str) -> str:
    return shared_mcp_url  # the session's plain server: each test reads only the matches it makes


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=30) as client:
        yield client


async def start(server: str, game_id: str = "split_100", **arguments: Any) -> dict[str, Any]:
    async with Client(server) as client:
        return await McpArena(client).start_game(game_id, **arguments)


def api(seat: dict[str, Any], what: str) -> str:
    """The API URL of `what` (state, action, message) for the seat whose link is `seat["play_url"]`."""
    link = urlsplit(seat["play_url"])
    return f"{link.scheme}://{link.netloc}/play/api/matches{link.path.removeprefix('/play')}/{what}"


def as_seat(seat: dict[str, Any]) -> dict[str, str]:
    return {"X-Seat-Token": seat["token"]}


async def test_human_seat_links_open_the_page_and_play_that_seat(server: str, http: httpx.AsyncClient) -> None:
    started = await start(server, human_seats=1, seed=1)
    [human] = started["human_seats"]
    base = server.removesuffix("/mcp")
    assert human["play_url"] == f"{base}/play/{started['match_id']}#token={human['token']}"
    page = await http.get(human["play_url"])  # httpx, like a browser, never sends the fragment
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert human["token"] not in page.text
    state = (await http.get(api(human, "state"), headers=as_seat(human))).json()
    assert (state["agent_id"], state["status"]) == ("human", "running")
    assert "Split $100" in state["rules"] and state["board"] is None
    assert "view" in state and "prompt" not in state
    mover = started if started["agent_id"] in state["acting"] else human
    proposed = await http.post(
        api(mover, "action"), headers=as_seat(mover), json={"action_type": "propose", "payload": {"mine": 55}}
    )
    assert proposed.status_code == 200, proposed.text
    later = (await http.get(api(human, "state") + f"?since={state['cursor']}", headers=as_seat(human))).json()
    assert any(e["kind"] == "action" for e in later["events"]) and "rules" not in later


async def test_the_seat_token_is_required_and_acts_only_for_its_own_seat(server: str, http: httpx.AsyncClient) -> None:
    started = await start(server, human_seats=1, seed=2)
    [human] = started["human_seats"]
    elsewhere = await start(server, opponents=["concession"])
    for headers in ({}, {"X-Seat-Token": "not-a-seat"}, as_seat(elsewhere)):  # another match's seat too
        answer = await http.get(api(human, "state"), headers=headers)
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "forbidden"
        posted = await http.post(api(human, "message"), headers=headers, json={"content": "hi", "to": None})
        assert posted.status_code == 403
    state = (await http.get(api(human, "state"), headers=as_seat(human))).json()
    idle = human if started["agent_id"] in state["acting"] else started
    refused = await http.post(
        api(idle, "action"), headers=as_seat(idle), json={"action_type": "propose", "payload": {"mine": 99}}
    )
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "not_your_turn"
    mine = (await http.get(api(human, "state"), headers=as_seat(human))).json()
    theirs = (await http.get(api(started, "state"), headers=as_seat(started))).json()
    assert (mine["agent_id"], theirs["agent_id"]) == ("human", started["agent_id"])


async def test_play_routes_refuse_other_hosts_and_origins(server: str, http: httpx.AsyncClient) -> None:
    started = await start(server, human_seats=1)
    [human] = started["human_seats"]
    rebound = await http.get(api(human, "state"), headers={**as_seat(human), "Host": "evil.example:80"})
    assert rebound.status_code == 421 and rebound.json()["error"]["code"] == "forbidden"
    page = await http.get(human["play_url"], headers={"Host": "evil.example"})
    assert page.status_code == 421
    foreign = await http.post(
        api(human, "message"),
        headers={**as_seat(human), "Origin": "http://evil.example"},
        json={"content": "hi", "to": None},
    )
    assert foreign.status_code == 403
    own = await http.get(api(human, "state"), headers={**as_seat(human), "Origin": server.removesuffix("/mcp")})
    assert own.status_code == 200


async def test_bodies_and_waits_are_bounded(server: str, http: httpx.AsyncClient) -> None:
    started = await start(server, human_seats=1)
    [human] = started["human_seats"]
    for body, code in ((b"[1]", "invalid_argument"), (b"{", "invalid_argument"), (b"x" * 70_000, "limit_reached")):
        answer = await http.post(api(human, "message"), headers=as_seat(human), content=body)
        assert answer.json()["error"]["code"] == code
    extra = await http.post(api(human, "action"), headers=as_seat(human), json={"action_type": "x", "more": 1})
    assert extra.json()["error"]["details"]["unknown"] == ["more"]
    for wait in ("26", "-1", "nan", "soon"):
        answer = await http.get(api(human, "state") + f"?since=0&wait={wait}", headers=as_seat(human))
        assert answer.status_code == 400


async def test_an_auth_token_guards_mcp_but_not_the_play_page(tmp_path: Any) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("s3cret\n")
    with mcp_server("--auth-token-file", str(token_file)) as url:
        async with httpx.AsyncClient(timeout=30) as http:
            assert (await http.post(url, json={})).status_code == 401
            async with (
                httpx.AsyncClient(headers={"Authorization": "Bearer s3cret"}) as guarded,
                Client(streamable_http_client(url, http_client=guarded)) as client,
            ):
                started = await McpArena(client).start_game("split_100", opponents=["concession"])
            assert (await http.get(started["play_url"])).status_code == 200
            state = await http.get(api(started, "state"), headers=as_seat(started))
            assert state.status_code == 200 and state.json()["agent_id"] == started["agent_id"]
            assert (await http.get(url.removesuffix("/mcp") + "/view/")).status_code == 200


async def test_a_page_never_shows_another_seats_secrets(server: str, http: httpx.AsyncClient) -> None:
    started = await start(server, "auction", opponents=["random"], human_seats=1, seed=6)
    [human] = started["human_seats"]
    async with Client(server) as client:
        mcp = McpArena(client)
        await mcp.send_private_message(started["match_id"], started["token"], ["random"], "MARKER-7f3a")
    state = (await http.get(api(human, "state"), headers=as_seat(human))).json()
    assert "MARKER-7f3a" not in json.dumps(state)  # not in its transcript, not on the board
    assert [e for e in state["events"] if e["kind"] == "message"] == []
    assert set(state["view"]) == {"round", "phase", "your_value", "your_bid", "pricing", "sale"}  # its own value only


async def test_a_cursor_beyond_what_a_client_holds_is_refused_as_over_mcp(server: str, http: httpx.AsyncClient) -> None:
    started = await start(server, human_seats=1, seed=6)
    [human] = started["human_seats"]
    for since in ("99999999999999999999", str(2**53)):
        refused = await http.get(api(human, "state"), params={"since": since}, headers=as_seat(human))
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_argument", since


async def test_a_move_sent_to_the_process_that_does_not_hold_the_match_is_a_403(
    tmp_path: Path, http: httpx.AsyncClient
) -> None:
    store = str(tmp_path / "matches.db")
    with (
        mcp_server("--store", store, "--instance", "one") as one,
        mcp_server("--store", store, "--instance", "two") as two,
    ):
        started = await start(one, human_seats=1, seed=7)
        [human] = started["human_seats"]
        elsewhere = api(human, "action").replace(urlsplit(one).netloc, urlsplit(two).netloc)
        move = {"action_type": "propose", "payload": {"mine": 50}}
        refused = await http.post(elsewhere, headers=as_seat(human), json=move)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "wrong_owner", refused.text
