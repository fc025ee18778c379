"""The MCP transport, over all three ways in: in-memory, a real stdio subprocess, real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import Client

from negotiation_mcp.client import McpArena, stdio_server_parameters
from negotiation_mcp.server import build_server
from negotiation_platform.agents import BatnaAwareAgent, ConcessionAgent, RandomAgent, play_match
from negotiation_platform.agents.driver import SeatHandle, run_seat
from negotiation_platform.arena import Arena
from negotiation_platform.catalogue.requests import AbsentNotNull
from negotiation_platform.engine import Event, Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.serving.operations import OPERATIONS

pytestmark = pytest.mark.anyio
TOOLS = {
    "list_games",
    "get_game_rules",
    "start_game",
    "join_game",
    "get_turn_state",
    "send_public_message",
    "send_private_message",
    "perform_action",
    "get_result",
    "list_matches",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def in_memory() -> AsyncIterator[tuple[Arena, McpArena]]:
    arena = Arena()
    async with Client(build_server(arena)) as client:
        yield arena, McpArena(client)


@pytest.fixture
def http_server(shared_mcp_url: str) -> str:
    """The server as a real subprocess on 127.0.0.1: the session's, as these tests read only their own matches."""
    return shared_mcp_url


async def raw_call(client: Client, tool: str, **args: Any) -> Any:
    return await client.call_tool(tool, args)


def without_match_ids(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events with the final result's data left out: it names the match id, which differs per arena."""
    return [{k: v for k, v in e.items() if k != "data" or e["kind"] != "match_ended"} for e in events]


def replayed_result(game_id: str, players: list[str], events: list[dict[str, Any]], seed: int, config: dict) -> Any:  # type: ignore[type-arg]
    """What the engine computes from the seats' event log alone: an independent check of the server's result."""
    game = Registry().game(game_id).cls
    match = Match.replay(game, players, [Event.from_dict(e) for e in events], seed=seed, config=config)
    assert match.result is not None
    return match.result.final_scores


class TestInMemory:
    async def test_tools_schemas_resources_and_prompt(self) -> None:
        async with in_memory() as (_, api):
            tools = {t.name: t for t in (await api.client.list_tools()).tools}
            assert set(tools) >= TOOLS
            start = tools["start_game"]
            props = start.input_schema["properties"]
            assert {"game_id", "config", "seed", "opponents"} <= set(props)
            assert all(props[name].get("description") for name in ("game_id", "opponents"))
            assert tools["get_turn_state"].output_schema is not None
            assert tools["get_turn_state"].input_schema["properties"]["wait_seconds"]["maximum"] == 60
            resources = {str(r.uri) for r in (await api.client.list_resources()).resources}
            assert {"rules://split_100", "rules://company_car", "rules://auction"} <= resources
            rules = await api.client.read_resource("rules://split_100")
            assert "alternating" in rules.contents[0].text
            prompt = await api.client.get_prompt("how_to_play", {"game_id": "auction"})
            text = prompt.messages[0].content.text
            assert "get_turn_state" in text and "sealed" in text and "concession" in text

    async def test_every_tool_is_its_catalogue_entry(self) -> None:
        """tools/list is made from the catalogue: input schema = request model (as clients read it, see
        AbsentNotNull), output = answer model."""
        async with in_memory() as (_, api):
            tools = {t.name: t for t in (await api.client.list_tools()).tools}
        assert set(tools) == {*OPERATIONS, "ping"}
        for name, operation in OPERATIONS.items():
            assert tools[name].description == operation.description
            assert tools[name].input_schema == operation.request.model_json_schema(schema_generator=AbsentNotNull), name
            assert tools[name].output_schema == operation.answer.model_json_schema(mode="serialization"), name
            assert tools[name].input_schema["additionalProperties"] is False

    async def test_results_are_structured_and_readable_as_text(self) -> None:
        async with in_memory() as (_, api):
            result = await raw_call(api.client, "list_games")
            assert not result.is_error
            assert json.loads(result.content[0].text) == result.structured_content
            assert "split_100" in {g["id"] for g in result.structured_content["games"]}

    @pytest.mark.parametrize("game", ["split_100", "company_car", "auction"])
    async def test_a_whole_match_through_mcp_equals_the_in_process_one(self, game: str) -> None:
        seats = 3 if game == "auction" else 2
        agents = lambda: [ConcessionAgent(seed=i, name=f"c{i}") for i in range(seats)]  # noqa: E731
        async with in_memory() as (_, api):
            through_mcp = await play_match(api, game, agents(), seed=12)
        direct = await play_match(Arena(), game, agents(), seed=12)
        assert through_mcp["payoffs"] == direct["payoffs"]
        assert without_match_ids(through_mcp["events"]) == without_match_ids(direct["events"])

    async def test_one_client_plays_alone_against_built_in_opponents(self) -> None:
        async with in_memory() as (arena, api):
            me = await api.start_game("split_100", seed=3, name="me", opponents=["concession"])
            assert me["opponents"] == ["concession"]
            seat = SeatHandle(BatnaAwareAgent(name="me"), me["agent_id"], me["token"])
            await asyncio.wait_for(run_seat(api, me["match_id"], seat, wait_seconds=5), timeout=30)
            result = await api.get_result(me["match_id"])
            assert result["status"] == "finished" and set(result["payoffs"]) == {"me", "concession"}
            assert result == {**await arena.get_result(me["match_id"])}

    async def test_wait_blocks_until_it_is_your_turn(self) -> None:
        async with in_memory() as (_, api):
            a = await api.start_game("split_100", seed=1, name="a")
            b = await api.join_game(a["match_id"], name="b")
            first = await api.get_turn_state(a["match_id"], b["token"])
            cursor = first["cursor"]
            assert "SPLIT $100" in first["prompt"]
            assert "prompt" not in await api.get_turn_state(a["match_id"], b["token"], include_prompt=False)

            async def a_moves() -> None:
                await asyncio.sleep(0.3)
                await api.perform_action(a["match_id"], a["token"], "propose", {"mine": 55})

            started = time.monotonic()
            mover = asyncio.create_task(a_moves())
            state = await api.get_turn_state(a["match_id"], b["token"], since=cursor, wait_seconds=10)
            await mover
            assert state["your_turn"] and 0.25 < time.monotonic() - started < 5


class TestErrors:
    async def test_each_error_code_is_a_tool_error_with_code_and_message(self) -> None:
        async with in_memory() as (_, api):
            c = api.client

            async def code_of(tool: str, **args: Any) -> str:
                result = await raw_call(c, tool, **args)
                assert result.is_error
                body = json.loads(result.content[0].text)
                assert result.structured_content is None and body["error"]["message"]
                assert "Traceback" not in result.content[0].text
                return str(body["error"]["code"])

            assert await code_of("get_game_rules", game_id="chess") == "unknown_game"
            assert await code_of("start_game", game_id="split_100", config={"rounds": 0}) == "invalid_config"
            assert await code_of("start_game", game_id="split_100", opponents=["nobody"]) == "invalid_argument"
            assert await code_of("join_game", match_id="nope") == "unknown_match"
            a = await api.start_game("auction", seed=2, name="a")
            mid = a["match_id"]
            assert await code_of("perform_action", match_id=mid, token=a["token"], action_type="done") == "not_started"
            b = await api.join_game(mid, name="b")
            c3 = await api.join_game(mid, name="c")
            assert await code_of("join_game", match_id=mid) == "match_full"
            assert await code_of("get_turn_state", match_id=mid, token="forged") == "forbidden"
            assert (
                await code_of(
                    "perform_action", match_id=mid, token=a["token"], action_type="bid", payload={"amount": 3}
                )
                == "phase_closed"
            )
            assert (
                await code_of("perform_action", match_id=mid, token=a["token"], action_type="fly") == "unknown_action"
            )
            assert (
                await code_of("send_private_message", match_id=mid, token=a["token"], to=["zed"], content="hi")
                == "unknown_recipient"
            )
            assert (
                await code_of("send_public_message", match_id=mid, token=a["token"], content="x" * 501)
                == "message_too_long"
            )
            for i in range(3):
                await api.send_public_message(mid, a["token"], f"m{i}")
            assert await code_of("send_public_message", match_id=mid, token=a["token"], content="m4") == "limit_reached"
            await api.perform_action(mid, b["token"], "done")
            await api.perform_action(mid, c3["token"], "done")
            assert (
                await code_of(
                    "perform_action", match_id=mid, token=a["token"], action_type="bid", payload={"amount": -5}
                )
                == "invalid_payload"
            )
            await api.perform_action(mid, a["token"], "bid", {"amount": 5})
            assert (
                await code_of(
                    "perform_action", match_id=mid, token=a["token"], action_type="bid", payload={"amount": 6}
                )
                == "not_your_turn"
            )
            s = await api.start_game("split_100", seed=1, name="x")
            await api.join_game(s["match_id"], name="y")
            assert (
                await code_of("perform_action", match_id=s["match_id"], token=s["token"], action_type="accept")
                == "invalid_action"
            )

    async def test_bad_argument_types_are_tool_errors_not_crashes(self) -> None:
        async with in_memory() as (_, api):
            result = await raw_call(api.client, "get_turn_state", match_id=["not", "a", "string"], token=5)
            assert result.is_error and "Traceback" not in result.content[0].text
            assert not (await raw_call(api.client, "list_games")).is_error  # the server is still fine

    async def test_a_token_cannot_act_for_or_read_another_seat(self) -> None:
        async with in_memory() as (arena, api):
            a = await api.start_game("auction", seed=5, name="a")
            b = await api.join_game(a["match_id"], name="b")
            await api.join_game(a["match_id"], name="c")
            state_b = await api.get_turn_state(a["match_id"], b["token"])
            assert state_b["agent_id"] == "b"
            values = arena.held(a["match_id"]).match.game.game_data["values"]  # type: ignore[union-attr]
            assert state_b["view"]["your_value"] == values["b"]
            assert f'"your_value": {values["a"]}' not in json.dumps(state_b) or values["a"] == values["b"]
            await api.perform_action(a["match_id"], b["token"], "done")
            log = arena.events(a["match_id"])
            assert [e["actor"] for e in log if e["kind"] == "action"] == ["b"]  # b's token acted for b only
            other = await api.start_game("split_100", name="z")
            with pytest.raises(NegotiationError) as info:
                await api.perform_action(other["match_id"], b["token"], "propose", {"mine": 1})
            assert info.value.code is ErrorCode.FORBIDDEN

    async def test_private_message_reaches_only_its_recipients(self) -> None:
        async with in_memory() as (_, api):
            a = await api.start_game("auction", seed=5, name="a")
            b = await api.join_game(a["match_id"], name="b")
            c = await api.join_game(a["match_id"], name="c")
            await api.send_private_message(a["match_id"], a["token"], ["c"], "just you and me")
            seen = {}
            for name, seat in (("a", a), ("b", b), ("c", c)):
                events = (await api.get_turn_state(a["match_id"], seat["token"]))["events"]
                seen[name] = [e["data"]["content"] for e in events if e["kind"] == "message"]
            assert seen == {"a": ["just you and me"], "b": [], "c": ["just you and me"]}


async def test_stdio_subprocess_plays_a_whole_match() -> None:
    agents = lambda: [ConcessionAgent(name="x"), RandomAgent(seed=4, name="y")]  # noqa: E731
    async with Client(stdio_server_parameters()) as client:
        api = McpArena(client)
        assert {t.name for t in (await client.list_tools()).tools} >= TOOLS
        through_stdio = await play_match(api, "company_car", agents(), seed=21)
        with pytest.raises(NegotiationError) as info:
            await api.get_turn_state("missing", "token")
        assert info.value.code is ErrorCode.UNKNOWN_MATCH
    direct = await play_match(Arena(), "company_car", agents(), seed=21)
    assert through_stdio["payoffs"] == direct["payoffs"] and through_stdio["terms"] == direct["terms"]


class TestHttp:
    @pytest.mark.parametrize("game", ["split_100", "company_car"])
    async def test_two_independent_clients_play_a_whole_match(self, http_server: str, game: str) -> None:
        async with Client(http_server) as first_client, Client(http_server) as second_client:
            first, second = McpArena(first_client), McpArena(second_client)
            a = await first.start_game(game, seed=8, name="alice")
            b = await second.join_game(a["match_id"], name="bob")
            await asyncio.wait_for(
                asyncio.gather(
                    run_seat(
                        first,
                        a["match_id"],
                        SeatHandle(BatnaAwareAgent(name="alice"), a["agent_id"], a["token"]),
                        wait_seconds=5,
                    ),
                    run_seat(
                        second,
                        a["match_id"],
                        SeatHandle(ConcessionAgent(name="bob"), b["agent_id"], b["token"]),
                        wait_seconds=5,
                    ),
                ),
                timeout=60,
            )
            result = await first.get_result(a["match_id"])
            seen = {
                e["seq"]: e
                for seat, api in ((a, first), (b, second))
                for e in (await api.get_turn_state(a["match_id"], seat["token"]))["events"]
            }
        assert result["status"] == "finished"
        events = [seen[s] for s in sorted(seen)]
        assert replayed_result(game, ["alice", "bob"], events, result["seed"], result["config"]) == result["payoffs"]
        final = next(e for e in events if e["kind"] == "match_ended")["data"]["result"]
        assert final["final_scores"] == result["payoffs"]

    async def test_dns_rebinding_protection_refuses_foreign_hosts(self, http_server: str) -> None:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        async with httpx2.AsyncClient() as http:
            refused = await http.post(
                http_server,
                json=body,
                headers={"Host": "evil.example:80", "Accept": "application/json, text/event-stream"},
            )
        assert refused.status_code == 421

    async def test_cli_play_via_http(self, http_server: str) -> None:
        done = await asyncio.to_thread(
            subprocess.run,
            [
                sys.executable,
                "-m",
                "negotiation_platform.cli.main",
                "play",
                "split_100",
                "--seed",
                "7",
                "--json",
                "--via",
                http_server,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        direct = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "negotiation_platform.cli.main", "play", "split_100", "--seed", "7", "--json"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        via = {agent.replace("-client", ""): pay for agent, pay in json.loads(done.stdout)["payoffs"].items()}
        assert via == json.loads(direct.stdout)["payoffs"]  # the same match; a client's seats are NAME-client
