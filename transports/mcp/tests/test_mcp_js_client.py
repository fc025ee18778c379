"""The official TypeScript MCP SDK client (`@modelcontextprotocol/sdk`, tests/js/mcp_match.mjs) against a
real `serve mcp` subprocess: it lists the tools, plays a whole match, and sees the arena's refusals
(its `callTool` throws -32602 on a tool error whose structured content misses the output schema)."""

from __future__ import annotations

from typing import Any

import pytest

from negotiation_platform.serving.operations import OPERATIONS
from tests.js_clients import require_js, run_js_client


@pytest.fixture(scope="module")
def seen(shared_mcp_url: str) -> dict[str, Any]:
    """What the TS client saw, from one run of the script for this module."""
    require_js("@modelcontextprotocol/sdk")
    return run_js_client("mcp_match.mjs", shared_mcp_url)  # the session's server: the script reads only its match


def test_the_ts_client_lists_every_tool(seen: dict[str, Any]) -> None:
    assert set(OPERATIONS) <= set(seen["tools"])


def test_the_ts_client_plays_a_whole_match(seen: dict[str, Any]) -> None:
    assert seen["started"]["opponents"] == ["concession"] and seen["moves"] >= 1
    assert seen["status"] == "finished" and seen["result"]["status"] == "finished"
    assert seen["result"]["match_id"] == seen["started"]["match_id"]


def test_the_ts_client_sees_the_code_of_a_refusal(seen: dict[str, Any]) -> None:
    for code, refusal in seen["refusals"].items():
        assert "thrown" not in refusal, refusal["thrown"]
        assert refusal["error"]["code"] == code and refusal["error"]["message"]
    assert seen["refusals"]["invalid_payload"]["error"]["details"]["problems"][0]["field"] == "mine"
