"""Registers the built-in scripted agents through the `negotiation_platform.agents` entry point."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

from negotiation_platform.agents.base import Agent
from negotiation_platform.agents.batna_aware import BatnaAwareAgent
from negotiation_platform.agents.concession import ConcessionAgent
from negotiation_platform.agents.cooperative import CooperativeAgent
from negotiation_platform.agents.greedy import GreedyAgent
from negotiation_platform.agents.random_agent import RandomAgent
from negotiation_platform.registry.hookspecs import hookimpl

LLM_AVAILABLE = importlib.util.find_spec("openai") is not None
"""Probed once: the registry asks for agents on every lookup, and the `llm` kind needs the `llm` extra."""


@hookimpl
def register_agents() -> dict[str, Callable[..., Agent]]:
    agents: dict[str, Callable[..., Agent]] = {
        "random": RandomAgent,
        "concession": ConcessionAgent,
        "batna": BatnaAwareAgent,
        "greedy": GreedyAgent,
        "cooperative": CooperativeAgent,
    }
    if LLM_AVAILABLE:
        from negotiation_platform.agents.llm import LLMAgent

        agents["llm"] = LLMAgent
    return agents
