"""Agents by spec string: a registered name (`concession`) or a name with a target (`a2a:http://host:9001`).

The part after the first colon is handed to the agent factory as `target`, so a transport can
register an agent kind that plays for someone remote.
"""

from __future__ import annotations

from typing import Any

from negotiation_platform.agents.base import Agent
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry


def self_contained(registry: Registry) -> list[str]:
    """The agents that play by name alone (not kinds such as `llm` or `a2a` that need `kind:target`)."""
    return sorted(name for name, factory in registry.agents().items() if not getattr(factory, "needs_target", False))


def known_agent(registry: Registry, spec: str) -> bool:
    return isinstance(spec, str) and spec.partition(":")[0] in registry.agents()


def make_agent(registry: Registry, spec: str, seed: int) -> Agent:
    """An agent for `spec`, seeded; unknown names raise NegotiationError(invalid_argument)."""
    if not known_agent(registry, spec):
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"Unknown agent {spec!r}; agents: {sorted(registry.agents())}."
        )
    kind, _, target = spec.partition(":")
    options: dict[str, Any] = {"target": target} if target else {}
    agent: Agent = registry.agents()[kind](seed=seed, name=kind, **options)
    return agent
