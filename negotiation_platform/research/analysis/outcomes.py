"""The exact outcome space of a game, where the kernels can enumerate it: Pareto frontier and Nash point.

Exact for `split_100`, `integrative_negotiation` and `resource_allocation` (integer plans), whose
outcome spaces `negotiation_platform.kernels.outcome_spaces` enumerates from the game's own Config. Other
games (company_car's continuous price, the auction, the coin games, AdaSociety) have no finite
space there, so their frontier distances are None. Needs the `jax` extra; without it every game
gets None. Utilities are undiscounted: in a game with a discount the distance includes what
the delay cost.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from negotiation_platform.registry import Registry

ENUMERATORS = {
    "split_100": "split_100_outcomes",
    "integrative_negotiation": "integrative_outcomes",
    "resource_allocation": "resource_allocation_outcomes",
}
"""game id → the function in kernels.outcomes that enumerates its agreements."""


@dataclass(frozen=True)
class OutcomeSpace:
    """u[N, 2]: every agreement's utilities in role order, and which of them are Pareto-optimal."""

    utilities: np.ndarray
    pareto: np.ndarray

    @property
    def frontier(self) -> np.ndarray:
        """The Pareto-optimal utility points, sorted by the first role's utility."""
        points = self.utilities[self.pareto]
        ordered: np.ndarray = points[np.argsort(points[:, 0])]
        return ordered

    def nash_point(self, batnas: tuple[float, float]) -> np.ndarray | None:
        """argmax Π(u_i − batna_i) over outcomes better than both BATNAs; None when there is none."""
        from negotiation_platform.kernels.frontier import nash_point

        index = int(nash_point(self.utilities, np.asarray(batnas, dtype=np.float32)))
        return None if index < 0 else self.utilities[index]


def outcome_space(
    game: str, config: Mapping[str, object] | None, registry: Registry | None = None
) -> OutcomeSpace | None:
    """The game's exact outcome space under `config`, or None where the kernels cannot enumerate it."""
    if game not in ENUMERATORS:
        return None
    key = (game, json.dumps(config or {}, sort_keys=True))
    if key not in _SPACES:
        _SPACES[key] = _enumerate(game, config, registry or Registry())
    return _SPACES[key]


_SPACES: dict[tuple[str, str], OutcomeSpace | None] = {}


def _enumerate(game: str, config: Mapping[str, object] | None, registry: Registry) -> OutcomeSpace | None:
    try:
        from negotiation_platform.kernels import frontier as analysis
        from negotiation_platform.kernels import outcome_spaces as outcomes
    except ImportError:
        return None
    parsed = registry.game(game).cls.parse_config(config or None)
    _, utilities = getattr(outcomes, ENUMERATORS[game])(parsed)
    return OutcomeSpace(np.asarray(utilities, dtype=np.float64), np.asarray(analysis.pareto_mask(utilities)))
