"""`train-llm`: train a local causal language model by GRPO on one seat of a game, with TRL.

The learner seat moves by tool calls in `make_trl_env(game, opponents=...)`; the dataset is `seed_dataset(steps)`,
one seed per step, and every step samples `group_size` rollouts of that one seed, so TRL's group-relative baseline
compares rollouts of the same deal. The run's folder gets `final/` (a whole model and its tokenizer: a LoRA adapter
is merged into it, and kept alone under `adapter/`), `curve.csv` (step, mean reward) and `summary.json`.

torch, transformers, TRL and peft are imported inside the functions: the package imports without them.
"""

from __future__ import annotations

import contextlib
import csv
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.llm_rl.trl_env import make_trl_env, seed_dataset
from negotiation_platform.registry import Registry

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
    opponents: Sequence[str] = ("concession",),
    group_size: int = 4,
    steps: int = 100,
    seed: int = 0,
    max_completion_length: int = 512,
    learning_rate: float = 1e-5,
    registry: Registry | None = None,
) -> TrainSummary:
    """Train `model` (a local folder: weights, config, tokenizer with a tool-calling chat template) on `game`.

    Bad arguments, an unknown game or opponent and `algo="ad-align"` are refused (NegotiationError) before any model
    is loaded."""
    if algo == "ad-align":
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            "Algorithm 'ad-align' (Advantage Alignment) is not available yet in train-llm; use --algo grpo.",
        )
    if algo not in ALGOS:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"Unknown algorithm {algo!r}: one of {', '.join(ALGOS)}.")
    if group_size < 2:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "--group-size must be at least 2: GRPO needs a group.")
    if steps < 1 or max_completion_length < 1:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "--steps and --max-completion-length must be positive.")
    environment = make_trl_env(game, opponents=list(opponents), registry=registry or Registry())
    source = Path(model)
    if not (source / "config.json").is_file():
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"--model {str(source)!r} is not a local model folder (no config.json in it)."
        )
    started = time.monotonic()
    trainer, device = _trainer(
        source, environment, Path(out), lora, group_size, steps, seed, max_completion_length, learning_rate
    )
    with contextlib.redirect_stdout(sys.stderr):  # the trainer prints its logs: stdout keeps only what was asked
        trainer.train()
    _save(trainer, Path(out), lora)
    curve = reward_curve(trainer.state.log_history)
    write_curve(Path(out) / CURVE, curve)
    summary = TrainSummary(
        game=game,
        algo="grpo",
        model=str(source),
        opponents=list(opponents),
        lora=lora,
        steps=trainer.state.global_step,
        group_size=group_size,
        seed=seed,
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
) -> tuple[Any, str]:
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
        save_strategy="no",
        logging_steps=1,
        disable_tqdm=not sys.stderr.isatty(),  # progress only on a terminal, as the other commands draw it
    )
    peft_config = None
    if lora:
        from peft import LoraConfig

        peft_config = LoraConfig(r=8, lora_alpha=16, target_modules="all-linear", task_type="CAUSAL_LM")
    trainer = GRPOTrainer(
        model=network,
        processing_class=tokenizer,
        train_dataset=seed_dataset(steps),
        environment_factory=environment,
        args=args,
        peft_config=peft_config,
    )
    trainer.remove_callback(PrinterCallback)  # what it prints is in curve.csv
    return trainer, torch.cuda.get_device_name() if cuda else "cpu"


def _save(trainer: Any, out: Path, lora: bool) -> None:
    """`final/`: a whole model with its tokenizer, which `from_pretrained` loads; the adapter alone in `adapter/`."""
    model = trainer.model
    if lora:
        model.save_pretrained(out / ADAPTER)
        model = model.merge_and_unload()
    model.save_pretrained(out / FINAL)
    trainer.processing_class.save_pretrained(out / FINAL)


def reward_curve(log_history: Sequence[dict[str, Any]]) -> list[CurvePoint]:
    """The mean reward of each logged training step, from the trainer's log history."""
    return [CurvePoint(step=entry["step"], mean_reward=entry["reward"]) for entry in log_history if "reward" in entry]


def write_curve(path: Path, curve: Sequence[CurvePoint]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["step", "mean_reward"])
        writer.writerows([point.step, point.mean_reward] for point in curve)
