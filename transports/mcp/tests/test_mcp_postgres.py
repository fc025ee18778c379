"""Two `serve mcp` processes over one PostgreSQL database (a throwaway cluster, see `postgres_url`):
they play matches at the same time, each lists every result, reads work on either, and a change
sent to the process that does not own a match is refused with `wrong_owner` naming the owner."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

import pytest
from mcp import Client
from mcp_servers import free_port, start_mcp_server

from negotiation_mcp.client import McpArena
from negotiation_platform.agents import ConcessionAgent, RandomAgent, play_match
from negotiation_platform.errors import ErrorCode, NegotiationError

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_two_arena_processes_share_one_catalogue(postgres_url: str) -> None:
    ports = [free_port(), free_port()]
    servers = [start_mcp_server(port, "--store", postgres_url, "--instance", f"arena-{port}") for port in ports]
    try:
        async with AsyncExitStack() as stack:
            one, two = [
                McpArena(await stack.enter_async_context(Client(f"http://127.0.0.1:{port}/mcp"))) for port in ports
            ]
            games = ["split_100", "company_car", "auction"]

            def agents(game: str, seed: int) -> list[ConcessionAgent | RandomAgent]:
                seats = 3 if game == "auction" else 2
                return [
                    ConcessionAgent(name=f"c{i}") if i % 2 else RandomAgent(seed=seed, name=f"r{i}")
                    for i in range(seats)
                ]

            played = await asyncio.wait_for(
                asyncio.gather(
                    *(
                        play_match(api, game, agents(game, seed), seed=seed)
                        for api in (one, two)
                        for seed, game in enumerate(games)
                    )
                ),
                timeout=120,
            )
            finished = {result["match_id"] for result in played}
            assert len(finished) == 6
            for api in (one, two):
                listed = await api.list_matches(status="finished")
                assert {m["match_id"] for m in listed["matches"]} == finished
                for result in played:
                    assert (await api.get_result(result["match_id"]))["payoffs"] == result["payoffs"]

            me = await one.start_game("split_100", seed=1, name="me", opponents=["concession"])
            state = await two.get_turn_state(me["match_id"], me["token"], wait_seconds=5)  # read on the other process
            assert state["your_turn"] and state["agent_id"] == "me"
            with pytest.raises(NegotiationError) as refused:
                await two.perform_action(me["match_id"], me["token"], "propose", {"mine": 60})
            assert refused.value.code is ErrorCode.WRONG_OWNER
            assert refused.value.details == {"owner": f"arena-{ports[0]}"}
            await one.perform_action(me["match_id"], me["token"], "propose", {"mine": 60})
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
