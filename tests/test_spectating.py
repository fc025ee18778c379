"""Spectating in-process: the arena's watch and spectate, public views, boards through the hook."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Any

import pytest

from negotiation_platform.arena import Arena
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.engine import Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry, hookimpl
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.serving.operations import run_operation
from tests.http_probe import PROMPT_MS, median_get_ms, oversized_post

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def coin_match(arena: Arena) -> tuple[str, dict[str, str]]:
    """coins_classic without talk: each round is one sealed split by both seats."""
    a = await arena.start_game("coins_classic", config={"messages_per_round": 0, "rounds": 3}, seed=2, name="ann")
    b = await arena.join_game(a["match_id"], name="bo")
    return a["match_id"], {a["agent_id"]: a["token"], b["agent_id"]: b["token"]}


async def test_watch_shows_public_events_and_waits_for_them() -> None:
    arena = Arena()
    match_id, tokens = await coin_match(arena)
    start = await arena.watch(match_id)
    assert start["status"] == "running" and start["acting"] == ["ann", "bo"]
    assert "config" not in start and "result" not in start

    waiting = asyncio.create_task(arena.watch(match_id, since=start["cursor"], wait_seconds=30))
    await arena.perform_action(match_id, tokens["ann"], "split", {"coins": 7})
    await asyncio.sleep(0.05)
    assert not waiting.done()  # ann's split is sealed: nothing public happened
    await arena.perform_action(match_id, tokens["bo"], "split", {"coins": 2})
    news = await asyncio.wait_for(waiting, 5)
    notices = [e["data"] for e in news["events"] if e["kind"] == "notice"]
    assert notices == [
        {
            "round": 1,
            "claims": {"ann": {"coins": 7}, "bo": {"coins": 2}},
            "allocations": {"ann": {"coins": 7.0}, "bo": {"coins": 2.0}},
        }
    ]
    assert all(e["visible_to"] is None for e in news["events"])  # not the sealed splits, not the rewards

    with pytest.raises(NegotiationError) as refusal:
        await arena.watch(match_id, since=-1)
    assert refusal.value.code is ErrorCode.INVALID_ARGUMENT
    with pytest.raises(NegotiationError) as refusal:
        await arena.watch(match_id, wait_seconds=float("nan"))
    assert refusal.value.code is ErrorCode.INVALID_ARGUMENT


async def test_spectate_rebuilds_earlier_states_and_reveals_only_after_the_end_when_told() -> None:
    for reveal in (False, True):
        arena = Arena(policy=ArenaPolicy(reveal_finished=reveal))
        match_id, tokens = await coin_match(arena)
        before = (await arena.watch(match_id))["cursor"]
        for _ in range(3):
            for token in tokens.values():
                await arena.perform_action(match_id, token, "split", {"coins": 4})
        now = await arena.spectate(match_id)
        assert now["status"] == "finished" and len(now["view"]["history"]) == 3
        assert ("seats" in now["view"]) is reveal
        assert any(e["visible_to"] for e in now["events"]) is reveal
        earlier = await arena.spectate(match_id, at=before)
        assert earlier["at"] == before and earlier["view"]["history"] == []
        assert [e["seq"] for e in earlier["events"]] == [e["seq"] for e in now["events"] if e["seq"] <= before]
        assert ("seats" in earlier["view"]) is reveal  # a finished, revealed match shows seats at every step

    running = Arena(policy=ArenaPolicy(reveal_finished=True))
    match_id, _ = await coin_match(running)
    assert "seats" not in (await running.spectate(match_id))["view"]  # never while it runs


async def test_watch_is_an_operation_and_list_matches_filters_by_game() -> None:
    arena = Arena()
    house = HouseSeats(arena)
    match_id, _ = await coin_match(arena)
    split = await run_operation(house, "start_game", {"game_id": "split_100", "opponents": ["concession"]})
    watched = await run_operation(house, "watch", {"match_id": match_id, "since": 0})
    assert watched["events"][0]["kind"] == "match_started"
    listed = await run_operation(house, "list_matches", {"game_id": "split_100"})
    assert [m["match_id"] for m in listed["matches"]] == [split["match_id"]]
    assert listed["matches"][0]["payoffs"] is None  # still running
    with pytest.raises(NegotiationError) as refusal:
        await run_operation(house, "watch", {"match_id": match_id, "token": "x"})
    assert refusal.value.code is ErrorCode.INVALID_ARGUMENT


def test_public_views_hold_no_private_values() -> None:
    registry = Registry()
    auction = Match(registry.game("auction").cls, ["a", "b"], config={"bidders": 2}, seed=1)
    assert "values" not in repr(auction.game.public_view()) and "your_value" not in repr(auction.game.public_view())
    coins = Match(registry.game("deal_or_no_deal").cls, ["a", "b"], seed=1)
    view = coins.game.public_view()
    assert view["stock"] == coins.game.get_player_view("a")["stock"]
    assert "values" not in repr(view) and "your_total" not in view
    hard = Match(registry.game("adasociety_hard").cls, [f"p{i}" for i in range(8)], seed=1)
    hidden = hard.game.public_view()
    assert hidden["map_public"] is False and hidden["piles"] == [] and hidden["players"][0]["position"] is None


class _Boards:
    @hookimpl
    def render_board(self, game_id: str, view: dict[str, Any], events: list[dict[str, Any]]) -> str | None:
        if game_id == "split_100":
            raise RuntimeError("broken renderer")
        return None


def test_boards_come_from_the_hook_and_a_failing_renderer_is_reported_not_raised() -> None:
    registry = Registry()
    auction = Match(registry.game("auction").cls, ["a", "b", "c"], seed=1)
    board = registry.render_board("auction", auction.game.public_view(), [])
    assert board is not None and "3 bidders" in board
    registry.register(_Boards(), name="broken_boards")
    assert registry.render_board("split_100", {"round": 1}, []) is None
    assert any(p.plugin == "render_board" and "broken renderer" in p.reason for p in registry.problems)
    assert registry.render_board("auction", auction.game.public_view(), []) is not None


async def test_serve_view_shows_the_matches_a_store_keeps_without_taking_them(tmp_path: Any) -> None:
    """`serve view --store FILE` lists a finished and a running match that another arena wrote,
    shows the running one's public events, and never takes its lease (the writer plays on)."""
    from negotiation_platform.arena.persistence import attach_store

    store = str(tmp_path / "matches.db")
    writer = Arena()
    attach_store(writer, store, "writer")
    done = await writer.start_game("split_100", seed=3, name="ann")
    other = await writer.join_game(done["match_id"], name="bo")
    await writer.perform_action(done["match_id"], done["token"], "propose", {"mine": 60})
    await writer.perform_action(done["match_id"], other["token"], "accept", {})
    running = await writer.start_game("split_100", seed=4, name="cy")
    opponent = await writer.join_game(running["match_id"], name="di")
    await writer.send_public_message(running["match_id"], running["token"], "hello from cy")

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "negotiation_platform.cli.main", "serve", "view", "--port", str(port)]
    server = subprocess.Popen([*command, "--store", store], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}/view"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as page:  # / leads to /view/
                    assert page.url.endswith("/view/")
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "serve view did not start"
                time.sleep(0.2)
        listed = json.loads(await asyncio.to_thread(_read, f"{base}/api/matches"))["matches"]
        statuses = {m["match_id"]: (m["status"], m["payoffs"]) for m in listed}
        assert statuses == {
            done["match_id"]: ("finished", {"ann": 60, "bo": 40}),
            running["match_id"]: ("running", None),
        }
        seen = json.loads(await asyncio.to_thread(_read, f"{base}/api/matches/{running['match_id']}"))
        assert any(e.get("data", {}).get("content") == "hello from cy" for e in seen["events"])
        # Like every HTTP server here, it refuses a body over the limit and answers at once.
        assert (await oversized_post(f"{base}/api/matches", declared=True))[0] == 413
        assert await median_get_ms(f"{base}/api/matches") < PROMPT_MS
        # The viewer only read: the writer still owns its running match and finishes it.
        await writer.perform_action(running["match_id"], running["token"], "propose", {"mine": 50})
        await writer.perform_action(running["match_id"], opponent["token"], "accept", {})
        assert (await writer.get_result(running["match_id"]))["status"] == "finished"
    finally:
        server.terminate()
        server.wait(timeout=10)
        await writer.close()


def _read(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return str(answer.read().decode())
