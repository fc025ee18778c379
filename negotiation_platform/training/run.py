"""One training run end to end: baselines, the jitted IPPO run, evaluation and the files it writes.

The random baseline and the trained policy are measured the same way (the mean per-seat return
of the episodes that end in `eval_steps` env-steps of `eval_envs` fresh matches, the trained
policy sampling its actions); the scripted baseline is the mean per-seat payoff of whole engine
matches played by a scripted agent in every seat. Throughput counts the training run only, after
compilation. Over a mesh (`training.devices`), every process runs this same code and only process
0 writes the files.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import TypeVar

import jax
import numpy as np
from flax.typing import VariableDict
from jax.sharding import Mesh
from pydantic import JsonValue

from negotiation_platform.agents.catalog import make_agent
from negotiation_platform.agents.driver import play_match
from negotiation_platform.agents.seating import SeatedBy
from negotiation_platform.arena import Arena
from negotiation_platform.kernels.env import ParamsT, StateT
from negotiation_platform.kernels.marl import MarlEnv
from negotiation_platform.kernels.sharding import replicated
from negotiation_platform.registry import Registry
from negotiation_platform.training import artifacts
from negotiation_platform.training.devices import writes_files
from negotiation_platform.training.ippo import TrainConfig, make_train, mean_return, policy_chooser, random_chooser


def team_payoffs(
    registry: Registry, game_id: str, agent: str, matches: int, config: dict[str, JsonValue], seed: int
) -> list[float]:
    """The mean payoff per seat of each of `matches` engine matches with `agent` (a spec such as `gatherer`
    or `policy:DIR`) in every seat, seeds seed, seed+1, …"""

    async def play_all() -> list[float]:
        arena = Arena(registry)
        try:
            seats = (await arena.get_game_rules(game_id, config or None))["spec"]["roles"]["min_players"]
            values = []
            for match in range(matches):
                agents = [
                    make_agent(registry, agent, (seed + match) * 64 + seat, by=SeatedBy.OPERATOR)
                    for seat in range(seats)
                ]
                result = await play_match(arena, game_id, agents, config=config or None, seed=seed + match)
                values.append(sum(result["payoffs"].values()) / seats)
            return values
        finally:
            await arena.close()

    return asyncio.run(play_all())


def scripted_return(
    registry: Registry, game_id: str, agent: str, matches: int, config: dict[str, JsonValue], seed: int
) -> float:
    """Mean payoff per seat of `matches` engine matches with `agent` in every seat (seeds seed, seed+1, …)."""
    values = team_payoffs(registry, game_id, agent, matches, config, seed)
    return sum(values) / matches


Out = TypeVar("Out")
"""What a compiled function returns."""


FAST_COMPILE: dict[str, str | bool] = {"xla_backend_optimization_level": "0"}
"""XLA's options for `--fast-compile` on any backend."""
FAST_COMPILE_CPU: dict[str, str | bool] = {**FAST_COMPILE, "xla_cpu_use_fusion_emitters": False}
"""On the CPU, the fusion emitters off too: an option only the CPU backend reads, so it is not sent to others."""


def compile_for(
    fn: Callable[..., Out], *args: object, fast: bool = False, mesh: Mesh | None = None
) -> Callable[..., Out]:
    """`fn` jitted and compiled for `args`, its results replicated over `mesh`'s devices when given; `fast`
    turns XLA's backend optimizations and the CPU's fusion emitters off, which compiles a trainer
    sooner and runs each step slower (for short runs)."""
    options = (FAST_COMPILE_CPU if jax.default_backend() == "cpu" else FAST_COMPILE) if fast else None
    jitted = jax.jit(fn, out_shardings=replicated(mesh)) if mesh else jax.jit(fn)
    compiled: Callable[..., Out] = jitted.lower(*args).compile(compiler_options=options)
    return compiled


def train(
    env: MarlEnv[StateT, ParamsT],
    game_config: dict[str, JsonValue],
    config: TrainConfig,
    *,
    seed: int,
    out: Path,
    scripted: tuple[str, float] | None = None,
    eval_envs: int = 256,
    eval_steps: int = 256,
    fast_compile: bool = False,
    mesh: Mesh | None = None,
) -> artifacts.TrainSummary:
    """Train, evaluate and write DIR's files (process 0 only); returns the summary (also DIR/summary.json).
    With `mesh`, training and evaluation split their matches over its devices."""
    key = jax.random.key(seed)
    train_key, eval_key = jax.random.split(key)

    def random_play(key: jax.Array) -> jax.Array:
        return mean_return(env, random_chooser, key, eval_envs, eval_steps, mesh)

    random_return = float(compile_for(random_play, eval_key, fast=fast_compile, mesh=mesh)(eval_key))
    if config.reward_scale <= 0:  # auto: returns of about ±1 for the value head
        config = replace(config, reward_scale=max(1.0, abs(random_return)))
    network, run = make_train(env, config, mesh)
    started = time.perf_counter()
    compiled = compile_for(run, train_key, fast=fast_compile, mesh=mesh)
    compile_seconds = time.perf_counter() - started
    started = time.perf_counter()
    params, learned = compiled(train_key)
    curve = np.asarray(learned)  # waits for the run
    train_seconds = time.perf_counter() - started

    def trained_play(params: VariableDict, key: jax.Array) -> jax.Array:
        return mean_return(env, policy_chooser(network, params), key, eval_envs, eval_steps, mesh)

    trained = compile_for(trained_play, params, eval_key, fast=fast_compile, mesh=mesh)

    env_steps = config.num_updates * config.steps_per_update
    summary: artifacts.TrainSummary = {
        "game": env.name,
        "config": game_config,
        "algo": "ippo",
        "seed": seed,
        "train_config": asdict(config),
        "env_steps": env_steps,
        "random_return": random_return,
        "final_return": float(trained(params, eval_key)),
        "scripted": scripted[0] if scripted else None,
        "scripted_return": scripted[1] if scripted else None,
        "env_steps_per_second": env_steps / train_seconds,
        "train_seconds": train_seconds,
        "compile_seconds": compile_seconds,
        "fast_compile": fast_compile,
        "device": str(jax.devices()[0].device_kind),
        "platform": jax.default_backend(),
        "devices": mesh.size if mesh else 1,
        "processes": jax.process_count(),
        "params_sha256": artifacts.params_sha256(params),
    }
    values = [float(v) for v in curve]
    if not writes_files():
        return summary
    artifacts.save_policy(
        out, env, game_config, tuple(config.hidden), params, team_reward=config.team_reward, shaping=config.shaping
    )
    artifacts.write_curve(out, config.steps_per_update, values)
    artifacts.write_summary(out, summary)
    artifacts.plot_curve(out, summary, config.steps_per_update, values)
    return summary
