"""Text that is not Unicode (the JSON escape "\\ud800", a lone surrogate) sent to the MCP server.

Over stdio the SDK dropped every line it could not parse, so the client waited forever; now each
such line gets the JSON-RPC error the SDK gives over HTTP, with the request's id. Over HTTP the
SDK's parser refuses the body (400, -32700) before any tool runs. A caller that hands the tools
such a string directly (in process) gets the arena's `invalid_argument`, and nothing is stored.
"""

from __future__ import annotations

import json
import select
import subprocess
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp_servers import mcp_server

from negotiation_mcp.client import McpArena, stdio_server_parameters
from negotiation_mcp.tools import call_tool
from negotiation_platform.arena import Arena
from negotiation_platform.arena.limits import Caller
from negotiation_platform.serving.house_seats import HouseSeats

pytestmark = pytest.mark.anyio
LONE = "\ud800"
CALL = '{"jsonrpc": "2.0", "id": %s, "method": "tools/call", "params": {"name": "%s", "arguments": %s}}'
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class RawStdio:
    """`serve mcp --transport stdio` as a subprocess spoken to line by line."""

    def __init__(self) -> None:
        params = stdio_server_parameters()
        self.proc = subprocess.Popen(
            [params.command, *params.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 10) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, "no answer"
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return answer

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def test_stdio_answers_a_line_it_cannot_read_and_serves_on() -> None:
    server = RawStdio()
    try:
        server.send(json.dumps(INITIALIZE))
        assert server.receive(timeout=30)["id"] == 0
        server.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        server.send(CALL % (1, "get_result", '{"match_id": "\\ud800"}'))
        answer = server.receive()
        assert answer["id"] == 1 and answer["error"]["code"] == -32700, answer
        server.send(CALL % ('"two"', "start_game", '{"game_id": "split_100", "name": "x\\udfff"}'))
        answer = server.receive()
        assert answer["id"] == "two" and answer["error"]["code"] == -32700, answer
        server.send("{garbage")
        answer = server.receive()
        assert answer["id"] is None and answer["error"]["code"] == -32700, answer
        server.send('{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "\\ud800"}}')
        server.send(CALL % (3, "list_matches", "{}"))  # the notification got no answer: this is the next one
        answer = server.receive()
        assert answer["id"] == 3 and answer["result"]["structuredContent"]["matches"] == []
    finally:
        server.close()


async def test_http_refuses_the_body_before_any_tool_runs_and_tools_refuse_such_text_as_invalid_argument() -> None:
    with mcp_server() as url:
        async with httpx.AsyncClient(timeout=30) as http:
            headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}
            for arguments in ('{"match_id": "\\ud800"}', '{"game_id": "split_100", "name": "\\udfff"}'):
                body = CALL % (1, "start_game" if "game_id" in arguments else "get_result", arguments)
                refused = await http.post(url, content=body, headers={**headers, "content-type": "application/json"})
                assert refused.status_code == 400 and refused.json()["error"]["code"] == -32700
        async with Client(url) as client:
            assert (await McpArena(client).list_matches())["matches"] == []  # nothing was made, it serves on

    arena = Arena()
    house, caller = HouseSeats(arena), Caller("stdio")  # in process, such a string reaches the tools: they refuse it
    mine = (await call_tool(house, "start_game", {"game_id": "split_100", "name": "alice"}, caller)).structured_content
    assert mine is not None
    await call_tool(house, "join_game", {"match_id": mine["match_id"], "name": "bob"}, caller)
    seat = {"match_id": mine["match_id"], "token": mine["token"]}
    logged = len(arena.events(mine["match_id"]))
    for tool, arguments in (
        ("send_public_message", {**seat, "content": f"hi {LONE}"}),
        ("perform_action", {**seat, "action_type": "propose", "payload": {"mine": 50, LONE: 1}}),
        ("get_result", {"match_id": LONE}),
        ("start_game", {"game_id": LONE}),
    ):
        result = await call_tool(house, tool, arguments, caller)
        error = json.loads(result.content[0].text)["error"]
        assert result.is_error and error["code"] == "invalid_argument" and "lone surrogate" in error["message"]
        result.model_dump_json()  # the answer can be sent
    assert len(arena.events(mine["match_id"])) == logged
