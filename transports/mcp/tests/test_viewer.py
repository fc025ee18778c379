"""Spectating over a real `serve mcp --transport http` subprocess: the `watch` tool, and the viewer's
pages, API and Server-Sent Events, which must never show a seat's private data of a running match."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp_servers import mcp_server
from viewer_helpers import finished_split, seat_to_act, two_seats

from negotiation_mcp.client import McpArena
from negotiation_platform.errors import ErrorCode, NegotiationError

pytestmark = pytest.mark.anyio
MARKER = "PRIVATE-MARKER-7f3a"
SEALED_BID = 987_654
"""A bid no other number of the match spells (the auction's values are drawn up to a million here)."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """One plain server for the tests that each make their own matches and read only those (and the listing,
    which must hide every match's secrets alike). The stream-bound test and the flagged servers start their own."""
    with mcp_server() as served:
        yield served


async def auction(api: McpArena) -> tuple[str, list[str], list[str]]:
    """A running 3-bidder auction made by one client: its id, agent ids and tokens in seat order."""
    started = await api.start_game("auction", config={"value_high": 1_000_000}, seed=4)
    seats = [started, await api.join_game(started["match_id"]), await api.join_game(started["match_id"])]
    return started["match_id"], [s["agent_id"] for s in seats], [s["token"] for s in seats]


async def everything_a_spectator_gets(base: str, match_id: str) -> str:
    """Every page, API answer (the board at every step too) and the event stream of a match, as one text."""
    async with httpx2.AsyncClient(base_url=base, timeout=30) as http:
        texts = [
            (await http.get(path)).text
            for path in ("/view/", f"/view/match/{match_id}", "/view/api/matches", f"/view/api/matches/{match_id}")
        ]
        cursor = json.loads(texts[-1])["cursor"]
        for at in range(cursor + 1):
            texts.append((await http.get(f"/view/api/matches/{match_id}/panels", params={"at": at})).text)
        texts.append((await http.get(f"/view/api/matches/{match_id}/panels")).text)
        async with http.stream("GET", f"/view/api/matches/{match_id}/stream", params={"since": 0}) as stream:
            async for line in stream.aiter_lines():
                texts.append(line)
                if line.startswith("data:"):
                    break
    return "\n".join(texts)


async def test_watch_waits_for_public_news_and_never_shows_private_messages_or_sealed_bids(url: str) -> None:
    async with Client(url) as client:
        api = McpArena(client)
        match_id, agents, tokens = await auction(api)
        cursor = (await api.watch(match_id))["cursor"]

        waiting = asyncio.create_task(api.watch(match_id, since=cursor, wait_seconds=30))
        await asyncio.sleep(0.5)
        await api.send_private_message(match_id, tokens[0], [agents[1]], MARKER)
        await asyncio.sleep(0.5)
        assert not waiting.done()  # a private message is no news to a spectator
        started = time.monotonic()
        await api.send_public_message(match_id, tokens[1], "Public hello")
        news = await waiting
        assert time.monotonic() - started < 10
        assert [(e["kind"], e["data"]["content"]) for e in news["events"]] == [("message", "Public hello")]

        for token in tokens:
            await api.perform_action(match_id, token, "done", {})
        await api.perform_action(match_id, tokens[0], "bid", {"amount": SEALED_BID})
        bidding = await api.watch(match_id, since=news["cursor"])
        assert bidding["phase"] == "bid" and agents[0] not in bidding["acting"]
        assert all(e["visible_to"] is None for e in bidding["events"])
        whole = json.dumps(await api.watch(match_id))
        assert MARKER not in whole and str(SEALED_BID) not in whole and "your_value" not in whole

        with pytest.raises(NegotiationError) as refusal:
            await api.watch("no-such-match")
        assert refusal.value.code == ErrorCode.UNKNOWN_MATCH


async def test_a_running_match_never_shows_private_values_batnas_messages_or_moves_to_spectators(url: str) -> None:
    base = url.removesuffix("/mcp")
    async with Client(url) as client:
        api = McpArena(client)
        match_id, agents, tokens = await auction(api)
        assert "your_value" in (await api.get_turn_state(match_id, tokens[0]))["view"]
        await api.send_private_message(match_id, tokens[0], [agents[2]], MARKER)
        await api.send_public_message(match_id, tokens[1], "Who bids high?")
        for token in tokens:
            await api.perform_action(match_id, token, "done", {})
        await api.perform_action(match_id, tokens[0], "bid", {"amount": SEALED_BID})

        bargaining, seats = await two_seats(api, "integrative_negotiation", seed=3)
        assert "your_batna" in (await api.get_turn_state(bargaining, next(iter(seats.values()))))["view"]

        seen = await everything_a_spectator_gets(base, match_id) + await everything_a_spectator_gets(base, bargaining)
        assert "Who bids high?" in seen  # the public message is there, so the pages were read
        for secret in (MARKER, str(SEALED_BID), "your_value", "your_batna", "batnas", '"seed"', *tokens):
            assert secret not in seen, secret
        for token in seats.values():
            assert token not in seen

        for token in tokens[1:]:  # the auction ends; the server does not reveal finished matches
            await api.perform_action(match_id, token, "bid", {"amount": 1})
        after = await everything_a_spectator_gets(base, match_id)
        assert '"finished"' in after and str(SEALED_BID) in after  # the sale announces the bids
        assert MARKER not in after


async def test_a_revealing_server_shows_private_events_only_once_the_match_is_over() -> None:
    with mcp_server("--reveal-finished") as url:
        base = url.removesuffix("/mcp")
        async with Client(url) as client:
            api = McpArena(client)
            match_id, agents, tokens = await auction(api)
            await api.send_private_message(match_id, tokens[0], [agents[1]], MARKER)
            assert MARKER not in await everything_a_spectator_gets(base, match_id)
            for token in tokens:
                await api.perform_action(match_id, token, "done", {})
            for amount, token in enumerate(tokens):
                await api.perform_action(match_id, token, "bid", {"amount": 10 + amount})
            after = await everything_a_spectator_gets(base, match_id)
            assert MARKER in after and "private values" in after  # the board shows every bidder's value


async def test_a_stream_ends_with_the_match_and_each_client_holds_a_bounded_number() -> None:
    with mcp_server() as url:
        base = url.removesuffix("/mcp")
        async with Client(url) as client:
            api = McpArena(client)
            match_id, tokens = await two_seats(api, "split_100")
            async with httpx2.AsyncClient(base_url=base, timeout=30) as http:
                path = f"/view/api/matches/{match_id}/stream"
                streams = [http.stream("GET", path, params={"since": 0}) for _ in range(8)]
                opened = [await s.__aenter__() for s in streams]
                refused = await http.get(path)
                assert refused.status_code == 429 and refused.json()["error"]["code"] == "limit_reached"
                for stream in streams[1:]:
                    await stream.__aexit__(None, None, None)

                updates: list[dict[str, Any]] = []

                async def follow() -> None:
                    async for line in opened[0].aiter_lines():
                        if line.startswith("data:"):
                            updates.append(json.loads(line.removeprefix("data:")))

                following = asyncio.create_task(follow())
                _, token = await seat_to_act(api, match_id, tokens)
                await api.perform_action(match_id, token, "walk_away", {})  # the match ends with no deal
                await asyncio.wait_for(following, timeout=20)  # the server closed the stream
                await streams[0].__aexit__(None, None, None)
                assert updates[-1]["status"] == "finished"
                assert updates[-1]["result"]["final_scores"] == dict.fromkeys(tokens, 0.0)


async def test_finished_match_has_an_outcome_chart_and_no_view_turns_the_viewer_off(url: str) -> None:
    base = url.removesuffix("/mcp")
    async with Client(url) as client:
        match_id = await finished_split(McpArena(client))
    async with httpx2.AsyncClient(base_url=base, timeout=60) as http:
        panels = (await http.get(f"/view/api/matches/{match_id}/panels")).json()
        assert "Pareto frontier" in panels["outcome"]
        assert "propose.mine" in panels["offers"]
        assert (await http.get("/view/api/matches/x", params={"since": "-1"})).json()["error"]["code"] == (
            "invalid_argument"
        )
    with mcp_server("--no-view") as url:
        async with httpx2.AsyncClient(base_url=url.removesuffix("/mcp")) as http:
            assert (await http.get("/view/")).status_code == 404
