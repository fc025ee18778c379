"""A2A callers and seat contexts against real `serve a2a` subprocesses on 127.0.0.1: a context is a
caller of its own for the limits (its address bounds them all), and a seat's context is kept in the
store, so it goes on after kill -9 and a restart, and on another process sharing PostgreSQL (with a
peer secret, even a seat taken through a process that does not hold its match)."""

from __future__ import annotations

import asyncio
import signal
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a_servers import a2a_server, exact, free_port, in_context, json_rpc

from negotiation_a2a.client import A2aArena, connect
from negotiation_platform.errors import ErrorCode, NegotiationError
from tests.cli_servers import server_log, start_cli_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def play_out(api: A2aArena) -> dict[str, Any]:
    """Play a split_100 seat to the end with its context alone (no match_id, no token); the result."""
    while True:
        state = await api.call("get_turn_state", wait_seconds=5)
        if state["status"] == "finished":
            return await api.call("get_result")
        if state["your_turn"]:
            offer = state["view"]["standing_offer"]
            await api.call(
                "perform_action", action_type="accept" if offer else "propose", payload={} if offer else {"mine": 60}
            )


async def limit_of(call: Any) -> str:
    with pytest.raises(NegotiationError) as info:
        await call
    assert info.value.code is ErrorCode.LIMIT_REACHED, info.value
    return str(info.value.details["limit"])


class TestCallers:
    async def test_each_context_is_a_caller_and_its_address_bounds_them_all(self) -> None:
        # issue 26, defect 9: the caller is the A2A context (with its address), not the address alone
        with a2a_server("--max-waiting-per-caller", "1", "--max-live-per-address", "3") as (base, _):
            async with in_context(base, "context-one") as one, in_context(base, "context-two") as two:
                await one.start_game("split_100")
                await two.start_game("split_100")  # another context of the same address: its own count
                one.context_id = "context-one"  # start_game moved the client into its seat's context
                assert await limit_of(one.start_game("split_100")) == "max_waiting_per_caller"
            async with connect(base) as fresh:  # a context made up for this call: still the same address
                await fresh.start_game("split_100", opponents=["concession"])
                assert await limit_of(fresh.start_game("split_100", opponents=["concession"])) == (
                    "max_live_per_address"
                )


class TestReplyContexts:
    """issue 27: a new seat's answer came in the request's context while the seat lived in another, so
    a client continuing in the reply's context (as A2A clients do) was refused `missing match_id, token`."""

    async def test_a_hand_written_client_continues_in_the_reply_context_even_after_a_restart(
        self, tmp_path: Path
    ) -> None:
        store = str(tmp_path / "a2a.db")
        start = {"operation": "start_game", "arguments": {"game_id": "split_100", "name": "me"}}
        turn_state: dict[str, Any] = {"operation": "get_turn_state", "arguments": {}}
        with a2a_server("--store", store) as (base, _):
            url = f"{base}/a2a/jsonrpc"
            async with httpx.AsyncClient() as http:
                reply = await json_rpc(http, url, start, "chosen-by-the-client")
                started = exact(reply)
                assert reply["contextId"] == started["context_id"] != "chosen-by-the-client"
                join = {"operation": "join_game", "arguments": {"match_id": started["match_id"], "name": "you"}}
                joined_reply = await json_rpc(http, url, join)
                assert joined_reply["contextId"] == exact(joined_reply)["context_id"]
                state = exact(await json_rpc(http, url, turn_state, reply["contextId"]))
                assert (state["match_id"], state["agent_id"]) == (started["match_id"], "me")
                refused = exact(await json_rpc(http, url, turn_state, "chosen-by-the-client"))
                assert refused["error"]["code"] == "invalid_argument"  # a client's own context carries no seat
        with a2a_server("--store", store) as (base, _):
            async with httpx.AsyncClient() as http:
                state = exact(await json_rpc(http, f"{base}/a2a/jsonrpc", turn_state, joined_reply["contextId"]))
            assert (state["match_id"], state["agent_id"]) == (started["match_id"], "you")

    async def test_the_projects_client_follows_the_reply_context_through_a_whole_match(
        self, shared_a2a_base: str
    ) -> None:
        with nullcontext(shared_a2a_base) as base:  # the session's server: this test reads only its match
            async with connect(base) as me:
                started = await me.start_game("split_100", name="me", opponents=["concession"])
                assert me.context_id == started["context_id"]
                result = await play_out(me)
            assert result["status"] == "finished" and result["match_id"] == started["match_id"]


class TestSeatContexts:
    async def test_a_seat_context_goes_on_after_kill_9_and_a_restart(self, tmp_path: Path) -> None:
        # issue 26, defect 11: context ids were kept in memory only
        store = str(tmp_path / "a2a.db")
        with a2a_server("--store", store, "--instance", "arena") as (base, proc):
            async with connect(base) as me:
                started = await me.start_game("split_100", seed=3, name="me", opponents=["concession"])
                context = me.context_id
                await me.call("get_turn_state")
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        with a2a_server("--store", store, "--instance", "arena") as (base, _):
            async with in_context(base, context) as again:
                state = await again.call("get_turn_state")
                assert (state["match_id"], state["agent_id"]) == (started["match_id"], "me")
                result = await play_out(again)
                assert result["status"] == "finished" and result["match_id"] == started["match_id"]
            async with in_context(base, context[:-1] + ("A" if context[-1] != "A" else "B")) as forged:
                with pytest.raises(NegotiationError) as info:
                    await forged.call("get_turn_state")
                assert info.value.code is ErrorCode.INVALID_ARGUMENT  # carries no seat: match_id, token missing

    async def test_a_seat_context_works_on_another_process_sharing_postgresql(self, postgres_url: str) -> None:
        flags = ("--store", postgres_url, "--lease-seconds", "1")
        with (
            a2a_server(*flags, "--instance", "one") as (one, proc),
            a2a_server(*flags, "--instance", "two") as (two, _),
        ):
            async with connect(one) as me:
                started = await me.start_game("split_100", name="me", opponents=["concession"])
                context = me.context_id
            async with in_context(two, context) as elsewhere:
                state = await elsewhere.call("get_turn_state")  # reads work on any process
                assert (state["match_id"], state["agent_id"]) == (started["match_id"], "me")
                proc.send_signal(signal.SIGKILL)  # the owner dies: the other adopts the match once its lease ends
                proc.wait(timeout=10)
                await asyncio.sleep(1.5)
                result = await play_out(elsewhere)
                assert result["status"] == "finished"

    async def test_with_a_peer_secret_a_seat_taken_on_another_process_plays_on_any_process(
        self, postgres_url: str, tmp_path: Path
    ) -> None:
        secret = tmp_path / "peer-secret"
        secret.write_text("a secret the two processes share")
        ports = [free_port(), free_port()]
        flags = ("--store", postgres_url, "--peer-secret-file", str(secret))
        with ThreadPoolExecutor() as starting:  # both at once: a start is mostly waiting for imports
            servers = list(
                starting.map(
                    lambda p: start_cli_server(p, "serve", "a2a", *flags, "--instance", f"http://127.0.0.1:{p}"), ports
                )
            )
        one, two = [f"http://127.0.0.1:{p}/a2a/jsonrpc" for p in ports]

        async def call(url: str, operation: str, context: str | None = None, **arguments: Any) -> Any:
            return exact(await json_rpc(http, url, {"operation": operation, "arguments": arguments}, context))

        try:
            async with httpx.AsyncClient() as http:
                me = await call(one, "start_game", game_id="split_100", name="me")
                joined = await json_rpc(
                    http, two, {"operation": "join_game", "arguments": {"match_id": me["match_id"]}}
                )
                you = exact(joined)  # taken by the first process, which held the match, and bound to a context there
                assert joined["contextId"] == you["context_id"] and you["context_id"].startswith(me["match_id"] + ".")
                assert (await call(two, "get_turn_state", me["context_id"]))["your_turn"]
                assert (
                    await call(two, "perform_action", me["context_id"], action_type="propose", payload={"mine": 60})
                )["ok"]
                assert (await call(one, "get_turn_state", you["context_id"]))["your_turn"]
                assert (await call(two, "perform_action", you["context_id"], action_type="accept"))["ok"]
                result = await call(two, "get_result", you["context_id"])
                assert (result["status"], result["payoffs"]) == ("finished", {"me": 60, "player_2": 40})
        finally:
            for server in servers:
                server_log(server)
