"""What a training run leaves in its directory, and reading a trained policy back.

DIR/policy.json says which game, config and network the parameters belong to; DIR/params.msgpack
holds them (flax's serialization); DIR/curve.csv is `env_steps,mean_return` per update;
DIR/summary.json the run's figures; DIR/curve.png the learning curve against the baselines.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import jax
import jax.numpy as jnp
from flax import serialization
from flax.typing import VariableDict
from pydantic import JsonValue

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.kernels.action_codes import DEFAULT_PRICE_LEVELS
from negotiation_platform.kernels.env import KernelState, ParamsT, StateT
from negotiation_platform.kernels.marl import MarlEnv, make
from negotiation_platform.registry import Registry
from negotiation_platform.store.csv_cells import write_rows
from negotiation_platform.training.network import ActorCritic


class TrainSummary(TypedDict):
    """DIR/summary.json: the run's game, settings, baselines, result and timings (see `run.train`)."""

    game: str
    config: dict[str, JsonValue]
    algo: str
    seed: int
    train_config: dict[str, JsonValue]
    env_steps: int
    random_return: float
    final_return: float
    scripted: str | None
    scripted_return: float | None
    env_steps_per_second: float
    train_seconds: float
    compile_seconds: float
    fast_compile: bool
    device: str
    platform: str
    devices: int
    """Devices the matches were split over, all processes together."""
    processes: int
    params_sha256: str
    """Of params.msgpack's bytes: ties the summary to its parameters; every process of a run reports the same."""


@dataclass(frozen=True)
class PolicyFile:
    """policy.json: enough to rebuild the environment and the network the parameters fit."""

    game_id: str
    config: dict[str, Any]
    """Spread into `kernels.marl.make`'s keyword overrides, which take any value."""
    hidden: tuple[int, ...]
    price_levels: int
    obs_size: int
    num_actions: int
    team_reward: float = 0.0
    """What the policy was trained on (`TrainConfig`): the weight of the team's reward, and of shaping."""
    shaping: float = 0.0


@dataclass(frozen=True)
class TrainedPolicy:
    env: MarlEnv[KernelState, object]
    network: ActorCritic
    params: VariableDict


def save_policy(
    out: Path,
    env: MarlEnv[StateT, ParamsT],
    config: dict[str, JsonValue],
    hidden: tuple[int, ...],
    params: VariableDict,
    *,
    team_reward: float = 0.0,
    shaping: float = 0.0,
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    price_levels = getattr(env.codes, "levels", 0)
    actions = env.action_space(env.agents[0]).n
    meta = PolicyFile(env.name, config, hidden, price_levels, env.obs_size, actions, team_reward, shaping)
    (out / "policy.json").write_text(json.dumps(meta.__dict__, indent=2, sort_keys=True) + "\n")
    (out / "params.msgpack").write_bytes(serialization.to_bytes(params))


def params_sha256(params: VariableDict) -> str:
    """The SHA-256 of the parameters as params.msgpack holds them (this process's copy)."""
    return hashlib.sha256(serialization.to_bytes(params)).hexdigest()


def load_policy(directory: Path, registry: Registry | None = None) -> TrainedPolicy:
    """The policy trained into `directory`; a missing or foreign directory is an invalid argument."""
    try:
        meta = PolicyFile(**json.loads((directory / "policy.json").read_text()))
        raw = (directory / "params.msgpack").read_bytes()
    except (OSError, ValueError, TypeError) as exc:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"{directory} holds no trained policy (policy.json, params.msgpack): {exc}"
        ) from None
    levels = meta.price_levels or DEFAULT_PRICE_LEVELS
    env = make(meta.game_id, registry=registry, price_levels=levels, **meta.config)
    network = ActorCritic(meta.num_actions, tuple(meta.hidden))
    template = network.init(
        jax.random.key(0), jnp.zeros((1, meta.obs_size)), jnp.ones((1, meta.num_actions), jnp.bool_)
    )
    return TrainedPolicy(env, network, serialization.from_bytes(template, raw))


def write_curve(out: Path, steps_per_update: int, curve: list[float]) -> None:
    with (out / "curve.csv").open("w", newline="") as handle:
        points = (
            [update * steps_per_update, "" if math.isnan(value) else f"{value:.6g}"]
            for update, value in enumerate(curve, start=1)
        )
        write_rows(handle, [("env_steps", "mean_return"), *points])


def write_summary(out: Path, summary: TrainSummary) -> None:
    (out / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")


def plot_curve(out: Path, summary: TrainSummary, steps_per_update: int, curve: list[float]) -> Path | None:
    """DIR/curve.png: mean return per update with the random and scripted returns as lines (None
    without matplotlib, the `report` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    figure, axes = plt.subplots(figsize=(6, 3.6))
    points = [((i + 1) * steps_per_update, value) for i, value in enumerate(curve) if not math.isnan(value)]
    axes.plot(
        [x for x, _ in points], [y for _, y in points], label="IPPO (training policy)"
    )  # updates where episodes ended
    axes.axhline(summary["random_return"], color="grey", linestyle="--", label="random")
    scripted = summary["scripted_return"]
    if scripted is not None:
        axes.axhline(scripted, color="black", linestyle=":", label=f"scripted ({summary['scripted']})")
    axes.set_xlabel("env-steps")
    axes.set_ylabel("mean return per seat")
    axes.set_title(summary["game"])
    axes.legend(loc="lower right")
    figure.tight_layout()
    path = out / "curve.png"
    figure.savefig(path, dpi=80)
    plt.close(figure)
    return path
