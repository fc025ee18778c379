"""`greedy`: always claims everything it can, and accepts nothing less (the paper's always-greedy agent).

In bargaining games (a `bargaining` position in the turn state) it offers its best outcome and accepts
only an offer worth as much; in split games it claims the maximum of every claim field (the whole pot,
every item on the table); otherwise it takes a payload-less action (pass), else a random legal one.
"""

from __future__ import annotations

from typing import Any

from negotiation_platform.agents.base import Decision
from negotiation_platform.agents.claims import claim, claim_action, quiet_action
from negotiation_platform.agents.offers import bargain_toward
from negotiation_platform.agents.random_agent import RandomAgent


class GreedyAgent:
    """Claims the whole pot every time; a baseline for exploitability."""

    reads_prompt = False

    reads_turn_in_place = True

    def __init__(self, seed: int = 0, name: str = "greedy") -> None:
        self.name = name
        self._fallback = RandomAgent(seed=seed, name=name)

    def observe(self, turn: dict[str, Any]) -> None:
        """Show every turn to the random fallback, so its draws stay those of a fresh agent."""
        self._fallback.observe(turn)

    def decide(self, turn: dict[str, Any]) -> Decision:
        self.observe(turn)
        allowed = {a["name"]: a for a in turn.get("allowed_actions", [])}
        position = turn.get("bargaining")
        if position:
            decision = bargain_toward(position, allowed, lambda best, reservation: best)
            if decision is not None:
                return decision
        action = claim_action(allowed)
        if action is not None:
            return Decision(action=action["name"], payload=claim(action, lambda field, most: most))
        quiet = quiet_action(allowed)
        return Decision(action=quiet) if quiet is not None else self._fallback.decide(turn)
