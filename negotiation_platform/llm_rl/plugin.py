"""The `hf` agent kind (a transformers model saved in a directory, `hf:DIR`), registered where the LLM-RL layer lives.

Registered through its own entry point: the built-in agents' plugin may not import this package,
which builds on the agents.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

from negotiation_platform.agents.base import Agent
from negotiation_platform.registry.hookspecs import hookimpl

HF_AVAILABLE = importlib.util.find_spec("torch") is not None and importlib.util.find_spec("transformers") is not None
"""The `hf` kind needs the `llm-rl` extra (torch, transformers)."""


@hookimpl
def register_agents() -> dict[str, Callable[..., Agent]]:
    if not HF_AVAILABLE:
        return {}
    from negotiation_platform.llm_rl.hf_agent import HFAgent

    return {"hf": HFAgent}
