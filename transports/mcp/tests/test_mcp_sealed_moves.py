"""Sealed moves stay sealed, over MCP to a real server subprocess on 127.0.0.1 (issue 26, defect 2).

An AdaSociety step that its turn clocks close with nobody moving logs `revealed {"submissions": {}}`
(staying, the default move, is not allowed to a seat that could invite someone). A sealed
`request_match` of a later step must never show up inside that logged event: not to a spectator
(`watch`), not to a seat that has not moved, and the store must hold the same event as memory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_servers import mcp_server

from negotiation_mcp.client import McpArena
from negotiation_platform.errors import NegotiationError
from negotiation_platform.store import open_store

pytestmark = pytest.mark.anyio
TURN_TIMEOUT = "0.5"
EMPTY_REVEAL = {"submissions": {}}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def reveals_before(events: list[dict[str, Any]], round_number: int) -> list[dict[str, Any]]:
    return [e for e in events if e["kind"] == "revealed" and e["round"] < round_number]


async def invite_someone(api: McpArena, match_id: str, token: str) -> int:
    """Send one sealed `request_match` in the first step that takes it; returns that step's round."""
    for _ in range(20):
        state = await api.get_turn_state(match_id, token, include_prompt=False)
        request = next((a for a in state["allowed_actions"] if a["name"] == "request_match"), None)
        if request is not None:
            target = request["payload_schema"]["properties"]["player"]["enum"][0]
            try:
                done = await api.perform_action(match_id, token, "request_match", {"player": target})
            except NegotiationError:
                continue  # the step's clock ran out meanwhile: the next step takes it
            return next(e["round"] for e in done["events"] if e["kind"] == "action")
        await api.watch(match_id, since=state["cursor"], wait_seconds=2)
    raise AssertionError("no step took the invitation")


async def test_a_sealed_move_never_shows_up_in_the_reveal_of_a_step_its_clock_closed(tmp_path: Path) -> None:
    store_file = tmp_path / "matches.db"
    with mcp_server("--turn-timeout", TURN_TIMEOUT, "--store", str(store_file)) as url:
        async with Client(url) as client:
            api = McpArena(client)
            mover = await api.start_game("adasociety", name="p1")
            match_id = mover["match_id"]
            idle = [await api.join_game(match_id, name=f"p{n}") for n in (2, 3, 4)]
            cursor = 0
            while not reveals_before((seen := await api.watch(match_id, since=cursor, wait_seconds=5))["events"], 2):
                cursor = seen["cursor"]  # nobody moves: the turn clocks close step 1
            moved_in = await invite_someone(api, match_id, mover["token"])

            watched = (await api.watch(match_id, since=0))["events"]
            seen_by_idle = (await api.get_turn_state(match_id, idle[0]["token"], since=0, include_prompt=False))[
                "events"
            ]
            earlier = reveals_before(watched, moved_in)
            assert earlier, "no step closed before the move"
            assert [e["data"] for e in earlier] == [EMPTY_REVEAL] * len(earlier)
            assert reveals_before(seen_by_idle, moved_in) == earlier
            stored = open_store(str(store_file))
            assert stored is not None
            try:
                in_store = {e.seq: e.to_dict() for e in stored.events(match_id)}
            finally:
                stored.close()
            assert [in_store[e["seq"]] for e in earlier] == earlier
