"""Registers the built-in scripted agents through the `negotiation_platform.agents` entry point."""

from __future__ import annotations

from typing import Any

from negotiation_platform.agents.batna_aware import BatnaAwareAgent
from negotiation_platform.agents.concession import ConcessionAgent
from negotiation_platform.agents.random_agent import RandomAgent
from negotiation_platform.registry.hookspecs import hookimpl


@hookimpl
def register_agents() -> dict[str, Any]:
    return {"random": RandomAgent, "concession": ConcessionAgent, "batna": BatnaAwareAgent}
