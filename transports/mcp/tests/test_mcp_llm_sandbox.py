"""An `mcp-llm` seat is a sandbox: a prompt-injected model cannot leave its seat, leak its token or
spend without bound.

The model is a scripted fake endpoint on a real 127.0.0.1 socket (`tool_models`); the arena is
in-process (served over MCP in memory) or a real `serve mcp --transport http` subprocess. The
"injected" model tries what an opponent's message once steered a model into: listing matches,
starting one, taking a seat in a stranger's waiting match, resigning, naming another match and
token, and publishing its own token (as if it had learned it).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

pytest.importorskip("openai")

from mcp import Client
from mcp_servers import mcp_server
from tool_models import Call, Dawdler, ToolModel

from negotiation_mcp.client import McpArena
from negotiation_mcp.mcp_llm import McpLlmAgent, totals
from negotiation_platform.agents.concession import ConcessionAgent
from negotiation_platform.agents.driver import AgentGaveUp, play_match, seat_in_play
from negotiation_platform.arena import Arena, ArenaApi
from negotiation_platform.registry import Registry
from tests.fake_openai import serve

SEAT_TOOLS = ["get_turn_state", "perform_action", "send_public_message", "send_private_message"]
LEAK, STRANGER = "LEAKED-TOKEN", "STRANGERS-MATCH"
"""Stand for the seat's token and another client's waiting match in a scripted call (the real ones are
put in when the model sends it)."""
USAGE = {"prompt_tokens": 600, "completion_tokens": 100, "total_tokens": 700}


class Spied(McpLlmAgent):
    """Keeps the token the drivers hand its seat, for the test to look for (the model is never told it)."""

    token = ""

    async def decide(self, turn: dict[str, Any]) -> Any:
        seat = seat_in_play()
        assert seat is not None
        self.token = seat.token
        return await super().decide(turn)


class Injected(ToolModel):
    """Steered by an opponent: tries to get out of its seat and to publish its token, then plays."""

    def __init__(self) -> None:
        super().__init__(
            mistakes=[
                ("list_matches", {}),
                ("start_game", {"game_id": "split_100", "opponents": ["mcp-llm:fake-model"]}),
                ("join_game", {"match_id": STRANGER}),
                ("leave_game", {}),
                ("get_turn_state", {"match_id": STRANGER, "token": "a-token-it-found"}),
                ("send_public_message", {"content": f"My seat token is {LEAK}, act for me"}),
                ("send_private_message", {"to": ["concession"], "content": LEAK}),
                ("perform_action", {"action_type": "propose", "payload": {"mine": LEAK}}),
            ]
        )
        self.agent = Spied(target="unused")
        """The seat's agent, whose token the model somehow learned."""
        self.stranger = ""

    def mistake(self) -> Call:
        name, arguments = super().mistake()
        text = json.dumps(arguments).replace(LEAK, self.agent.token).replace(STRANGER, self.stranger)
        return name, json.loads(text)


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with mcp_server() as url:
        yield url


@asynccontextmanager
async def arena_on(where: str, server_url: str) -> AsyncIterator[ArenaApi]:
    """An in-process arena, or a client of the real HTTP server."""
    if where == "memory":
        yield Arena(Registry())
        return
    async with Client(server_url) as client:
        yield McpArena(client)  # type: ignore[abstract]  # its methods come from the catalogue


async def match_ids(arena: ArenaApi) -> set[str]:
    return {match["match_id"] for match in (await arena.list_matches(limit=500))["matches"]}


@pytest.mark.parametrize("where", ["memory", "http"])
def test_an_injected_model_cannot_leave_its_seat_or_leak_its_token(where: str, server_url: str) -> None:
    async def scenario() -> tuple[dict[str, Any], dict[str, Any], set[str], set[str]]:
        async with arena_on(where, server_url) as arena:
            model.stranger = (await arena.start_game("split_100", name="stranger"))["match_id"]
            before = await match_ids(arena)
            result = await play_match(arena, "split_100", [agent, ConcessionAgent()], seed=4)
            return result, await arena.get_result(model.stranger), before, await match_ids(arena)

    model = Injected()
    for url in serve(model):
        agent = Spied(target="fake-model", base_url=url, api_key="test", max_calls_per_turn=12)
        model.agent = agent
        result, waiting, before, after = asyncio.run(scenario())

    for request in model.requests:
        assert [tool["function"]["name"] for tool in request["tools"]] == SEAT_TOOLS
        for tool in request["tools"]:
            parameters = tool["function"]["parameters"]
            assert not {"match_id", "token"} & set(parameters["properties"])
            assert parameters["additionalProperties"] is False
        assert agent.token not in json.dumps(request)  # not in the prompt, results, or the model's own echo
    told = json.dumps(model.requests[0]["messages"])  # the system prompt and the first message
    assert not [word for word in ("start_game", "join_game", "list_matches", "token") if word in told]
    assert after - before == {result["match_id"]}  # no match started besides the one played
    assert waiting["status"] == "waiting_for_players"  # the stranger's match: nobody took its seat
    answers = [json.loads(request["messages"][-1]["content"]) for request in model.requests[1:9]]
    assert [answer.get("error", {}).get("code") for answer in answers] == [
        *["unknown_operation"] * 4,
        "invalid_argument",
        *["forbidden"] * 3,
    ]
    assert answers[4]["error"]["details"]["unknown"] == ["match_id", "token"]
    assert answers[5]["error"]["details"]["reason"] == "secret_in_arguments"
    assert result["status"] == "finished" and result["agreement"]
    assert agent.token and agent.token not in json.dumps(result["events"])
    assert not [e for e in result["events"] if e["actor"] == "mcp-llm" and e["kind"] != "action"]
    assert agent.token not in json.dumps(agent.transcript)
    assert agent.transcript[0]["refusals"] == {"unknown_operation": 4, "invalid_argument": 1, "forbidden": 3}


@pytest.mark.parametrize("where", ["memory", "http"])
def test_a_turn_past_its_token_budget_asks_the_model_no_more(where: str, server_url: str) -> None:
    async def scenario() -> dict[str, Any] | Exception:
        async with arena_on(where, server_url) as arena:
            try:
                return await play_match(arena, "split_100", [agent, ConcessionAgent()], seed=6)
            except AgentGaveUp as gave_up:  # through a connection that cannot play the default move
                return gave_up

    model = Dawdler(usage=USAGE)
    for url in serve(model):
        agent = McpLlmAgent(target="fake-model", base_url=url, api_key="test", max_tokens_per_turn=1000)
        outcome = asyncio.run(scenario())
    reason = "mcp-llm reached its budget of 1000 tokens this turn without a move"
    if where == "http":
        assert isinstance(outcome, AgentGaveUp) and reason in str(outcome)
    else:
        assert isinstance(outcome, dict) and outcome["status"] == "finished"
        assert {e["data"]["reason"] for e in outcome["events"] if "reason" in (e["data"] or {})} == {reason}
    turns = len(agent.transcript)
    assert len(model.requests) == 2 * turns  # 700 tokens, then 1,400: past 1,000, no third request
    for entry in agent.transcript:
        assert entry["tokens"] == 1400 and entry["stopped_by"] == "max_tokens_per_turn"
        assert entry["outcome"] == "forfeit" and entry["reason"] == reason
    summed = totals(agent.transcript)
    assert summed["tokens"] == 1400 * turns and summed["stopped_by"] == {"max_tokens_per_turn": turns}


def test_a_match_past_its_token_budget_forfeits_every_later_move() -> None:
    model = ToolModel(usage=USAGE)
    for url in serve(model):
        agent = McpLlmAgent(target="fake-model", base_url=url, api_key="test", max_tokens_per_match=2000)
        result = asyncio.run(play_match(Arena(Registry()), "split_100", [agent, ConcessionAgent()], seed=6))
    assert result["status"] == "finished"
    assert len(model.requests) == 3  # a whole turn (1,400 tokens), then one request (2,100): no more
    first, second, *later = agent.transcript
    assert first["outcome"] == "moved" and "stopped_by" not in first
    assert second["tokens"] == 700 and second["stopped_by"] == "max_tokens_per_match"
    assert second["reason"] == "mcp-llm used all 2000 tokens of its budget for the match"
    assert all(entry["requests"] == 0 and entry["stopped_by"] == "max_tokens_per_match" for entry in later)
    assert agent.tokens == totals(agent.transcript)["tokens"] == 2100
