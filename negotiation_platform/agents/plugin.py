"""Registers the built-in scripted agents through the `negotiation_platform.agents` entry point."""

from __future__ import annotations

import importlib.util
from typing import Any

from negotiation_platform.agents.batna_aware import BatnaAwareAgent
from negotiation_platform.agents.concession import ConcessionAgent
from negotiation_platform.agents.random_agent import RandomAgent
from negotiation_platform.registry.hookspecs import hookimpl

LLM_AVAILABLE = importlib.util.find_spec("openai") is not None
"""Probed once: the registry asks for agents on every lookup, and the `llm` kind needs the `llm` extra."""
RL_AVAILABLE = importlib.util.find_spec("flax") is not None and importlib.util.find_spec("jax") is not None
"""The `policy` kind (a trained policy) needs the `rl` extra."""


@hookimpl
def register_agents() -> dict[str, Any]:
    agents: dict[str, Any] = {"random": RandomAgent, "concession": ConcessionAgent, "batna": BatnaAwareAgent}
    if LLM_AVAILABLE:
        from negotiation_platform.agents.llm import LLMAgent

        agents["llm"] = LLMAgent
    if RL_AVAILABLE:
        from negotiation_platform.agents.policy import PolicyAgent

        agents["policy"] = PolicyAgent
    return agents
