"""Crash test: `serve mcp --transport http --store FILE` is killed with SIGKILL in the middle of three
matches (one against a house opponent, one between two remote clients, one against a remote A2A
agent), restarted on the same file, and every match is finished with the tokens handed out before
the crash; what each seat saw, and each result, equals the same matches played without a crash."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_servers import free_port, start_mcp_server

from negotiation_mcp.client import McpArena
from negotiation_platform.agents import ConcessionAgent
from negotiation_platform.agents.driver import SeatHandle, take_turn
from tests.cli_servers import cli_server

pytest.importorskip("negotiation_a2a")
pytestmark = pytest.mark.anyio
TURNS_BEFORE_CRASH = 2


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def remote_a2a_agent() -> Iterator[str]:
    """`agent serve concession` (a remote A2A player) as a subprocess; its base URL."""
    with cli_server("agent", "serve", "concession") as (port, _):
        yield f"http://127.0.0.1:{port}"


class Server:
    """One `serve mcp` on a fixed port over one store file: started, killed, started again."""

    def __init__(self, store: str, agent: str) -> None:
        self.port = free_port()
        self.flags = ["--store", store, "--reproducible", "--allow-remote-agent", agent]
        self.proc = start_mcp_server(self.port, *self.flags)
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def crash_and_restart(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = start_mcp_server(self.port, *self.flags)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


async def advance(api: McpArena, match_id: str, seat: SeatHandle, turns: int | None) -> None:
    """Play `seat` for `turns` of its turns (None: to the end), waiting for the others in between."""
    while turns is None or turns > 0:
        turn = await api.get_turn_state(match_id, seat.token, since=seat.cursor, wait_seconds=10)
        seat.cursor = turn["cursor"]
        if turn["status"] == "finished":
            return
        if turn["your_turn"]:
            await take_turn(api, match_id, seat, turn)
            turns = None if turns is None else turns - 1


async def advance_together(
    api: dict[str, McpArena], match_id: str, seats: dict[str, SeatHandle], turns: int | None
) -> None:
    """Two clients of one match, each on its own connection, playing concurrently."""
    await asyncio.gather(*(advance(api[name], match_id, seats[name], turns) for name in seats))


def seen(turn: dict[str, Any]) -> list[dict[str, Any]]:
    """A seat's view of the log, without the final result's data (it names the match id, which differs per run)."""
    return [{k: v for k, v in e.items() if k != "data" or e["kind"] != "match_ended"} for e in turn["events"]]


async def play_three(server: Server, agent: str, crash: bool) -> dict[str, Any]:
    """Start the three matches, play part of each, crash (or not), finish them; what each seat saw."""
    async with AsyncExitStack() as stack:
        clients = {name: McpArena(await stack.enter_async_context(Client(server.url))) for name in ("x", "y")}
        x = clients["x"]
        house = await x.start_game("split_100", seed=11, name="solo", opponents=["concession"])
        pair = await x.start_game("company_car", seed=12, name="left")
        joined = await clients["y"].join_game(pair["match_id"], name="right")
        remote = await x.start_game("split_100", seed=13, name="host", opponents=[f"a2a:{agent}"])
        seats = {
            "house": SeatHandle(ConcessionAgent(name="solo"), house["agent_id"], house["token"]),
            "left": SeatHandle(ConcessionAgent(name="left"), pair["agent_id"], pair["token"]),
            "right": SeatHandle(ConcessionAgent(name="right"), joined["agent_id"], joined["token"]),
            "remote": SeatHandle(ConcessionAgent(name="host"), remote["agent_id"], remote["token"]),
        }
        ids = {
            "house": house["match_id"],
            "left": pair["match_id"],
            "right": pair["match_id"],
            "remote": remote["match_id"],
        }
        await advance(x, ids["house"], seats["house"], TURNS_BEFORE_CRASH)
        await advance_together(clients, ids["left"], {"x": seats["left"], "y": seats["right"]}, TURNS_BEFORE_CRASH)
        await advance(x, ids["remote"], seats["remote"], TURNS_BEFORE_CRASH)
        # wait until each seat is due again (the house and remote players have answered), note its cursor
        cursors = {}
        for name, seat in seats.items():
            api = clients["y"] if name == "right" else x
            turn = await api.get_turn_state(ids[name], seat.token, since=seat.cursor, wait_seconds=10)
            while name in ("house", "remote") and not turn["your_turn"] and turn["status"] != "finished":
                # news, but the server-side player's answer is still to come
                turn = await api.get_turn_state(ids[name], seat.token, since=turn["cursor"], wait_seconds=10)
            cursors[name] = turn["cursor"]
    if crash:
        server.crash_and_restart()
    async with AsyncExitStack() as stack:
        clients = {name: McpArena(await stack.enter_async_context(Client(server.url))) for name in ("x", "y")}
        x = clients["x"]
        for name, seat in seats.items():  # the same tokens, the same cursors
            api = clients["y"] if name == "right" else x
            assert (await api.get_turn_state(ids[name], seat.token))["cursor"] == cursors[name], name
        await asyncio.wait_for(
            asyncio.gather(
                advance(x, ids["house"], seats["house"], None),
                advance_together(clients, ids["left"], {"x": seats["left"], "y": seats["right"]}, None),
                advance(x, ids["remote"], seats["remote"], None),
            ),
            timeout=120,
        )
        views = {}
        for name, seat in seats.items():
            api = clients["y"] if name == "right" else x
            result = await api.get_result(ids[name])
            assert result["status"] == "finished"
            views[name] = {
                "seen": seen(await api.get_turn_state(ids[name], seat.token)),
                "payoffs": result["payoffs"],
                "terms": result["terms"],
                "seed": result["seed"],
            }
        return {"views": views, "ids": ids}


async def test_a_killed_server_resumes_every_match_from_its_store(tmp_path: Path) -> None:
    with remote_a2a_agent() as agent:
        straight = Server(str(tmp_path / "straight.db"), agent)
        try:
            expected = await play_three(straight, agent, crash=False)
        finally:
            straight.stop()
        store = tmp_path / "crashed.db"
        crashing = Server(str(store), agent)
        try:
            got = await play_three(crashing, agent, crash=True)
            assert got["views"] == expected["views"]
            # finished matches are read back after another crash, and from the command line
            crashing.crash_and_restart()
            async with Client(crashing.url) as client:
                api = McpArena(client)
                for name, match_id in got["ids"].items():
                    assert (await api.get_result(match_id))["payoffs"] == expected["views"][name]["payoffs"]
                listed = await api.list_matches(status="finished")
                assert {m["match_id"] for m in listed["matches"]} == set(got["ids"].values())
        finally:
            crashing.stop()
    command = [sys.executable, "-m", "negotiation_platform.cli.main"]
    lines = subprocess.run(
        [*command, "matches", "--store", str(store), "--json"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert sorted(json.loads(line)["game_id"] for line in lines) == ["company_car", "split_100", "split_100"]
    out = tmp_path / "results.jsonl"
    subprocess.run([*command, "export", "--store", str(store), "--out", str(out)], check=True, capture_output=True)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["game_id"], r["seed"]) for r in rows} == {("split_100", 11), ("company_car", 12), ("split_100", 13)}
    assert all(r["agreement"] is not None and r["duration_seconds"] >= 0 for r in rows)
    assert sorted(a for r in rows for a in r["agents"]) == sorted(
        ["solo", "concession", "left", "right", "host", f"a2a:{agent}"]
    )
