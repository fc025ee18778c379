"""The `policy` agent kind (a trained policy, `policy:DIR`), registered where the trainer lives.

Registered through its own entry point rather than the built-in agents' plugin: the trainer plays
baselines with the agents, so the agents package must not import the training package.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

from negotiation_platform.agents.base import Agent
from negotiation_platform.registry.hookspecs import hookimpl

RL_AVAILABLE = importlib.util.find_spec("flax") is not None and importlib.util.find_spec("jax") is not None
"""The `policy` kind needs the `rl` extra."""


@hookimpl
def register_agents() -> dict[str, Callable[..., Agent]]:
    if not RL_AVAILABLE:
        return {}
    from negotiation_platform.training.policy_agent import PolicyAgent

    return {"policy": PolicyAgent}
