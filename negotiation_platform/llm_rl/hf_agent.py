"""`hf:DIR`: a transformers causal language model saved in DIR (a trained one) plays a seat.

It reads the game exactly as an `llm:` agent does (the same system message, situation and reply
parser, `agents.llm.converse`), so a model trained on `TextEnv`'s JSON grammar plays here
unchanged. The model and its tokenizer are loaded from DIR's own files (`local_files_only`: nothing
is downloaded) and generate on this machine: greedily by default, or by sampling at a temperature
from a `torch.Generator` seeded with the seat's seed, never from a global generator, so the same
seeds play the same match. An unreadable reply is answered with what was wrong, up to
`max_replies` times, then the move is forfeited (the game's default move is played).

DIR is a path on the server: only the operator seats an `hf:` agent (`reads_local_files`). torch
and transformers (the `llm-rl` extra) are imported only when one is made. vLLM is not used.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from negotiation_platform.agents.base import Decision
from negotiation_platform.agents.chat_options import read_options
from negotiation_platform.agents.llm import converse, refusal_forfeit
from negotiation_platform.errors import ErrorCode, NegotiationError

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel

LOADED: OrderedDict[tuple[str, str, tuple[tuple[str, int], ...]], Loaded] = OrderedDict()
"""Models loaded in this process, by directory, device and its files' times: a tournament's matches share one."""
KEEP_LOADED = 2


class ChatTokenizer(Protocol):
    """What the agent uses of a transformers tokenizer: its chat template, decoding and end token."""

    chat_template: str | None
    eos_token_id: int | None

    def apply_chat_template(
        self,
        conversation: Sequence[Mapping[str, object]],
        *,
        add_generation_prompt: bool,
        return_tensors: str,
        return_dict: bool,
    ) -> Mapping[str, torch.Tensor]: ...

    def decode(self, tokens: list[int], *, skip_special_tokens: bool) -> str: ...


Loaded = tuple["PreTrainedModel", ChatTokenizer]
"""A model and its tokenizer."""


class HFAgentOptions(BaseModel):
    """The `hf:` agent's options (`--agent-config` keys of `play` and `tournament`).

    Attributes:
        max_new_tokens: the most tokens one reply may have.
        temperature: 0 decodes greedily; above 0, tokens are sampled at this temperature from the
            seat's own generator, seeded with the seat's seed.
        max_replies: unusable replies per move before it is forfeited.
        max_refusals: moves the arena refuses in a row before the next one is forfeited.
        device: where the model runs (`cpu`, `cuda`, `cuda:1`, ...; None: `cuda` when torch sees one).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_new_tokens: int = Field(256, ge=1, le=32_768)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_replies: int = Field(3, ge=1, le=100)
    max_refusals: int = Field(3, ge=0, le=100)
    device: str | None = None


class HFAgent:
    """A transformers causal LM saved in a directory, as hf:DIR (the `llm-rl` extra).

    Args:
        seed: the seat's seed: it seeds the sampling generator.
        name: the seat's name.
        target: the model's directory, as in `hf:DIR` (its `save_pretrained` files and the tokenizer's).
        **options: see `HFAgentOptions`.
    """

    needs_target = True
    """Named as `hf:DIR`: the kind alone is not a playable agent."""
    reads_local_files = True
    """DIR is a path on the server: a served arena never seats one a client names (see `seating`)."""
    Options = HFAgentOptions

    def __init__(self, seed: int = 0, name: str = "hf", target: str = "", **options: object) -> None:
        settings = read_options(HFAgentOptions, "hf", options)
        model_directory(target)  # refused before torch is imported

        import torch

        self.name = name
        self.directory = target
        self.settings = settings
        self.device = settings.device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.model, self.tokenizer = load(target, self.device)
        self.generator = torch.Generator().manual_seed(seed)
        """This seat's sampling draws: seeded by the seat, advanced by its replies only."""
        self.transcript: list[dict[str, object]] = []
        """One entry per reply: the raw reply, what was wrong with it, its tokens and seconds."""
        self._refusals = 0

    async def decide(self, turn: Mapping[str, object]) -> Decision:
        self._refusals, forfeit = refusal_forfeit(self._refusals, self.settings.max_refusals, turn)
        if forfeit is not None:
            return forfeit

        async def ask(conversation: Sequence[Mapping[str, object]]) -> tuple[str, dict[str, object]]:
            return await asyncio.to_thread(self.reply, conversation)  # generating must not hold the event loop

        return await converse(turn, self.settings.max_replies, ask, self.transcript)

    def reply(self, conversation: Sequence[Mapping[str, object]]) -> tuple[str, dict[str, object]]:
        """The model's reply to `conversation` through the tokenizer's chat template, with its token counts
        and seconds (as an `llm:` transcript's `usage`)."""
        started = time.monotonic()
        encoded = self.tokenizer.apply_chat_template(
            conversation, add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
        prompt = encoded["input_ids"].to(self.device)
        tokens = decode(self.model, prompt, stop_tokens(self.model, self.tokenizer), self.settings, self.generator)
        text = self.tokenizer.decode(tokens, skip_special_tokens=True)
        usage = {"prompt_tokens": int(prompt.shape[-1]), "completion_tokens": len(tokens)}
        return text, {"usage": usage, "seconds": round(time.monotonic() - started, 6)}


def decode(
    model: PreTrainedModel, prompt: torch.Tensor, stops: set[int], settings: HFAgentOptions, generator: torch.Generator
) -> list[int]:
    """The new tokens after `prompt` (a [1, n] tensor), one at a time with the model's cache, until a stop
    token or `max_new_tokens`: the most likely one at temperature 0, else a draw from `generator`."""
    import torch

    tokens: list[int] = []
    step, past = prompt, None
    cache = cache_argument(model)
    with torch.inference_mode():
        for _ in range(settings.max_new_tokens):
            out = model(input_ids=step, use_cache=True, **{cache: past})
            past, logits = getattr(out, cache), out.logits[0, -1].float()
            if settings.temperature > 0:
                probs = torch.softmax(logits / settings.temperature, dim=-1).cpu()
                token = int(torch.multinomial(probs, 1, generator=generator).item())
            else:
                token = int(torch.argmax(logits).item())
            if token in stops:
                break
            tokens.append(token)
            step = torch.tensor([[token]], device=prompt.device)
    return tokens


def cache_argument(model: PreTrainedModel) -> str:
    """The name under which the model takes and returns its key-value cache: `cache` in recent
    transformers releases, `past_key_values` before."""
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def stop_tokens(model: PreTrainedModel, tokenizer: ChatTokenizer) -> set[int]:
    """The tokens that end a reply: the tokenizer's end token and the model's generation config's."""
    configured = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    ids = configured if isinstance(configured, list) else [configured]
    return {int(i) for i in [*ids, tokenizer.eos_token_id] if i is not None}


def model_directory(directory: str) -> Path:
    """`directory` as a path, or `invalid_argument` when there is no such directory."""
    path = Path(directory).expanduser()
    if not path.is_dir():
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"hf agents load a model from a directory: there is no directory {directory!r}."
        )
    return path


def load(directory: str, device: str) -> Loaded:
    """The model and tokenizer saved in `directory`, from its files only, kept for the next seat that names
    them; a directory that is missing or holds no loadable model is `invalid_argument`."""
    path = model_directory(directory)
    key = (str(path.resolve()), device, tuple(sorted((p.name, p.stat().st_mtime_ns) for p in path.iterdir())))
    if key in LOADED:
        LOADED.move_to_end(key)
        return LOADED[key]
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer: Any = AutoTokenizer.from_pretrained(path, local_files_only=True)  # matched to `ChatTokenizer`
        model: Any = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)  # its `to` is mistyped
        model = model.to(device).eval()
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"No causal language model and tokenizer could be loaded from {directory!r} ({type(exc).__name__}).",
        ) from None
    if not tokenizer.chat_template:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"The tokenizer in {directory!r} has no chat template to write prompts with."
        )
    LOADED[key] = (model, tokenizer)
    while len(LOADED) > KEEP_LOADED:
        LOADED.popitem(last=False)
    return model, tokenizer
