"""The viewer's per-client caps on a real socket (uvicorn on 127.0.0.1, in this process): a client is its
address, whatever `Authorization` header it makes up, and a flood of replays from one client waits on
that client's own few slots, never in front of another client's replay."""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import httpx
import pytest
import uvicorn

import negotiation_platform.arena.arena as arena_module
from negotiation_platform.arena import Arena
from negotiation_platform.web.viewer.app import MAX_STREAMS_PER_CLIENT, viewer_app
from tests.cli_servers import free_port

pytestmark = pytest.mark.anyio
REPLAY_SECONDS = 0.5
"""Each replay is made to take this long, so that a queue of them shows: 60 of them, two at a time, 15 s."""
FLOOD = 60
PROMPT_SECONDS = 8.0
"""A generous bound on another client's replay (one replay, on a busy machine)."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def viewer(arena: Arena) -> AsyncIterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(viewer_app(arena), host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/view/api/matches"
    finally:
        server.should_exit = True
        await task


async def running_match(arena: Arena) -> str:
    a = await arena.start_game("split_100", seed=1, name="ann")
    await arena.join_game(a["match_id"], name="bo")
    await arena.send_public_message(a["match_id"], a["token"], "hello")
    return str(a["match_id"])


async def test_made_up_bearer_values_do_not_make_a_client_into_many() -> None:
    arena = Arena()
    match_id = await running_match(arena)
    async with viewer(arena) as api, AsyncExitStack() as streams:
        http = await streams.enter_async_context(httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=64)))
        statuses = []
        for _ in range(40):
            headers = {"authorization": f"Bearer {secrets.token_hex(8)}"}
            opened = await streams.enter_async_context(http.stream("GET", f"{api}/{match_id}/stream", headers=headers))
            statuses.append(opened.status_code)
        assert statuses.count(200) == MAX_STREAMS_PER_CLIENT and statuses.count(429) == 40 - MAX_STREAMS_PER_CLIENT
    await arena.close()


async def test_a_flood_of_replays_from_one_client_does_not_delay_another(monkeypatch: pytest.MonkeyPatch) -> None:
    rewound = arena_module.rewound
    replays = threading.Semaphore(0)

    def slow_rewound(*args: Any) -> Any:
        replays.release()
        time.sleep(REPLAY_SECONDS)
        return rewound(*args)

    monkeypatch.setattr(arena_module, "rewound", slow_rewound)
    arena = Arena()
    match_id = await running_match(arena)  # running: its replays are not cached
    earlier = (await arena.watch(match_id))["cursor"] - 1
    assert earlier >= 2
    async with (
        viewer(arena) as api,
        httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=FLOOD)) as flooder,
        httpx.AsyncClient(timeout=120, transport=httpx.AsyncHTTPTransport(local_address="127.0.0.2")) as other,
    ):
        panels = f"{api}/{match_id}/panels"
        flood = [asyncio.create_task(flooder.get(panels, params={"at": 1 + i % earlier})) for i in range(FLOOD)]
        for _ in range(2):
            assert await asyncio.to_thread(replays.acquire, timeout=30)  # the flood's replays began
        await asyncio.sleep(0.5)  # and the rest of it is in
        started = time.monotonic()
        answer = await asyncio.wait_for(other.get(panels, params={"at": 2}), PROMPT_SECONDS)
        waited = time.monotonic() - started
        flooded = await asyncio.gather(*flood)
    assert answer.status_code == 200 and answer.json()["at"] == 2, f"answered in {waited:.1f} s"
    refused = [r for r in flooded if r.status_code == 429]
    assert refused and all(r.json()["error"]["code"] == "limit_reached" for r in refused)
    assert all(r.status_code == 200 for r in flooded if r not in refused)
    await arena.close()
