"""`train-llm`: train a local causal language model on a game, by GRPO with TRL or by Advantage Alignment.

`algo="ad-align"` runs `self_play.train_ad_align` (self-play by default). `algo="grpo"` is TRL's GRPOTrainer: the
learner seat moves by tool calls in `make_trl_env(game, opponents=...)`; the dataset is `seed_dataset(steps)`, one
seed per step, and every step samples `group_size` rollouts of that one seed, so TRL's group-relative baseline
compares rollouts of the same deal. The run's folder gets `checkpoint-<step>/` every `save_every` steps, `final/`
(a whole model and its tokenizer: a LoRA adapter is merged into it, and kept alone under `adapter/`), `curve.csv`
(step, mean reward) and `summary.json`.

torch, transformers, TRL and peft are imported inside the functions: the package imports without them.
"""

from __future__ import annotations

import contextlib
import csv
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, JsonValue

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.llm_rl.advantages import TRUST_AND_SPLIT_BETA, TRUST_AND_SPLIT_GAMMA
from negotiation_platform.llm_rl.grammar import Grammar
from negotiation_platform.llm_rl.trl_env import make_trl_env, seed_dataset
from negotiation_platform.registry import Registry

if TYPE_CHECKING:
    from peft import LoraConfig
    from trl.trainer.grpo_trainer import GRPOTrainer

Algo = Literal["grpo", "ad-align"]
ALGOS: tuple[Algo, ...] = ("grpo", "ad-align")
FINAL = "final"
ADAPTER = "adapter"
CURVE = "curve.csv"
SUMMARY = "summary.json"


class CurvePoint(BaseModel):
    """One logged optimisation step: the mean reward of the rollouts it trained on."""

    step: int
    mean_reward: float


class TrainSummary(BaseModel):
    """What `summary.json` holds: the run's settings and the mean reward at its first and last step."""

    game: str
    algo: Algo
    model: str
    opponents: list[str]
    lora: bool
    steps: int
    group_size: int
    seed: int
    beta: float | None = None
    """Advantage Alignment's β and γ (ad-align only)."""
    gamma: float | None = None
    save_every: int = 0
    grammar: Grammar = "json"
    start_mean_reward: float | None
    end_mean_reward: float | None
    seconds: float
    device: str
    out: str


def train_llm(
    game: str,
    model: str | Path,
    *,
    out: str | Path,
    algo: str = "grpo",
    lora: bool = False,
    opponents: Sequence[str] | None = None,
    group_size: int = 4,
    steps: int = 100,
    seed: int = 0,
    max_completion_length: int = 512,
    learning_rate: float = 1e-5,
    beta: float = TRUST_AND_SPLIT_BETA,
    gamma: float = TRUST_AND_SPLIT_GAMMA,
    save_every: int = 0,
    grammar: Grammar = "json",
    config: dict[str, JsonValue] | None = None,
    registry: Registry | None = None,
) -> TrainSummary:
    """Train `model` (a local folder: weights, config, tokenizer with a tool-calling chat template) on `game`.

    `opponents` defaults to `self` for ad-align (self-play) and `concession` for grpo, where `self` is a frozen
    copy of the model as it was at the start (`hf:MODEL`). `grammar` is the replies' (ad-align: what the model
    writes; grpo: how its tool calls are written to the text environment). Bad arguments, an unknown game or
    opponent are refused (NegotiationError) before any model is trained and before anything is written."""
    if algo not in ALGOS:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"Unknown algorithm {algo!r}: one of {', '.join(ALGOS)}.")
    if group_size < 2:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "--group-size must be at least 2: GRPO needs a group.")
    if steps < 1 or max_completion_length < 1 or save_every < 0:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            "--steps and --max-completion-length must be positive, --save-every not negative.",
        )
    if not 0.0 <= gamma <= 1.0:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"--gamma must be in [0, 1], got {gamma}.")
    registry = registry or Registry()
    source = Path(model)
    if not (source / "config.json").is_file():
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"--model {str(source)!r} is not a local model folder (no config.json in it)."
        )
    opponents = list(opponents or (["self"] if algo == "ad-align" else ["concession"]))
    started = time.monotonic()
    if algo == "ad-align":
        from negotiation_platform.llm_rl.self_play import seat_specs, train_ad_align

        specs = seat_specs(game, opponents, registry, config)
        network, tokenizer, curve, device = train_ad_align(
            game, source, Path(out), specs=specs, lora=lora, group_size=group_size, steps=steps, seed=seed,
            max_new_tokens=max_completion_length, learning_rate=learning_rate, beta=beta, gamma=gamma,
            save_every=save_every, config=config, registry=registry, grammar=grammar,
        )  # fmt: skip
        done = len(curve)
    else:
        environment = make_trl_env(
            game, opponents=frozen_self(opponents, source), grammar=grammar, config=config, registry=registry
        )
        trainer, device = _trainer(
            source, environment, Path(out), lora, group_size, steps, seed, max_completion_length, learning_rate,
            save_every,
        )  # fmt: skip
        with contextlib.redirect_stdout(sys.stderr):  # the trainer prints its logs: stdout keeps only what was asked
            trainer.train()
        network, tokenizer = trainer.model, trainer.processing_class
        curve = reward_curve(trainer.state.log_history)
        done = trainer.state.global_step
    save_model(network, tokenizer, Path(out), lora)
    write_curve(Path(out) / CURVE, curve)
    summary = TrainSummary(
        game=game,
        algo=algo,
        model=str(source),
        opponents=opponents,
        lora=lora,
        steps=done,
        group_size=group_size,
        seed=seed,
        beta=beta if algo == "ad-align" else None,
        gamma=gamma if algo == "ad-align" else None,
        save_every=save_every,
        grammar=grammar,
        start_mean_reward=curve[0].mean_reward if curve else None,
        end_mean_reward=curve[-1].mean_reward if curve else None,
        seconds=round(time.monotonic() - started, 3),
        device=device,
        out=str(out),
    )
    (Path(out) / SUMMARY).write_text(summary.model_dump_json(indent=2) + "\n")
    return summary


def _trainer(
    source: Path,
    environment: type,
    out: Path,
    lora: bool,
    group_size: int,
    steps: int,
    seed: int,
    max_completion_length: int,
    learning_rate: float,
    save_every: int,
) -> tuple[GRPOTrainer, str]:
    """The GRPOTrainer over the local model; on the CPU when no GPU is present."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, PrinterCallback
    from trl.trainer.grpo_config import GRPOConfig
    from trl.trainer.grpo_trainer import GRPOTrainer

    cuda = torch.cuda.is_available()
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
    network = AutoModelForCausalLM.from_pretrained(source, local_files_only=True)
    args = GRPOConfig(
        output_dir=str(out),
        use_vllm=False,
        use_cpu=not cuda,
        bf16=cuda and torch.cuda.is_bf16_supported(),
        per_device_train_batch_size=group_size,
        num_generations=group_size,
        max_completion_length=max_completion_length,
        learning_rate=learning_rate,
        max_steps=steps,
        seed=seed,
        gradient_checkpointing=False,
        report_to="none",
        save_strategy="steps" if save_every else "no",
        save_steps=save_every or 1,
        save_only_model=True,  # checkpoint-<step>/: the model (with --lora its adapter) and the tokenizer
        logging_steps=1,
        disable_tqdm=not sys.stderr.isatty(),  # progress only on a terminal, as the other commands draw it
    )
    trainer = GRPOTrainer(
        model=network,
        processing_class=tokenizer,
        train_dataset=seed_dataset(steps),
        environment_factory=environment,
        args=args,
        peft_config=lora_config() if lora else None,
    )
    trainer.remove_callback(PrinterCallback)  # what it prints is in curve.csv
    return trainer, torch.cuda.get_device_name() if cuda else "cpu"


def frozen_self(opponents: Sequence[str], source: Path) -> list[str]:
    """GRPO's opponents with `self` as `hf:SOURCE`: the model as it was at the start, frozen. TRL's trainer samples
    one learner seat per rollout, so the moving model cannot also play the other seats (ad-align's loop can)."""
    return [f"hf:{source.resolve()}" if spec == "self" else spec for spec in opponents]


def lora_config() -> LoraConfig:
    """The LoRA adapter `--lora` trains: rank 8 on every linear layer."""
    from peft import LoraConfig

    return LoraConfig(r=8, lora_alpha=16, target_modules="all-linear", task_type="CAUSAL_LM")


def save_model(model: Any, tokenizer: Any, out: Path, lora: bool) -> None:
    """`final/`: a whole model with its tokenizer, which `from_pretrained` loads; the adapter alone in `adapter/`."""
    if lora:
        model.save_pretrained(out / ADAPTER)
        model = model.merge_and_unload()
    model.save_pretrained(out / FINAL)
    tokenizer.save_pretrained(out / FINAL)


def reward_curve(log_history: Sequence[Mapping[str, float]]) -> list[CurvePoint]:
    """The mean reward of each logged training step, from the trainer's log history."""
    return [
        CurvePoint(step=int(entry["step"]), mean_reward=entry["reward"]) for entry in log_history if "reward" in entry
    ]


def write_curve(path: Path, curve: Sequence[CurvePoint]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["step", "mean_reward"])
        writer.writerows([point.step, point.mean_reward] for point in curve)
