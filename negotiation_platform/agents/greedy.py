"""`greedy`: always claims everything it can, and accepts nothing less (the paper's always-greedy agent).

In bargaining games (a `bargaining` position in the turn state) it offers its best outcome and accepts
only an offer worth as much; in split games it claims the maximum of every claim field (the whole pot,
every item on the table); otherwise it takes a payload-less action (pass), else a random legal one.
"""

from __future__ import annotations

from collections.abc import Mapping

from negotiation_platform.agents.claims import ClaimingAgent, claim
from negotiation_platform.agents.turns import AllowedAction, Payload


class GreedyAgent(ClaimingAgent):
    """Claims the whole pot every time; a baseline for exploitability."""

    kind = "greedy"

    def target(self, best: float, reservation: float) -> float:
        return best

    def split(self, turn: Mapping[str, object], action: AllowedAction) -> Payload:
        return claim(action, lambda field, most: most)
