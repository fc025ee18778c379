"""Property: what the store keeps is enough. For random games, configs, seeds and move sequences,
a match stored in SQLite, its server "killed" at a random point and resumed by a fresh arena,
ends exactly as the same match played straight through; and replaying the stored input events
alone rebuilds the identical event log and result."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from negotiation_platform.agents.driver import SeatHandle, open_seats, take_turn
from negotiation_platform.agents.random_agent import RandomAgent
from negotiation_platform.arena import Arena
from negotiation_platform.arena.persistence import Persistence
from negotiation_platform.engine import Match
from negotiation_platform.registry import Registry
from negotiation_platform.store import open_store

CONFIGS: dict[str, list[dict[str, Any] | None]] = {
    "split_100": [None, {"rounds": 3}, {"rounds": 5, "discount": 0.9}],
    "company_car": [None, {"rounds": 4}],
    "integrative_negotiation": [None],
    "resource_allocation": [None],
    "auction": [None, {"bidders": 4}],
    "no_press": [None],
    "coins_classic": [None],
    "deal_or_no_deal": [None],
    "trust_and_split": [None],
}


def canonical(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events as JSON carries them (tuples become lists), for comparing a log with a stored one."""
    return json.loads(json.dumps(events))


async def play(arena: Arena, seats: list[SeatHandle], match_id: str, stop_after: int | None) -> bool:
    """Serve the seats in order, round after round, until the match ends (True) or, between two rounds
    of seats (so that a resumed run serves them in the same order), its log has `stop_after` events."""
    while True:
        moved = False
        if stop_after is not None and (await arena.get_turn_state(match_id, seats[0].token))["cursor"] >= stop_after:
            return False
        for seat in seats:
            turn = await arena.get_turn_state(match_id, seat.token, since=seat.cursor)
            seat.cursor = turn["cursor"]
            if turn["status"] == "finished":
                return True
            if turn["your_turn"]:
                moved = await take_turn(arena, match_id, seat, turn) or moved
        assert moved, "random agents always move"


def agents(players: int, seed: int) -> list[RandomAgent]:
    return [RandomAgent(seed=seed + i, name=f"p{i}") for i in range(players)]


async def straight_through(game: str, config: dict[str, Any] | None, seed: int, players: int, agent_seed: int) -> Any:
    arena = Arena(new_match_id=lambda: "m")
    match_id, seats = await open_seats(arena, game, agents(players, agent_seed), config=config, seed=seed)  # type: ignore[arg-type]
    await play(arena, seats, match_id, None)
    return arena.events(match_id), await arena.get_result(match_id)


async def with_a_crash(
    path: Path, game: str, config: dict[str, Any] | None, seed: int, players: int, agent_seed: int, cut: int
) -> None:
    def arena() -> Arena:
        built = Arena(new_match_id=lambda: "m")
        store = open_store(str(path))
        assert store is not None
        built.use_store(Persistence(store, "server"))
        return built

    first = arena()
    match_id, seats = await open_seats(first, game, agents(players, agent_seed), config=config, seed=seed)  # type: ignore[arg-type]
    if not await play(first, seats, match_id, cut):
        second = arena()  # the first one is never closed: as if killed
        await second.resume()
        await play(second, seats, match_id, None)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(sorted(CONFIGS)),
    pick=st.integers(0, 9),
    seed=st.integers(0, 2**31),
    agent_seed=st.integers(0, 2**20),
    cut=st.integers(1, 60),
)
def test_stored_matches_resume_and_replay_exactly(game: str, pick: int, seed: int, agent_seed: int, cut: int) -> None:
    config = CONFIGS[game][pick % len(CONFIGS[game])]
    entry = Registry().game(game)
    players = entry.cls.spec_for(entry.cls.parse_config(config)).roles.min_players
    expected_log, expected_result = asyncio.run(straight_through(game, config, seed, players, agent_seed))

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "store.db"
        asyncio.run(with_a_crash(path, game, config, seed, players, agent_seed, cut))
        store = open_store(str(path))
        assert store is not None
        record = store.get_match("m")
        stored = store.events("m")
        store.close()

    assert record is not None and record.status == "finished"
    assert canonical([e.to_dict() for e in stored]) == canonical(expected_log)
    public = record.public()
    for key in ("seed", "config", "players", "agreement", "terms", "payoffs", "winner", "rounds", "result"):
        assert canonical(public[key]) == canonical(expected_result[key]), key
    replayed = Match.replay(entry.cls, record.players, stored, config=record.config, seed=record.seed, match_id="m")
    assert canonical([e.to_dict() for e in replayed.events]) == canonical(expected_log)
    assert replayed.result is not None and replayed.result.final_scores == expected_result["payoffs"]
