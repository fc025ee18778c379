"""MCP over streamable HTTP: per-call latency against an in-process call, and whole matches per second.

Starts `negotiation-platform serve mcp --transport http` as a subprocess on 127.0.0.1, then in the
same run measures, with the official Python MCP client and sequential calls on one connection:
`ping` and `list_games` over HTTP against the same tools called in-process (`Client(server)`, no
socket: the ratio is what HTTP adds; a few milliseconds, not the ~40 ms of a delayed ACK);
`get_turn_state` and `perform_action` against `ping` over HTTP (what the arena adds to a bare MCP
call); and full split_100 matches per second with 20 matches played concurrently.

    python benchmarks/mcp.py [--calls N] [--matches 20]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

# This file is named mcp.py (as asked); keep its folder off the path so `import mcp` finds the SDK.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from mcp import Client  # noqa: E402

from negotiation_mcp.client import McpArena  # noqa: E402
from negotiation_mcp.server import build_server  # noqa: E402
from negotiation_platform.agents import ConcessionAgent, play_match  # noqa: E402
from negotiation_platform.arena import Arena  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "negotiation_platform.cli.main",
            "serve",
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
            "--max-waiting-per-caller",  # every match here is started from this one address
            "1000",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start")


async def median_ms(calls: int, call: Callable[[], Awaitable[Any]]) -> float:
    for _ in range(10):  # warm up
        await call()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


async def per_call(client: Client, calls: int) -> tuple[float, float]:
    """Median milliseconds of `ping` and of `list_games` through `client`."""
    ping = await median_ms(calls, lambda: client.call_tool("ping", {}))
    games = await median_ms(calls, lambda: client.call_tool("list_games", {}))
    return ping, games


async def measure(url: str, calls: int, matches: int) -> None:
    server = build_server(Arena())
    async with Client(server) as local:
        local_ping, local_games = await per_call(local, calls)
    async with Client(url) as client:
        http_ping, http_games = await per_call(client, calls)
        api = McpArena(client)
        a = await api.start_game("split_100", config={"rounds": 1000}, seed=1, name="a")
        b = await api.join_game(a["match_id"], name="b")
        mid = a["match_id"]
        seats = [a["token"], b["token"]]
        turn = {"n": 0}

        async def act() -> None:
            await api.perform_action(mid, seats[turn["n"] % 2], "propose", {"mine": 50})
            turn["n"] += 1

        ping_ms = await median_ms(calls, lambda: client.call_tool("ping", {}))
        state_ms = await median_ms(calls, lambda: api.get_turn_state(mid, seats[0], since=10**9))
        action_ms = await median_ms(calls, act)

        start = time.perf_counter()
        await asyncio.gather(
            *(
                play_match(api, "split_100", [ConcessionAgent(name="x"), ConcessionAgent(name="y")], seed=s)
                for s in range(matches)
            )
        )
        elapsed = time.perf_counter() - start

    print(f"median per call, sequential ({calls} calls each):   in-process      HTTP   HTTP/in-process")
    print(f"  ping        {local_ping:20.2f} ms {http_ping:7.2f} ms   {http_ping / local_ping:8.1f}x")
    print(f"  list_games  {local_games:20.2f} ms {http_games:7.2f} ms   {http_games / local_games:8.1f}x")
    print(f"median round trip over HTTP ({calls} calls each):")
    print(f"  ping (no-op tool)  {ping_ms:7.2f} ms")
    print(f"  get_turn_state     {state_ms:7.2f} ms   ratio to ping {state_ms / ping_ms:5.2f}x")
    print(f"  perform_action     {action_ms:7.2f} ms   ratio to ping {action_ms / ping_ms:5.2f}x")
    print(f"{matches} split_100 matches played concurrently: {elapsed:.2f} s, {matches / elapsed:.1f} matches/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--matches", type=int, default=20)
    args = parser.parse_args()
    port = free_port()
    server = start_server(port)
    try:
        asyncio.run(measure(f"http://127.0.0.1:{port}/mcp", args.calls, args.matches))
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
