"""A result names its game (`result.game_id`), the answer around it its match; matches stored before
results named their game read the same way."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from negotiation_platform.agents import ConcessionAgent, play_match
from negotiation_platform.arena import Arena
from negotiation_platform.arena.listing import live_result, result_of
from negotiation_platform.arena.persistence import match_record
from negotiation_platform.engine.match import Match
from negotiation_platform.registry import Registry
from tests.test_store import stored_arena


def test_a_result_names_its_game_and_the_answer_its_match(tmp_path: Path) -> None:
    location = str(tmp_path / "arena.db")

    async def scenario() -> str:
        arena = stored_arena(location)
        played = await play_match(arena, "split_100", [ConcessionAgent(), ConcessionAgent()], seed=2)
        assert played["game_id"] == played["result"]["game_id"] == "split_100"
        assert played["match_id"] != "split_100"
        [ended] = [event for event in played["events"] if event["kind"] == "match_ended"]
        assert ended["data"]["result"]["game_id"] == "split_100"
        await arena.close()
        return str(played["match_id"])

    match_id = asyncio.run(scenario())
    with sqlite3.connect(location) as db:  # as an earlier version stored it: the match id in the game's place
        db.execute("UPDATE matches SET result = json_set(result, '$.result.game_id', match_id)")
        [(written,)] = db.execute("SELECT json_extract(result, '$.result.game_id') FROM matches").fetchall()
    assert written == match_id

    async def read() -> None:
        arena = stored_arena(location, owner="two")
        answer = await arena.get_result(match_id)
        assert (answer["match_id"], answer["game_id"], answer["result"]["game_id"]) == (
            match_id,
            "split_100",
            "split_100",
        )
        await arena.close()

    asyncio.run(read())


def test_the_engine_hands_the_game_its_own_id() -> None:
    game = Registry().game("auction").cls
    match = Match(game, ["a", "b", "c"], seed=1, match_id="m-7")
    assert match.match_id == "m-7" and match.game.game_id == "auction"


def test_the_result_of_a_match_held_here_is_what_its_record_answers() -> None:
    """`get_result` of a match in memory is made from the match (`live_result`), and reads as its record would."""

    async def scenario() -> None:
        arena = Arena()
        started = await arena.start_game("split_100", seed=4, name="alice")
        live = arena.held(started["match_id"])
        assert live is not None
        assert live_result(live) == result_of(match_record(live))  # waiting for players
        await arena.join_game(started["match_id"], name="bob")
        assert live_result(live) == result_of(match_record(live)) == await arena.get_result(started["match_id"])
        await play_match(arena, "split_100", [ConcessionAgent(), ConcessionAgent()], seed=2)
        [finished] = [m for m in arena.held_matches() if m.match_id != started["match_id"]]
        answer = await arena.get_result(finished.match_id)
        assert answer["status"] == "finished" and answer["players"] and answer["result"]
        assert answer == live_result(finished) == result_of(match_record(finished))

    asyncio.run(scenario())
