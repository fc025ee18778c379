"""Every built-in agent plays every installed game to the end, seeds 1..30 (issue 11's acceptance).

Each game is one test; inside it every built-in agent fills all seats, then a mixed lineup, for
every seed, in-process through the driver as `negotiation-platform play` runs them. A built-in agent
must also never forfeit a move: the driver would hide a refused agent behind the default move.

AdaSociety matches take seconds each under their default config (120 steps, up to 8 seats), so
they run shorter here; set NEGOTIATION_FULL_SWEEP=1 to sweep every game under its defaults.
"""

from __future__ import annotations

import math
import os
from typing import Any

import pytest

from negotiation_platform.agents.catalog import self_contained
from negotiation_platform.agents.driver import play_match
from negotiation_platform.arena import Arena
from negotiation_platform.cli.main import make_agents
from negotiation_platform.registry import Registry

pytestmark = pytest.mark.anyio

REGISTRY = Registry()
BUILT_IN = self_contained(REGISTRY)
"""Every installed agent that plays by name alone (plugins' too; not `llm:MODEL` or `a2a:URL`)."""
SEEDS = range(1, 31)
LINEUPS = [[name] for name in BUILT_IN] + [BUILT_IN]
SHORT = {"max_length": 12, "negotiation_steps": 4}
CHEAP: dict[str, dict[str, Any]] = (
    {} if os.environ.get("NEGOTIATION_FULL_SWEEP") else {"adasociety": SHORT, "adasociety_hard": SHORT}
)
"""Configs that keep a game's matches cheap; every other game plays its defaults."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("game_id", sorted(REGISTRY.games()))
async def test_every_built_in_agent_plays_every_seed_to_the_end(game_id: str) -> None:
    seats = REGISTRY.games()[game_id].cls.spec.roles.min_players
    for lineup in LINEUPS:
        for seed in SEEDS:
            arena = Arena(REGISTRY)
            agents = make_agents(REGISTRY, lineup[:seats], seats, seed)  # the line-up's first agents, one a seat
            result = await play_match(arena, game_id, agents, seed=seed, config=CHEAP.get(game_id))
            where = f"{game_id} {lineup} seed {seed}"
            assert result["status"] == "finished", where
            assert set(result["payoffs"]) == set(result["players"]), where
            assert all(math.isfinite(p) for p in result["payoffs"].values()), where
            forfeits = [e for e in arena.events(result["match_id"]) if e["kind"] == "timeout"]
            assert not forfeits, f"{where}: a built-in agent kept proposing refused moves: {forfeits[0]}"
