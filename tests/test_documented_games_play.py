"""The documented games play through the arena, the agents and the CLI like every game."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from negotiation_platform.agents import BatnaAwareAgent, ConcessionAgent, RandomAgent, play_match
from negotiation_platform.arena import Arena

pytestmark = pytest.mark.anyio
GAMES = ["company_car", "resource_allocation", "integrative_negotiation"]


@pytest.mark.parametrize("game", GAMES)
def test_cli_play_json(game: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "negotiation_platform.cli.main",
            "play",
            game,
            "--json",
            "--seed",
            "2",
            "--agents",
            "batna",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {"game", "seed", "agreement", "payoffs", "rounds", "events"} <= set(result)
    assert result["game"] == game and len(result["payoffs"]) == 2


@pytest.mark.parametrize("seed", range(6))
async def test_batna_agents_reach_an_integrative_agreement_above_both_batnas(seed: int) -> None:
    result = await play_match(
        Arena(), "integrative_negotiation", [BatnaAwareAgent(name="x"), BatnaAwareAgent(name="y")], seed=seed
    )
    assert result["agreement"] is True
    batnas = result["result"]["game_data"]["batnas"]
    assert all(result["payoffs"][p] > batnas[p] for p in result["payoffs"])


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("agents", [("batna", "random"), ("concession", "batna"), ("random", "random")])
async def test_every_baseline_plays_every_documented_game(game: str, agents: tuple[str, str]) -> None:
    factories = {"batna": BatnaAwareAgent, "concession": ConcessionAgent, "random": RandomAgent}
    players = [factories[name](seed=i, name=name) for i, name in enumerate(agents)]
    result = await play_match(Arena(), game, players, seed=4)
    assert result["status"] == "finished" and 1 <= result["rounds"] <= 5


async def test_batna_agent_accepts_only_what_beats_its_batna() -> None:
    accepted = 0
    for seed in range(12):
        arena = Arena()
        result = await play_match(
            arena, "company_car", [BatnaAwareAgent(name="a"), RandomAgent(seed=seed, name="r")], seed=seed
        )
        actions = [e for e in arena.events(result["match_id"]) if e["kind"] == "action"]
        if actions[-1]["actor"] == "a" and actions[-1]["data"]["action_type"] == "accept":
            accepted += 1
            assert result["payoffs"]["a"] > result["result"]["game_data"]["batnas"]["a"]
    assert accepted > 0
