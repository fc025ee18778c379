"""`policy:DIR`: a policy trained by `negotiation-platform train` (DIR holds its files) plays a seat.

It decides from the seat's turn state like any agent, so it plays in-process (`play`,
`tournament`) and from a client over MCP or A2A (`play --via ...`). A served arena never loads
one a client names: that would read files on the server at a path the caller chose. JAX and
flax (the `rl` extra) are imported only when such an agent is made. The kind is registered by the
training package's own plugin (`training/plugin.py`), as training sits above the agents.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from negotiation_platform.agents.base import Decision


class PolicyAgent:
    """A policy trained by `negotiation-platform train`, as policy:DIR (the `rl` extra)."""

    reads_prompt = False
    needs_target = True
    reads_local_files = True
    """A served arena never seats one a client names (see `make_agent`): DIR is a path on the server."""

    def __init__(self, seed: int = 0, name: str = "policy", target: str = "") -> None:
        from negotiation_platform.training.table import TablePolicy

        self.name = name
        self._policy = TablePolicy(Path(target), seed)

    def decide(self, turn: dict[str, Any]) -> Decision:
        return self._policy.decide(turn)
