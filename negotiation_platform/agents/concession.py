"""`concession`: time-based concession from its best outcome toward its reservation value.

The classic time-dependent tactic (Faratin, Sierra & Jennings 1998): at progress t in (0, 1) the
target is best + (reservation - best) * t ** (1 / beta); beta < 1 concedes late (Boulware),
beta > 1 early (Conceder). It accepts a standing offer at least as good as its next target.
It reads the game's `bargaining` position from the turn state; in phases or games without one it
takes the first action that needs no payload, otherwise a random legal action.
"""

from __future__ import annotations

from typing import Any

from negotiation_platform.agents.base import Decision
from negotiation_platform.agents.random_agent import RandomAgent


class ConcessionAgent:
    def __init__(self, seed: int = 0, name: str = "concession", beta: float = 1.0) -> None:
        self.name = name
        self.beta = beta
        self._fallback = RandomAgent(seed=seed, name=name)

    def target(self, best: float, reservation: float, progress: float) -> float:
        return best + (reservation - best) * float(progress ** (1.0 / self.beta))

    def decide(self, turn: dict[str, Any]) -> Decision:
        allowed = {a["name"]: a for a in turn.get("allowed_actions", [])}
        position = turn.get("bargaining")
        if position and (position["action"] in allowed or position.get("accept_action") in allowed):
            progress = turn["round"] / (turn["rounds"] + 1)
            target = self.target(position["best"], position["reservation"], progress)
            standing = position.get("standing")
            better_is_higher = position["best"] >= position["reservation"]
            if (
                position.get("accept_action") in allowed
                and standing is not None
                and (standing >= target if better_is_higher else standing <= target)
            ):
                return Decision(action=position["accept_action"])
            if position["action"] in allowed:
                payload = self._offer(allowed[position["action"]], position["field"], target)
                return Decision(action=position["action"], payload=payload)
        for name, action in allowed.items():
            if not action["payload_schema"].get("properties"):
                return Decision(action=name)
        return self._fallback.decide(turn)

    @staticmethod
    def _offer(action: dict[str, Any], field: str, target: float) -> dict[str, Any]:
        prop = action["payload_schema"].get("properties", {}).get(field, {})
        value: float = target
        if "minimum" in prop:
            value = max(value, prop["minimum"])
        if "maximum" in prop:
            value = min(value, prop["maximum"])
        return {field: round(value) if prop.get("type") == "integer" else value}
