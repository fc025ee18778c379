"""Does a tiny language model learn here? `train-llm` on No-Press Split on the CPU, nothing downloaded.

The model is built on the spot (`negotiation_platform.llm_rl.tiny_model`): a byte-level BPE tokenizer trained on
the game's rules and random compact replies (`split 7`), a Qwen2 of width 32 from a config, and a warm start of
a few seconds on random legal replies, so it starts as a random legal player. Then
`negotiation-platform train-llm no_press --algo ad-align --opponents random --beta 0 --gamma 0 --grammar compact`
runs as a subprocess (β = 0: Advantage Alignment's credit is the plain leave-one-out advantage of the group;
γ = 0: a round's claim against a random agent shapes only that round). Printed: the mean payoff of the first seat
over the same evaluation seeds for the model at the start, at the end, and for the random agent in its place,
the training's wall time, and the load average with each figure.

`--social` runs instead the paper's comparison on Trust-and-Split in self-play (hands alternate, so the round's starter
wins and knows it; no talk; 3 rounds): Advantage Alignment (β = 2, γ = 0.96) against the same loop with β = 0
(plain group-relative policy gradient), the same warm-started model, seeds and steps; printed, the collective
payoff of each model in self-play on the evaluation seeds.

`--quick` runs 2 steps of 2 rollouts and 2 evaluation matches: it checks the pipeline, not the learning.

    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/llm_learning.py [--steps N] [--social] [--quick] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

NO_PRESS = "no_press"
TRUST = "trust_and_split"
TRUST_CONFIG = {"hands": "alternating", "messages_per_round": 0, "rounds": 3}
LEARNING_RATE = 2e-3
"""AdamW's first step moves every weight by about the learning rate: at 1e-2 one step of a width-32 model drowned
the warm start (every reply unusable from step 2 on)."""
EVAL_SEEDS = 20_000
"""Evaluation seeds start here: away from the training seeds (0..steps-1) and the warm start's (10,000..)."""


class Figure(BaseModel):
    """One measured number, with the load average of the machine when it was taken."""

    name: str
    value: float
    seconds: float
    load: float


def load() -> float:
    return round(os.getloadavg()[0], 2)


def build(folder: Path, game: str, config: dict[str, Any] | None, matches: int, epochs: int) -> Path:
    """The warm-started tiny model for `game`, saved in `folder`."""
    from negotiation_platform.llm_rl.tiny_model import (
        grammar_corpus,
        save_tiny_model,
        tiny_model,
        train_tokenizer,
        warm_start,
    )
    from negotiation_platform.registry import Registry

    registry = Registry()
    tokenizer = train_tokenizer(grammar_corpus([game], registry))
    model = tiny_model(tokenizer, hidden_size=32)
    warm_start(model, tokenizer, game, matches=matches, epochs=epochs, config=config, registry=registry)
    return save_tiny_model(folder, model, tokenizer)


def evaluate(model_dir: Path, game: str, specs: Sequence[str], matches: int, config: dict[str, Any] | None) -> float:
    """The mean over `matches` evaluation seeds of the summed payoff of the seats whose spec is `self` (the model,
    sampling at temperature 1) or, with none, of the first seat."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from negotiation_platform.llm_rl.self_play import SELF, Policy, play_rollout
    from negotiation_platform.llm_rl.text_env import TextEnv
    from negotiation_platform.registry import Registry

    registry = Registry()
    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    model: Any = AutoModelForCausalLM.from_pretrained(model_dir, local_files_only=True)
    model.eval()
    policy = Policy(model, tokenizer, "cpu", max_new_tokens=6, seed=EVAL_SEEDS)
    env = TextEnv(game, config=config, registry=registry, grammar="compact", max_retries=0)
    seats = [seat for seat, spec in zip(env.seats, specs, strict=True) if spec == SELF] or [env.seats[0]]
    payoffs = [
        sum(sum(play_rollout(env, policy, specs, seed, registry).rewards[seat]) for seat in seats)
        for seed in range(EVAL_SEEDS, EVAL_SEEDS + matches)
    ]
    return sum(payoffs) / len(payoffs)


def train(model_dir: Path, out: Path, game: str, extra: Sequence[str], steps: int, group: int) -> dict[str, Any]:
    """`negotiation-platform train-llm` as a user runs it; its summary."""
    command = [
        sys.executable, "-m", "negotiation_platform.cli.main", "train-llm", game, "--model", str(model_dir),
        "--algo", "ad-align", "--grammar", "compact", "--steps", str(steps), "--group-size", str(group),
        "--max-completion-length", "6", "--lr", str(LEARNING_RATE), "--out", str(out), "--json", *extra,
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"train-llm failed ({done.returncode}):\n{done.stderr[-3000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary: dict[str, Any] = json.loads(done.stdout)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(f"  train-llm: {summary['seconds']:.0f} s training, {cpu:.0f} s of CPU time in all", flush=True)
    return summary


def measure(name: str, work: Callable[..., float], *args: Any) -> Figure:
    """`work(*args)`, printed with its seconds and the load average after it."""
    started = time.monotonic()
    value = work(*args)
    figure = Figure(name=name, value=round(value, 3), seconds=round(time.monotonic() - started, 1), load=load())
    print(f"{name:<44} {figure.value:>10.3f}   ({figure.seconds:.1f} s, load {figure.load})", flush=True)
    return figure


def trained(model_dir: Path, out: Path, game: str, extra: Sequence[str], steps: int, group: int) -> float:
    """The last step's mean reward of a `train-llm` run."""
    return float(train(model_dir, out, game, extra, steps, group)["end_mean_reward"])


def learning(work: Path, steps: int, group: int, matches: int, warm: tuple[int, int]) -> list[Figure]:
    """No-Press Split against the random agent: start, end, and the random agent in the model's seat."""
    start_dir = build(work / "start", NO_PRESS, None, *warm)
    run = work / "no-press"
    plain = ["--opponents", "random", "--beta", "0", "--gamma", "0"]
    return [
        measure("random agent: mean payoff", evaluate, start_dir, NO_PRESS, ["random", "random"], matches, None),
        measure("model at start: mean payoff", evaluate, start_dir, NO_PRESS, ["self", "random"], matches, None),
        measure(f"train-llm {steps}x{group}: last reward", trained, start_dir, run, NO_PRESS, plain, steps, group),
        measure("model at end: mean payoff", evaluate, run / "final", NO_PRESS, ["self", "random"], matches, None),
    ]


def social(work: Path, steps: int, group: int, matches: int, warm: tuple[int, int]) -> list[Figure]:
    """Trust-and-Split in self-play: collective payoff of Advantage Alignment and of β = 0 on the same budget."""
    start_dir = build(work / "trust-start", TRUST, TRUST_CONFIG, *warm)
    both = ["self", "self"]
    figures = [measure("trust: start, collective payoff", evaluate, start_dir, TRUST, both, matches, TRUST_CONFIG)]
    for name, beta in (("ad-align", "2"), ("beta0", "0")):
        run, extra = work / f"trust-{name}", ["--config", json.dumps(TRUST_CONFIG), "--beta", beta]
        figures += [
            measure(f"trust: train {name}, last step's reward", trained, start_dir, run, TRUST, extra, steps, group),
            measure(f"trust: {name}, collective payoff", evaluate, run / "final", TRUST, both, matches, TRUST_CONFIG),
        ]
    return figures


def main(argv: Sequence[str] | None = None) -> list[Figure]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=40, help="training steps (one seed of --group rollouts each)")
    parser.add_argument("--group", type=int, default=8, help="rollouts per seed")
    parser.add_argument("--matches", type=int, default=24, help="evaluation matches (seeds) per figure")
    parser.add_argument("--social", action="store_true", help="Advantage Alignment vs β = 0 on Trust-and-Split instead")
    parser.add_argument("--quick", action="store_true", help="2 steps of 2 rollouts: the pipeline, not the learning")
    parser.add_argument("--out", type=Path, default=None, help="keep the models and runs here (default: a temp dir)")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    steps, group, matches, warm = (2, 2, 2, (1, 1)) if args.quick else (args.steps, args.group, args.matches, (8, 2))
    with tempfile.TemporaryDirectory() as temporary:
        work = args.out or Path(temporary)
        started = time.monotonic()
        figures = (social if args.social else learning)(work, steps, group, matches, warm)
        print(f"{'total wall time (s)':<44} {time.monotonic() - started:>10.1f}   (load {load()})")
    return figures


if __name__ == "__main__":
    main()
