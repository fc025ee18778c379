"""A tiny language model for CPU runs with nothing downloaded: a tokenizer trained here, a model from a config,
and a supervised warm start on random legal replies.

An untrained model writes random tokens: every reply is unusable, every move the game's default, every reward the
same, and a group-relative baseline sees no difference to learn from. The warm start fixes that at the root: a few
seconds of supervised training on replies `TextEnv.legal_reply` draws (in the compact grammar: `split 7`) teach the
model the reply's form, not a strategy, since the replies are random. The model then starts as a random legal
player whose sampled replies differ across a group, so their rewards do too. The tokenizer is a byte-level BPE
trained on the games' rules and on such replies, so a reply is a couple of tokens (`split`, ` 7`) and one sampled
token carries one decision. Generation constrained to the grammar would need a parser per game's payloads; a
tokenizer alone leaves most sampled replies unusable.

torch, transformers, tokenizers and TRL (its tool-calling chat template) are imported inside the functions.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from negotiation_platform.llm_rl.grammar import Grammar
from negotiation_platform.llm_rl.text_env import SeatPrompt, TextEnv
from negotiation_platform.registry import Registry
from negotiation_platform.spec.rules_text import render_rules

SPECIAL_TOKENS = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
)
"""The special tokens of TRL's Qwen3 chat template, which renders tool calls (GRPOTrainer's environments need it)."""


def train_tokenizer(texts: Iterable[str], vocab_size: int = 2000) -> Any:
    """A byte-level BPE tokenizer (every string encodable) learnt from `texts`, as a `PreTrainedTokenizerFast` with
    TRL's Qwen3 chat template; `vocab_size` is an upper bound (a small corpus runs out of merges first)."""
    import trl
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(texts, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]  # transformers leaves it untyped
        tokenizer_object=bpe,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=list(SPECIAL_TOKENS[1:]),
    )
    tokenizer.chat_template = (Path(trl.__file__).parent / "chat_templates" / "qwen3.jinja").read_text()
    return tokenizer


def grammar_corpus(
    games: Sequence[str], registry: Registry, grammar: Grammar = "compact", matches: int = 20
) -> list[str]:
    """What a tokenizer for `games` learns from: their rules, and the random legal replies of `matches` matches each
    in `grammar` (repeated, so the replies' words and numbers become whole tokens)."""
    texts = [render_rules(registry.game(game).spec) for game in games]
    for game in games:
        env = TextEnv(game, registry=registry, grammar=grammar, max_retries=0)
        texts += [reply for _, reply in random_replies(env, range(matches))]
    return texts


def tiny_model(tokenizer: Any, seed: int = 0, hidden_size: int = 16, layers: int = 1) -> Any:
    """A Qwen2 of `layers` layers and width `hidden_size` over `tokenizer`'s vocabulary, its weights drawn with
    `seed`."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(seed)
    return AutoModelForCausalLM.from_config(config)  # type: ignore[no-untyped-call]  # untyped in transformers


def prompt_ids(tokenizer: Any, prompt: SeatPrompt) -> Any:
    """A seat's prompt as the model reads it: the chat template's tokens, a [1, n] tensor, ending where the
    assistant's reply begins."""
    chat = [{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}]
    encoded = tokenizer.apply_chat_template(chat, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    return encoded["input_ids"]


def random_replies(env: TextEnv, seeds: Iterable[int]) -> list[tuple[SeatPrompt, str]]:
    """Every (prompt, reply) of matches of `env` played to the end by random legal replies, one match per seed."""
    pairs: list[tuple[SeatPrompt, str]] = []
    for seed in seeds:
        env.reset(seed=seed)
        rng = random.Random(f"warm-start:{seed}")
        while not env.done:
            for seat in env.to_move():
                if seat in env.to_move():  # a simultaneous phase may settle without it
                    prompt, reply = env.prompt(seat), env.legal_reply(seat, rng)
                    pairs.append((prompt, reply))
                    env.step(seat, reply)
    return pairs


def warm_start(
    model: Any,
    tokenizer: Any,
    game: str,
    *,
    matches: int = 8,
    epochs: int = 2,
    learning_rate: float = 1e-2,
    grammar: Grammar = "compact",
    config: Mapping[str, object] | None = None,
    registry: Registry | None = None,
    seed: int = 0,
) -> float:
    """Teach `model` the form of `game`'s replies: `epochs` passes of next-token cross-entropy on the replies (and
    their end token) of `matches` matches played by random legal replies. Returns the last pass's mean loss."""
    import torch

    env = TextEnv(game, config=config, registry=registry, grammar=grammar, max_retries=0)
    examples = [
        (
            prompt_ids(tokenizer, prompt)[0].tolist(),
            [*tokenizer.encode(reply, add_special_tokens=False), tokenizer.eos_token_id],
        )
        for prompt, reply in random_replies(env, range(10_000 + seed, 10_000 + seed + matches))
    ]
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    order = random.Random(seed)
    model.train()
    loss_sum = 0.0
    for _ in range(epochs):
        order.shuffle(examples)
        loss_sum = 0.0
        for prompt, reply in examples:
            ids = torch.tensor([prompt + reply])
            logits = model(input_ids=ids).logits[0, len(prompt) - 1 : -1]
            loss: Any = torch.nn.functional.cross_entropy(logits, ids[0, len(prompt) :])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_sum += loss.item()
    model.eval()
    return loss_sum / max(len(examples), 1)


def save_tiny_model(folder: Path, model: Any, tokenizer: Any) -> Path:
    """`model` and `tokenizer` saved in `folder` as a local model folder (what `hf:` and `train-llm` load)."""
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
