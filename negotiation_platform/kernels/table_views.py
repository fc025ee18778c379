"""A bilateral seat's view at an engine table, read the way the bargaining kernels observe a seat.

company_car, resource_allocation and integrative_negotiation share the engine's bilateral view
(`games.bilateral`: round, the seat's label, proposals left, the other's latest offer) and the
kernels share one layout of seven features over it. A kernel's `table_observation` reads the view
here and supplies only what is its own: the BATNA and the offer, scaled its way. (It computes the
BATNA from its params and the round: the view rounds it to four decimals.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np


class BilateralSeat(NamedTuple):
    moving: bool
    role: int
    """The seat's role index in the game's `roles` (its label's position)."""
    round: int
    rounds: int
    proposals_left: int
    offer: Mapping[str, Any] | None
    """The other seat's latest offer ({terms, round}), standing or not."""

    def features(self, role_feature: float, batna: float, offer: float) -> np.ndarray:
        """f32[7]: the kernels' layout (round, on move, role, BATNA, offer, offer made, proposals left)."""
        row = [
            self.round / self.rounds,
            float(self.moving),
            role_feature,
            batna,
            offer if self.offer is not None else 0.0,
            float(self.offer is not None),
            self.proposals_left / self.rounds,
        ]
        return np.array(row, np.float32)


def decayed_batna(batna: float, decay: float, round_number: int) -> float:
    """batna × (1 − decay) ** (round − 1), as the kernels decay it."""
    return batna * (1.0 - decay) ** (round_number - 1)


def bilateral_seat(turn: Mapping[str, Any], role_labels: Mapping[str, str], roles: tuple[str, ...]) -> BilateralSeat:
    """The parts of a bilateral seat's turn state that its kernel observation reads."""
    view = turn["view"]
    labels = [role_labels[role] for role in roles]
    return BilateralSeat(
        moving=bool(turn.get("your_turn")),
        role=labels.index(view["your_label"]),
        round=int(view["round"]),
        rounds=int(view["rounds"]),
        proposals_left=int(view["proposals_left"]),
        offer=view["opponent_latest_offer"],
    )
