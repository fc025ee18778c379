"""What no JSON client should send, sent to a real `serve a2a` over JSON-RPC and REST: text that is
not Unicode (the escape "\\ud800" in an application/json part), NaN in a data part, JSON nested
5,000 deep. Each gets the arena's structured refusal and one log line, and nothing is stored:
before, a lone surrogate was logged into the match and every later read of it failed."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from a2a_servers import a2a_server, answer, json_part, send
from mcp import Client

from negotiation_a2a.client import connect
from negotiation_mcp.client import McpArena
from negotiation_mcp.server import build_server
from negotiation_platform.arena import Arena
from negotiation_platform.arena.persistence import attach_store
from tests.cli_servers import server_log

pytestmark = pytest.mark.anyio
BINDINGS = ("jsonrpc", "rest")
DEEP = "[" * 5000 + "]" * 5000


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_lone_surrogate_is_refused_stored_nowhere_and_the_match_reads_on_every_surface(
    tmp_path: Path,
) -> None:
    store = str(tmp_path / "matches.db")
    with a2a_server("--store", store) as (base, _):
        async with connect(base) as alice, connect(base) as bob, httpx.AsyncClient(timeout=30) as http:
            mine = await alice.start_game("split_100", name="alice")
            match_id = mine["match_id"]
            theirs = await bob.join_game(match_id, name="bob")
            cursor = (await bob.get_turn_state(match_id, theirs["token"]))["cursor"]
            seat = f'"match_id": "{match_id}", "token": "{mine["token"]}"'
            for binding in BINDINGS:
                for arguments in (
                    f'{{{seat}, "content": "hi \\ud800"}}',
                    f'{{{seat}, "to": ["bob"], "content": "\\udfff"}}',
                ):
                    operation = "send_public_message" if '"to"' not in arguments else "send_private_message"
                    text = f'{{"operation": "{operation}", "arguments": {arguments}}}'
                    refused = await answer(http, base, json_part(text), binding)
                    assert refused["error"]["code"] == "invalid_argument", refused
                    assert "lone surrogate" in refused["error"]["message"]
                payload = '"action_type": "propose", "payload": {"\\ud800": 50}'
                action = f'{{"operation": "perform_action", "arguments": {{{seat}, {payload}}}}}'
                refused = await answer(http, base, json_part(action), binding)
                assert refused["error"]["code"] == "invalid_argument"

            state = await bob.get_turn_state(match_id, theirs["token"])  # the other seat reads on, over A2A
            assert state["cursor"] == cursor and state["status"] == "running"
            assert (await bob.watch(match_id))["cursor"] == cursor
            viewed = await http.get(f"{base}/view/api/matches/{match_id}")
            assert viewed.status_code == 200 and viewed.json()["cursor"] == cursor
            other_process = Arena()  # and over MCP, from an arena that reads the store this server writes
            attach_store(other_process, store, "elsewhere", read_only=True)
            async with Client(build_server(other_process)) as client:
                state = await McpArena(client).get_turn_state(match_id, theirs["token"])
            assert state["cursor"] == cursor and state["agent_id"] == "bob"


async def test_a_lone_surrogate_in_match_id_or_game_id_is_invalid_argument(tmp_path: Path) -> None:
    with a2a_server("--store", str(tmp_path / "matches.db")) as (base, proc):
        async with httpx.AsyncClient(timeout=30) as http:
            for binding in BINDINGS:
                for operation, arguments in (
                    ("get_result", '{"match_id": "\\ud800"}'),
                    ("get_turn_state", '{"match_id": "m\\ud800", "token": "t"}'),
                    ("watch", '{"match_id": "\\udc00x"}'),
                    ("join_game", '{"match_id": "\\ud800"}'),
                    ("start_game", '{"game_id": "\\ud800"}'),
                    ("get_game_rules", '{"game_id": "split_100\\ud800"}'),
                    ("list_matches", '{"game_id": "\\ud800"}'),
                ):
                    text = f'{{"operation": "{operation}", "arguments": {arguments}}}'
                    refused = await answer(http, base, json_part(text), binding)
                    assert refused["error"]["code"] == "invalid_argument", (operation, refused)
                    assert refused["error"]["details"]["field"] in ("match_id", "game_id")
            for path in ("/matches/%ED%A0%80", "/matches/x%ED%B0%80?since=1", "/matches?game=%ED%A0%80"):
                viewed = await http.get(f"{base}/view/api{path}")  # the URL decodes to U+FFFD, never to a surrogate
                assert viewed.status_code in (200, 404) and ("error" in viewed.json() or "matches" in viewed.json())
        log = server_log(proc)
    assert "Traceback" not in log and "UnicodeEncodeError" not in log


async def test_nan_data_parts_and_json_nested_5000_deep_get_a_structured_refusal_and_one_log_line() -> None:
    rules = '{"operation": "get_game_rules", "arguments": {"game_id": "split_100", "config": {"x": %s}}}'
    with a2a_server() as (base, proc):
        async with httpx.AsyncClient(timeout=30) as http:
            for binding in BINDINGS:
                for parts in (
                    f'[{{"data": {rules % "NaN"}}}]',
                    f'[{{"data": {rules % "-Infinity"}}}]',
                    json_part(rules % DEEP),
                    json_part(rules % ("1" * 5000)),
                ):
                    refused = await answer(http, base, parts, binding)
                    assert refused["error"]["code"] == "invalid_argument", refused
                    assert refused["error"]["message"].startswith("This message cannot be read: ")
            too_deep = await send(http, base, f'[{{"data": {rules % DEEP}}}]', "jsonrpc")  # no message to answer
            assert too_deep.json()["error"]["code"] == -32700
        log = server_log(proc)
    assert "Traceback" not in log
    refusals = [line for line in log.splitlines() if "refused an A2A message" in line]
    assert len(refusals) == 2 * 4, log
