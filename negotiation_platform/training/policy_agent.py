"""`policy:DIR`: a policy trained by `negotiation-platform train` (DIR holds its files) plays a seat.

It decides from the seat's turn state like any agent, so it plays in-process (`play`,
`tournament`) and from a client over MCP or A2A (`play --via ...`). A served arena never loads
one a client names: that would read files of the server's choosing from a caller's string. JAX and
flax (the `rl` extra) are imported only when such an agent is made. The kind is registered by the
training package's own plugin (`training/plugin.py`), as training sits above the agents.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from negotiation_platform.agents.base import Decision
from negotiation_platform.errors import ErrorCode, NegotiationError

if TYPE_CHECKING:
    from negotiation_platform.arena.allowlist import AllowList


class PolicyAgent:
    """A policy trained by `negotiation-platform train`, as policy:DIR (the `rl` extra)."""

    reads_prompt = False
    needs_target = True
    checks_urls = True
    """Handed the served arena's allow-list by `make_agent`: its presence alone means "refuse"."""

    def __init__(self, seed: int = 0, name: str = "policy", target: str = "", allow: AllowList | None = None) -> None:
        if allow is not None:
            raise NegotiationError(
                ErrorCode.FORBIDDEN, "A served arena does not load trained policies that a client names."
            )
        from negotiation_platform.training.table import TablePolicy

        self.name = name
        self._policy = TablePolicy(Path(target), seed)

    def decide(self, turn: dict[str, Any]) -> Decision:
        return self._policy.decide(turn)
