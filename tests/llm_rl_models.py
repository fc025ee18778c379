"""A tiny causal language model and its tokenizer, built here with nothing downloaded.

The model is a randomly initialised Qwen2 from a small config; the tokenizer a byte-level BPE trained on the games'
rules texts, wrapped as a `PreTrainedTokenizerFast` with TRL's Qwen3 chat template (the one that renders tool calls,
which `GRPOTrainer(environment_factory=...)` requires). Importing this module needs torch, transformers, tokenizers
and trl: tests that use it `importorskip("trl")` first.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from negotiation_platform.llm_rl.tiny_model import save_tiny_model as save_model
from negotiation_platform.llm_rl.tiny_model import tiny_model as build_model
from negotiation_platform.llm_rl.tiny_model import train_tokenizer
from negotiation_platform.registry import Registry
from negotiation_platform.spec.rules_text import render_rules


def corpus(registry: Registry | None = None) -> list[str]:
    """What the tokenizer learns its merges from: every installed game's rules, plus tool-call JSON."""
    registry = registry or Registry()
    texts = [render_rules(entry.spec) for entry in registry.games().values()]
    texts.append('{"name": "propose", "arguments": {"share": 55}} {"type": "object", "properties": {}}')
    return texts


@cache
def tiny_tokenizer() -> Any:
    """A byte-level BPE tokenizer (every string encodable) with the chat template TRL recognises as Qwen3."""
    return train_tokenizer(corpus())


def tiny_model(tokenizer: Any | None = None, seed: int = 0) -> Any:
    """A one-layer Qwen2 of hidden size 16 over `tokenizer`'s vocabulary, its weights drawn with `seed`."""
    return build_model(tokenizer or tiny_tokenizer(), seed=seed)


def save_tiny_model(folder: Path) -> Path:
    """The tiny model and its tokenizer saved in `folder` as a local model folder (what `hf:` and `train-llm` load)."""
    tokenizer = tiny_tokenizer()
    return save_model(folder, tiny_model(tokenizer), tokenizer)
