"""LLM negotiators that learn: games as text environments, adapters to trainers, evaluation.

Imports no heavy library (torch, trl, textarena): the modules that need one import it themselves.
"""

from negotiation_platform.llm_rl.text_env import SeatPrompt, TextEnv, TextStep

__all__ = ["SeatPrompt", "TextEnv", "TextStep"]
