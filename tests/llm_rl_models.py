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

import trl
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast, Qwen2Config

from negotiation_platform.registry import Registry
from negotiation_platform.spec.rules_text import render_rules

SPECIAL_TOKENS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
]
VOCAB_SIZE = 2000
"""An upper bound: the corpus is small, so the merges run out first (about 1,350 tokens)."""
CHAT_TEMPLATE = Path(trl.__file__).parent / "chat_templates" / "qwen3.jinja"


def corpus(registry: Registry | None = None) -> list[str]:
    """What the tokenizer learns its merges from: every installed game's rules, plus tool-call JSON."""
    registry = registry or Registry()
    texts = [render_rules(entry.spec) for entry in registry.games().values()]
    texts.append('{"name": "propose", "arguments": {"share": 55}} {"type": "object", "properties": {}}')
    return texts


@cache
def tiny_tokenizer() -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer (every string encodable) with the chat template TRL recognises as Qwen3."""
    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(corpus(), trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=SPECIAL_TOKENS[1:],
    )
    tokenizer.chat_template = CHAT_TEMPLATE.read_text()
    return tokenizer


def tiny_model(tokenizer: PreTrainedTokenizerFast | None = None, seed: int = 0) -> Any:
    """A one-layer Qwen2 of hidden size 16 over `tokenizer`'s vocabulary, its weights drawn with `seed`."""
    import torch

    tokenizer = tokenizer or tiny_tokenizer()
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(seed)
    return AutoModelForCausalLM.from_config(config)


def save_tiny_model(folder: Path) -> Path:
    """The tiny model and its tokenizer saved in `folder` as a local model folder (what `hf:` and `train-llm` load)."""
    tokenizer = tiny_tokenizer()
    tiny_model(tokenizer).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
