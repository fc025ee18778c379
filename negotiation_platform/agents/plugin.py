"""Registers the built-in scripted agents through the `negotiation_platform.agents` entry point."""

from __future__ import annotations

import importlib.util
from typing import Any

from negotiation_platform.agents.batna_aware import BatnaAwareAgent
from negotiation_platform.agents.concession import ConcessionAgent
from negotiation_platform.agents.random_agent import RandomAgent
from negotiation_platform.registry.hookspecs import hookimpl


@hookimpl
def register_agents() -> dict[str, Any]:
    agents: dict[str, Any] = {"random": RandomAgent, "concession": ConcessionAgent, "batna": BatnaAwareAgent}
    if importlib.util.find_spec("openai") is not None:
        # Only with the `llm` extra installed; llm.py imports openai when an agent is made.
        from negotiation_platform.agents.llm import LLMAgent

        agents["llm"] = LLMAgent
    return agents
