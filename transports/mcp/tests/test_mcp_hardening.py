"""A served arena against a hostile or careless client, over MCP to a real server subprocess on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_servers import free_port, mcp_server

from negotiation_mcp.client import McpArena, stdio_server_parameters
from negotiation_mcp.server import build_server
from negotiation_platform.arena import Arena
from negotiation_platform.engine import Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry

pytestmark = pytest.mark.anyio
SERVE_HTTP = [sys.executable, "-m", "negotiation_platform.cli.main", "serve", "mcp", "--transport", "http"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def api_for(url: str) -> AsyncIterator[McpArena]:
    async with Client(url) as client:
        yield McpArena(client)


async def refused(code: ErrorCode, awaitable: Any) -> NegotiationError:
    with pytest.raises(NegotiationError) as info:
        await awaitable
    assert info.value.code is code, info.value
    return info.value


async def wait_finished(api: McpArena, match_id: str, token: str, seconds: float = 30) -> dict[str, Any]:
    give_up = time.monotonic() + seconds
    while time.monotonic() < give_up:
        state = await api.get_turn_state(match_id, token, wait_seconds=2)
        if state["status"] == "finished":
            return state
    raise AssertionError("the match did not finish")


def local_view(game_id: str, players: list[str], seed: int, agent_id: str) -> dict[str, Any]:
    """What a seat's view would be if the match were built here from `seed`."""
    match = Match(Registry().game(game_id).cls, players, seed=seed)
    view: dict[str, Any] = match.game.get_player_view(agent_id)
    return view


class TestSeeds:
    async def test_a_chosen_seed_does_not_reproduce_the_draws_and_stays_hidden_until_the_end(
        self, shared_mcp_url: str
    ) -> None:
        # The opponent is a second client that only reads: nobody moves, so both views stay in round 1.
        with nullcontext(shared_mcp_url) as url:  # the session's server: this test reads only its matches
            async with api_for(url) as api, api_for(url) as opponent:
                differed = 0
                for _ in range(4):
                    me = await api.start_game("deal_or_no_deal", seed=7, name="me")
                    mid = me["match_id"]
                    you = await opponent.join_game(mid, name="you")
                    state = await api.get_turn_state(mid, me["token"])
                    theirs = (await opponent.get_turn_state(mid, you["token"]))["view"]["your_values"]
                    listed = (await api.list_matches())["matches"]
                    assert "seed" not in json.dumps([me, you, state, listed])
                    assert (await api.get_result(mid)).get("seed") is None
                    players, mine = state["players"], state["view"]["your_values"]
                    rebuilt = local_view("deal_or_no_deal", players, 7, "you")["your_values"]
                    differed += (
                        theirs != rebuilt or mine != local_view("deal_or_no_deal", players, 7, "me")["your_values"]
                    )
                    await api.leave_game(mid, me["token"])
                    await opponent.leave_game(mid, you["token"])
                    await wait_finished(api, mid, me["token"])
                    result = await api.get_result(mid)
                    # the seed used is revealed once the match is over, and it is the true one
                    assert local_view("deal_or_no_deal", players, result["seed"], "me")["your_values"] == mine
                    assert local_view("deal_or_no_deal", players, result["seed"], "you")["your_values"] == theirs
        assert differed >= 3

    async def test_a_reproducible_server_draws_from_the_seed(self) -> None:
        async with Client(stdio_server_parameters()) as client:
            api = McpArena(client)
            me = await api.start_game("deal_or_no_deal", seed=7, name="me", opponents=["concession"])
            state = await api.get_turn_state(me["match_id"], me["token"])
        expected = local_view("deal_or_no_deal", state["players"], 7, "me")["your_values"]
        assert state["view"]["your_values"] == expected


class TestRemoteAgents:
    async def test_remote_opponents_only_under_an_allowed_prefix_and_nothing_is_fetched(self) -> None:
        allowed = free_port()
        with socket.socket() as trap, mcp_server("--allow-remote-agent", f"http://127.0.0.1:{allowed}/a2a") as url:
            trap.bind(("127.0.0.1", 0))
            trap.listen()
            trap.settimeout(0.5)
            trap_url = f"http://127.0.0.1:{trap.getsockname()[1]}"
            async with api_for(url) as api:
                for target in (
                    trap_url,
                    f"http://127.0.0.1:{allowed}/elsewhere",
                    f"http://127.0.0.1:{allowed}@127.0.0.1:{trap.getsockname()[1]}/a2a",
                    f"https://127.0.0.1:{allowed}/a2a",
                ):
                    await refused(ErrorCode.FORBIDDEN, api.start_game("split_100", opponents=[f"a2a:{target}"]))
                assert (await api.list_matches())["matches"] == []
                ok = await api.start_game("split_100", name="me", opponents=[f"a2a:http://127.0.0.1:{allowed}/a2a"])
                assert ok["opponents"] == ["a2a"]
            with pytest.raises(TimeoutError):
                trap.accept()

    async def test_remote_opponents_are_off_by_default(self, shared_mcp_url: str) -> None:
        with nullcontext(shared_mcp_url) as url:  # the session's server: this test reads only its matches
            async with api_for(url) as api:
                err = await refused(
                    ErrorCode.FORBIDDEN, api.start_game("split_100", opponents=["a2a:http://127.0.0.1:9"])
                )
                assert "--allow-remote-agent" in err.message


class TestClocksAndLeaving:
    async def test_a_silent_seat_gets_its_default_move_when_its_turn_clock_runs_out(self) -> None:
        with mcp_server("--turn-timeout", "0.5") as url:
            async with api_for(url) as api:
                me = await api.start_game("company_car", name="me", opponents=["concession"])
                started = time.monotonic()
                final = await wait_finished(api, me["match_id"], me["token"], seconds=60)
                assert time.monotonic() - started < 40
                timeouts = [e for e in final["events"] if e["kind"] == "timeout"]
                assert timeouts and all(e["data"]["reason"] == "turn clock: no move within 0.5 s" for e in timeouts)
                assert {p for e in timeouts for p in e["data"]["players"]} == {"me"}

    async def test_leave_game_resigns_the_seat_and_the_match_ends(self, shared_mcp_url: str) -> None:
        with nullcontext(shared_mcp_url) as url:  # the session's server: this test reads only its matches
            async with api_for(url) as api:
                me = await api.start_game("company_car", name="me", opponents=["concession"])
                mid = me["match_id"]
                assert (await api.leave_game(mid, me["token"]))["ok"] is True
                await refused(ErrorCode.FORBIDDEN, api.perform_action(mid, me["token"], "accept", {}))
                final = await wait_finished(api, mid, me["token"])
                reasons = {e["data"]["reason"] for e in final["events"] if e["kind"] == "timeout"}
                assert reasons == {"left the match"}
                await refused(ErrorCode.MATCH_OVER, api.leave_game(mid, me["token"]))
                waiting = await api.start_game("split_100", name="alone")
                assert (await api.leave_game(waiting["match_id"], waiting["token"]))["status"] == "abandoned"
                await refused(ErrorCode.UNKNOWN_MATCH, api.join_game(waiting["match_id"]))


class TestHugeNumbers:
    async def test_a_huge_bid_is_refused_and_the_auction_finishes(self, shared_mcp_url: str) -> None:
        with nullcontext(shared_mcp_url) as url:  # the session's server: this test reads only its matches
            async with api_for(url) as api:
                seats = [await api.start_game("auction", name="ann")]
                mid = seats[0]["match_id"]
                seats += [await api.join_game(mid, name=name) for name in ("bob", "cy")]
                for seat in seats:
                    await api.perform_action(mid, seat["token"], "done", {})
                # beyond what a JavaScript client holds: the boundary refuses it before the game sees it
                err = await refused(
                    ErrorCode.INVALID_ARGUMENT,
                    api.perform_action(mid, seats[0]["token"], "bid", {"amount": 2**1024 - 1}),
                )
                assert err.details["field"] == "payload.amount" and "2^53" in err.message
                err = await refused(
                    ErrorCode.INVALID_PAYLOAD, api.perform_action(mid, seats[0]["token"], "bid", {"amount": 2**40})
                )
                assert "amount" in err.message and "100" in err.message  # the bound: the largest value
                state = await api.get_turn_state(mid, seats[0]["token"])
                assert state["your_turn"] and state["status"] == "running"
                for seat, amount in zip(seats, (3, 5, 7), strict=True):
                    await api.perform_action(mid, seat["token"], "bid", {"amount": amount})
                result = await api.get_result(mid)
                assert result["status"] == "finished"
                assert result["terms"]["winner"] == "cy" and result["terms"]["price"] == 7


class TestLimits:
    async def test_waiting_and_live_matches_are_limited_and_finished_ones_evicted(self) -> None:
        flags = ("--max-waiting-per-caller", "2", "--max-live-matches", "4", "--max-live-per-caller", "4")
        flags += ("--finished-ttl", "0.5")
        with mcp_server(*flags) as url:
            async with api_for(url) as api:
                limits = (await api.list_matches())["limits"]
                assert limits["max_waiting_per_caller"] == 2 and limits["finished_ttl_seconds"] == 0.5
                running = await api.start_game("split_100", name="me", opponents=["concession"])
                first = await api.start_game("split_100")
                second = await api.start_game("split_100")
                err = await refused(ErrorCode.LIMIT_REACHED, api.start_game("split_100"))
                assert err.details == {"limit": "max_waiting_per_caller"}
                await api.join_game(second["match_id"])  # no longer waiting: live 3, waiting 1
                await api.start_game("split_100", opponents=["concession"])
                err = await refused(ErrorCode.LIMIT_REACHED, api.start_game("split_100"))
                assert err.details == {"limit": "max_live_matches"}
                assert len((await api.list_matches())["matches"]) == 4  # refusals created nothing
                await api.leave_game(first["match_id"], first["token"])  # frees a slot
                await api.leave_game(running["match_id"], running["token"])
                await wait_finished(api, running["match_id"], running["token"])
                await asyncio.sleep(0.6)
                ids = {m["match_id"] for m in (await api.list_matches())["matches"]}
                assert running["match_id"] not in ids and first["match_id"] not in ids and len(ids) == 2
                await refused(ErrorCode.UNKNOWN_MATCH, api.get_result(running["match_id"]))
                await api.start_game("split_100")

    async def test_one_caller_cannot_fill_the_server_and_leaving_gives_its_count_back(self) -> None:
        # issue 26, defect 8: one caller started 30 matches against house opponents, never played,
        # and every other caller was refused for hours
        with mcp_server("--max-live-matches", "30") as url:
            async with api_for(url) as hog, legacy_api(url) as other:
                limits = (await hog.list_matches())["limits"]
                assert (limits["max_live_per_caller"], limits["max_live_per_address"]) == (3, 7)
                held = [await hog.start_game("split_100", opponents=["concession"]) for _ in range(3)]
                err = await refused(ErrorCode.LIMIT_REACHED, hog.start_game("split_100", opponents=["concession"]))
                assert err.details == {"limit": "max_live_per_caller"}
                # another caller (its own MCP session) is not locked out, up to its address's share
                for _ in range(3):
                    await other.start_game("split_100", opponents=["concession"])
                await hog.leave_game(held[0]["match_id"], held[0]["token"])  # its turns are now default moves
                await hog.start_game("auction", opponents=["concession", "concession"])  # a house seat is nobody's
                err = await refused(ErrorCode.LIMIT_REACHED, other.start_game("split_100"))
                assert err.details == {"limit": "max_live_per_caller"}

    async def test_sessions_of_one_address_share_its_bound(self) -> None:
        with mcp_server("--max-live-per-caller", "2", "--max-live-per-address", "3") as url:
            async with legacy_api(url) as one, legacy_api(url) as two:
                for api in (one, two, one):
                    await api.start_game("split_100", opponents=["concession"])
                err = await refused(ErrorCode.LIMIT_REACHED, two.start_game("split_100", opponents=["concession"]))
                assert err.details == {"limit": "max_live_per_address"}

    async def test_house_seats_are_never_waited_for_and_a_shared_token_is_not_one_caller(self, tmp_path: Any) -> None:
        # issue 26, defect 9: 29 of 40 concurrent start_game(opponents=["concession"]) calls were
        # refused "10 matches waiting", and every client of --auth-token-file counted as one caller
        token_file = tmp_path / "token"
        token_file.write_text("s3cret\n")
        with mcp_server("--auth-token-file", str(token_file)) as url:
            async with legacy_api(url, "s3cret") as one, legacy_api(url, "s3cret") as two:
                started = await asyncio.gather(
                    *(one.start_game("split_100", opponents=["concession"]) for _ in range(40))
                )
                assert len({s["match_id"] for s in started}) == 40
                for _ in range(10):
                    await one.start_game("split_100")  # waiting for a second client, ten allowed
                err = await refused(ErrorCode.LIMIT_REACHED, one.start_game("split_100"))
                assert err.details == {"limit": "max_waiting_per_caller"}
                await two.start_game("split_100")  # same token and address, its own session


@asynccontextmanager
async def legacy_api(url: str, token: str | None = None) -> AsyncIterator[McpArena]:
    """A client in the handshake era of MCP, whose calls carry its own `mcp-session-id`."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        yield McpArena(client)


class TestStrictArguments:
    async def test_every_refusal_is_structured_and_arguments_are_not_coerced(self) -> None:
        with mcp_server() as url:
            async with Client(url) as client:

                async def error_of(tool: str, **args: Any) -> dict[str, Any]:
                    result = await client.call_tool(tool, args)
                    assert result.is_error
                    body = json.loads(result.content[0].text)  # type: ignore[union-attr]
                    assert result.structured_content is None  # it would not match the output schema
                    error: dict[str, Any] = body["error"]
                    assert set(error) <= {"code", "message", "details"} and error["message"]
                    return error

                assert (await error_of("fly_away"))["code"] == "unknown_operation"
                me = await McpArena(client).start_game("split_100", name="me", opponents=["concession"])
                seat = {"match_id": me["match_id"], "token": me["token"]}
                cases: list[tuple[str, dict[str, Any]]] = [
                    ("start_game", {"game_id": "split_100", "seed": "5"}),
                    ("start_game", {"game_id": "split_100", "seed": True}),
                    ("start_game", {"game_id": 5}),
                    ("start_game", {}),
                    ("start_game", {"game_id": "split_100", "surprise": 1}),
                    ("get_turn_state", {**seat, "since": True}),
                    ("get_turn_state", {**seat, "wait_seconds": "5"}),
                    ("perform_action", {**seat, "action_type": "propose", "payload": "{}"}),
                    ("list_matches", {"extra": None}),
                ]
                for tool, args in cases:
                    error = await error_of(tool, **args)
                    assert error["code"] == "invalid_argument", (tool, args, error)
                assert (await error_of("start_game", game_id="split_100", surprise=1))["details"] == {
                    "unknown": ["surprise"]
                }
                assert (await McpArena(client).list_matches())["matches"][0]["seats"]["filled"] == 2


class TestExposure:
    async def test_a_bearer_token_from_the_environment_guards_every_request(self) -> None:
        with mcp_server(env={**os.environ, "NEGOTIATION_AUTH_TOKEN": "s3cret"}) as url:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
            async with httpx2.AsyncClient() as http:
                for headers in ({}, {"Authorization": "Bearer nope"}):
                    answer = await http.post(url, json=body, headers=headers)
                    assert answer.status_code == 401 and answer.json()["error"]["code"] == "forbidden"
            async with (
                httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"}) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                assert "split_100" in {g["id"] for g in (await McpArena(client).list_games())["games"]}

    async def test_an_invalid_port_is_one_clear_line_and_a_wide_bind_without_token_warns(self) -> None:
        done = subprocess.run(
            [*SERVE_HTTP, "--port", "99999"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode != 0
        # the command line refuses a port outside 1..65535 before the transport tries to bind it
        assert done.stderr.strip().splitlines() == [
            "negotiation-platform serve: --port must be between 1 and 65535, got 99999"
        ]
        port = free_port()
        proc = subprocess.Popen(
            [*SERVE_HTTP, "--host", "0.0.0.0", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stderr is not None
            banner = proc.stderr.readline()
            warning = proc.stderr.readline()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        assert banner.strip() == f"negotiation-platform MCP server on http://0.0.0.0:{port}/mcp"
        assert warning.startswith("warning: listening on 0.0.0.0 without an auth token")


async def test_how_to_play_names_the_remote_opponent_form_and_leave_game_is_a_tool() -> None:
    async with Client(build_server(Arena())) as client:
        prompt = await client.get_prompt("how_to_play", {})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        opponents = text.split("Opponents for start_game: ")[1]
        assert "a2a:URL" in opponents and "a2a," not in opponents
        assert "concession" in opponents and "policy" not in opponents  # a served arena seats no trained policy
        assert "leave_game" in {t.name for t in (await client.list_tools()).tools}


async def test_deadline_seconds_tells_a_seat_when_its_turn_clock_plays_the_default_move() -> None:
    with mcp_server("--turn-timeout", "30") as url:
        async with api_for(url) as api:
            started = await api.start_game("split_100", name="alice")
            joined = await api.join_game(started["match_id"], name="bob")
            tokens = {"alice": started["token"], "bob": joined["token"]}
            state = await api.get_turn_state(started["match_id"], started["token"])
            (acting,) = state["acting"]
            mine = await api.get_turn_state(started["match_id"], tokens[acting])
            assert 25 < mine["deadline_seconds"] <= 30  # split_100's phase has no clock: this is the turn clock
            other = "bob" if acting == "alice" else "alice"
            assert (await api.get_turn_state(started["match_id"], tokens[other]))["deadline_seconds"] is None
