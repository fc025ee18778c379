"""`mcp-llm:MODEL` plays through a real MCP server, driven by a scripted tool-calling fake model.

The fake model is an OpenAI-compatible chat-completions endpoint on a real 127.0.0.1 socket (the
`llm` agent's test server, reused) that answers with `tool_calls` (`tool_models`): get_turn_state
first, then perform_action (accept when an offer stands, else propose), optionally after scripted
mistakes. What a seat's model may not do is in test_mcp_llm_sandbox.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from mcp import Client
from mcp_servers import free_port
from tool_models import Dawdler, ToolModel

from negotiation_mcp.client import McpArena
from negotiation_mcp.mcp_llm import McpLlmAgent, totals
from negotiation_platform.agents.concession import ConcessionAgent
from negotiation_platform.agents.driver import play_match
from negotiation_platform.agents.llm_calls import EndpointError
from negotiation_platform.arena import Arena
from negotiation_platform.registry import Registry
from negotiation_platform.research.tournament import run_tournament
from tests.fake_openai import completion, serve


class Chatter(ToolModel):
    """Opens every turn by talking instead of calling a tool, then plays as scripted."""

    def reply(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if len(request["messages"]) == 2:
            self.requests.append(request)
            return 200, completion("Let me think about a fair split.")
        return super().reply(request)


@pytest.fixture
def model() -> ToolModel:
    return ToolModel()


@pytest.fixture
def endpoint(model: ToolModel) -> Iterator[str]:
    yield from serve(model)


@pytest.fixture(scope="module")
def server_url(shared_mcp_url: str) -> str:
    """The session's real `serve mcp --transport http` subprocess, for this module's matches."""
    return shared_mcp_url  # the session's plain server: each test reads only the matches it makes


async def play_over_http(url: str, agent: McpLlmAgent, seed: int) -> dict[str, Any]:
    async with Client(url) as client:
        return await play_match(McpArena(client), "split_100", [agent, ConcessionAgent()], seed=seed)


def test_mcp_llm_plays_a_whole_split_100_through_an_http_mcp_server(
    model: ToolModel, endpoint: str, server_url: str
) -> None:
    agent = McpLlmAgent(name="mcp-llm", target="fake-model", base_url=endpoint, api_key="test")
    result = asyncio.run(play_over_http(server_url, agent, seed=3))
    assert result["status"] == "finished" and result["agreement"]
    moves = [e for e in result["events"] if e["actor"] == "mcp-llm-client" and e["kind"] == "action"]
    assert moves[0]["data"]["action_type"] == "propose" and moves[-1]["data"]["action_type"] == "accept"
    first = model.requests[0]
    perform = next(t["function"] for t in first["tools"] if t["function"]["name"] == "perform_action")
    assert perform["parameters"]["required"] == ["action_type"]
    assert "get_turn_state" in first["messages"][0]["content"]
    fed_back = model.requests[1]["messages"][-1]
    assert fed_back["role"] == "tool" and json.loads(fed_back["content"])["your_turn"] is True
    assert all(entry["tool_calls"] == 2 and entry["outcome"] == "moved" for entry in agent.transcript)
    summed = totals(agent.transcript)
    assert summed["seconds"] > 0 and summed.pop("seconds")
    assert summed == {
        "turns": len(moves),
        "requests": 2 * len(moves),
        "tool_calls": 2 * len(moves),
        "idle_replies": 0,
        "refusals": {},
        "forfeits": 0,
        "stopped_by": {},
        "usage": {"prompt_tokens": 2 * len(moves), "completion_tokens": 2 * len(moves), "cached_tokens": 0},
        "tokens": 4 * len(moves),
    }
    calls = [call for entry in agent.transcript for step in entry["steps"] for call in step["calls"]]
    assert [call["arguments"] for call in calls[:2]] == [{}, {"action_type": "propose", "payload": {"mine": 60}}]


def test_a_refused_call_comes_back_to_the_model_with_its_code(server_url: str) -> None:
    model = ToolModel(
        mistakes=[
            ("perform_action", {"action_type": "bid"}),
            ("perform_action", {"action_type": "propose", "payload": {"mine": 101}}),
            ("perform_action", {"action_type": 7}),
        ]
    )
    for url in serve(model):
        agent = McpLlmAgent(target="fake-model", base_url=url, api_key="test")
        result = asyncio.run(play_over_http(server_url, agent, seed=5))
    assert result["status"] == "finished"
    seen = [json.loads(r["messages"][-1]["content"]) for r in model.requests[1:4]]
    assert [answer["error"]["code"] for answer in seen] == ["unknown_action", "invalid_payload", "invalid_argument"]
    assert "bid" in seen[0]["error"]["message"]
    first = agent.transcript[0]
    assert first["refusals"] == {"unknown_action": 1, "invalid_payload": 1, "invalid_argument": 1}
    assert first["tool_calls"] == 5 and first["outcome"] == "moved"
    assert totals(agent.transcript)["refusals"] == first["refusals"]


def test_past_the_bound_on_calls_per_turn_the_move_is_forfeited_with_that_reason() -> None:
    model = Dawdler()
    for url in serve(model):
        agent = McpLlmAgent(target="fake-model", base_url=url, api_key="test", max_calls_per_turn=3)
        result = asyncio.run(play_match(Arena(Registry()), "split_100", [agent, ConcessionAgent()], seed=2))
    assert result["status"] == "finished"
    reasons = [e["data"].get("reason", "") for e in result["events"] if e["data"] and "reason" in e["data"]]
    assert reasons and all("bound of 3 tool calls this turn without a move" in reason for reason in reasons)
    assert all(entry["tool_calls"] == 3 and entry["outcome"] == "forfeit" for entry in agent.transcript)
    assert all(entry["stopped_by"] == "max_calls_per_turn" for entry in agent.transcript)
    assert len(model.requests) == 3 * len(agent.transcript)


def test_a_reply_without_a_tool_call_is_told_the_move_is_open() -> None:
    model = Chatter()
    for url in serve(model):
        agent = McpLlmAgent(target="fake-model", base_url=url, api_key="test")
        result = asyncio.run(play_match(Arena(Registry()), "split_100", [agent, ConcessionAgent()], seed=2))
    assert result["status"] == "finished" and result["agreement"]
    nudged = model.requests[1]["messages"]
    assert nudged[2] == {"role": "assistant", "content": "Let me think about a fair split."}
    assert nudged[3] == {"role": "user", "content": "Your move is still open: make it with perform_action."}
    assert all(entry["idle_replies"] == 1 and entry["outcome"] == "moved" for entry in agent.transcript)
    assert totals(agent.transcript)["idle_replies"] == len(agent.transcript)


def test_a_match_wide_bound_stops_asking_the_model(endpoint: str, model: ToolModel) -> None:
    agent = McpLlmAgent(target="fake-model", base_url=endpoint, api_key="test", max_calls=3)
    result = asyncio.run(play_match(Arena(Registry()), "split_100", [agent, ConcessionAgent()], seed=1))
    assert result["status"] == "finished"
    assert agent.calls == 3 and len(model.requests) == 3
    assert agent.transcript[1]["outcome"] == "forfeit" and "all 3 tool calls" in agent.transcript[1]["reason"]
    assert totals(agent.transcript)["stopped_by"] == {"max_calls": len(agent.transcript) - 1}


def test_a_tournament_keeps_each_seats_tool_calls(endpoint: str, tmp_path: Path) -> None:
    rows = run_tournament(
        ["split_100"],
        ["mcp-llm:fake-model", "concession"],
        out=tmp_path,
        agent_options={"base_url": endpoint, "api_key": "test", "max_calls_per_turn": 4},
    )
    mixed = next(row for row in rows if row["agents"] == ["mcp-llm:fake-model", "concession"])
    assert mixed["agreement"] and mixed["transcripts"][1] is None
    assert totals(mixed["transcripts"][0])["tool_calls"] == 2 * len(mixed["transcripts"][0])
    assert not (tmp_path / "failures.jsonl").read_text()


def test_play_seats_mcp_llm_from_the_command_line(endpoint: str, model: ToolModel) -> None:
    env = {**os.environ, "OPENAI_BASE_URL": endpoint, "OPENAI_API_KEY": "test"}
    command = [sys.executable, "-m", "negotiation_platform.cli.main", "play", "split_100", "--seed", "4", "--json"]
    done = subprocess.run(
        [*command, "--agents", "mcp-llm:fake-model", "concession", "--via", "mcp"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["agreement"] and "mcp-llm-client" in result["players"]
    assert any(e["actor"] == "mcp-llm-client" and e["kind"] == "action" for e in result["events"])
    assert model.requests and all("tools" in request for request in model.requests)


def test_an_unreachable_endpoint_is_named_with_the_model() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    agent = McpLlmAgent(target="fake-model", base_url=url, api_key="test", timeout=2)
    with pytest.raises(EndpointError, match=f"{url} could not serve model 'fake-model': APIConnectionError"):
        asyncio.run(play_match(Arena(Registry()), "split_100", [agent, ConcessionAgent()], seed=1))


def test_options_are_typed_and_checked_like_llm_ones() -> None:
    from negotiation_platform.agents.catalog import option_names
    from negotiation_platform.errors import NegotiationError

    known = option_names(Registry().agents()["mcp-llm"])
    assert known is not None and {"max_calls_per_turn", "max_calls", "base_url", "retries", "cache"} <= set(known)
    assert {"max_tokens_per_turn", "max_tokens_per_match"} <= set(known)
    assert "max_calls_per_turn" not in (option_names(Registry().agents()["llm"]) or [])
    with pytest.raises(NegotiationError, match=r"temprature: Extra inputs are not permitted.*Known options: api_key"):
        McpLlmAgent(target="m", temprature=0.3)
    with pytest.raises(NegotiationError, match="max_calls: Input should be greater than or equal to 1"):
        McpLlmAgent(target="m", max_calls=0)
