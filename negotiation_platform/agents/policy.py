"""`policy:DIR`: a policy trained by `negotiation-platform train` (DIR holds its files) plays a seat.

It decides from the seat's turn state like any agent, so it plays in-process, over MCP and A2A,
and in tournaments. JAX and flax (the `rl` extra) are imported only when such an agent is made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from negotiation_platform.agents.base import Decision


class PolicyAgent:
    reads_prompt = False
    needs_target = True

    def __init__(self, seed: int = 0, name: str = "policy", target: str = "") -> None:
        from negotiation_platform.training.table import TablePolicy

        self.name = name
        self._policy = TablePolicy(Path(target), seed)

    def decide(self, turn: dict[str, Any]) -> Decision:
        return self._policy.decide(turn)
