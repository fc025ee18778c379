"""`check_kernel` over 1,000 seeds for every installed kernel game (slow: `-m "not slow"` leaves it out).

The engine plays each seed in Python, so a game's cost is its matches' length times the cost of its
table views; AdaSociety's views (whole grids per seat and step) make it the costliest, and it is
checked on fewer seeds.
"""

from __future__ import annotations

import pytest

pytest.importorskip("jax")

from negotiation_platform.kernels import kernel_games
from negotiation_platform.registry import Registry
from negotiation_platform.testing import check_kernel

pytestmark = pytest.mark.slow

REGISTRY = Registry()
SEEDS = 1_000
FEWER_SEEDS = {"adasociety": 50, "adasociety_hard": 20}
"""Games whose engine side is too slow for 1,000 seeds in CI (the hard preset plays longer matches: fewer still)."""


@pytest.mark.parametrize("game_id", sorted(kernel_games(REGISTRY)))
def test_every_kernel_agrees_with_its_game_on_a_thousand_seeds(game_id: str) -> None:
    check_kernel(REGISTRY.game(game_id).cls, seeds=range(100, 100 + FEWER_SEEDS.get(game_id, SEEDS)))
