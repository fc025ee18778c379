"""One boundary: the same bad request gets the same refusal on every transport, from real servers.

MCP over streamable HTTP (`serve mcp`) and over stdio (a spawned server), A2A over JSON-RPC and
REST (`serve a2a`, application/json parts, so the numbers are exact), and the viewer's JSON API:
each carries the request to `negotiation_platform.wire.boundary`, and each answers its
`{"error": {code, message, details}}` unchanged.
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from typing import Any

import httpx
import pytest
from a2a_servers import answer, json_part
from mcp import Client

from negotiation_mcp.client import stdio_server_parameters
from negotiation_platform.catalogue import Refusal
from negotiation_platform.wire.boundary import MAX_DEPTH, MAX_REQUEST_CHARS, MAX_SAFE_INTEGER, MAX_TEXT_CHARS
from tests.cli_servers import cli_server
from tests.test_strict_input import nested

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


BEYOND_JS = ("watch", {"match_id": "m", "since": MAX_SAFE_INTEGER + 1})
CASES = {
    "integer out of range": BEYOND_JS,
    "too deep": ("start_game", {"game_id": "split_100", "config": nested(MAX_DEPTH + 5)}),
    "string too long": ("send_public_message", {"match_id": "m", "token": "t", "content": "x" * (MAX_TEXT_CHARS + 1)}),
    "request too big": ("get_game_rules", {"game_id": "split_100", "config": {"a": ["x" * 60_000] * 5}}),
}
EXPECTED = {
    "integer out of range": ("since", "integer_range"),
    "too deep": ("config" + ".x" * (MAX_DEPTH - 1), "max_depth"),
    "string too long": ("content", "max_text_chars"),
    "request too big": (None, "max_request_chars"),
}


async def mcp_refusals(client: Client) -> dict[str, Any]:
    found = {}
    for case, (tool, arguments) in CASES.items():
        result = await client.call_tool(tool, arguments)
        assert result.is_error and result.structured_content is None
        found[case] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    return found


async def test_every_transport_answers_a_bad_request_with_the_same_refusal(shared_a2a_base: str) -> None:
    assert sum(len(s) for s in CASES["request too big"][1]["config"]["a"]) > MAX_REQUEST_CHARS
    seen: dict[str, dict[str, Any]] = {}
    with cli_server("serve", "mcp", "--transport", "http") as (port, _):
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            seen["mcp http"] = await mcp_refusals(client)
        async with httpx.AsyncClient() as http:
            viewed = await http.get(f"http://127.0.0.1:{port}/view/api/matches/m?since={MAX_SAFE_INTEGER + 1}")
        assert viewed.status_code == 400
        seen["viewer"] = {"integer out of range": viewed.json()}
    async with Client(stdio_server_parameters()) as client:
        seen["mcp stdio"] = await mcp_refusals(client)
    with nullcontext(shared_a2a_base) as base:  # the session's server: refusals change nothing
        async with httpx.AsyncClient(timeout=30) as http:
            for binding in ("jsonrpc", "rest"):
                seen[f"a2a {binding}"] = {
                    case: await answer(http, base, json_part(json.dumps({"operation": op, "arguments": args})), binding)
                    for case, (op, args) in CASES.items()
                }
    reference = seen["mcp http"]
    for transport, refusals in seen.items():
        for case, refusal in refusals.items():
            assert refusal == reference[case], (transport, case)
            Refusal.model_validate(refusal)  # the catalogue's error model
    for case, (field, limit) in EXPECTED.items():
        error = reference[case]["error"]
        assert error["code"] == "invalid_argument" and error["details"]["limit"] == limit, case
        assert error["details"].get("field") == field, case
    assert "2^53" in reference["integer out of range"]["error"]["message"]
