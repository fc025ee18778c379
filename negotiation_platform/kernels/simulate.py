"""Simulation runs behind `negotiation-platform simulate`: a sharded batch, stepped in timed chunks."""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import TypedDict

import jax

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.kernels.discovery import kernel_for, require_formulations
from negotiation_platform.kernels.env import KernelState
from negotiation_platform.kernels.rollout import Policy, reset_batch, rollout
from negotiation_platform.kernels.sharding import shard_batch
from negotiation_platform.registry import Registry


class SimulationReport(TypedDict):
    """What `simulate` measured (printed by `negotiation-platform simulate`)."""

    game: str
    formulation: str | None
    """The kernel's formulation ("cpu" or "accelerator"), None for a kernel that comes in one."""
    policy: str
    batch: int
    steps: int
    env_steps: int
    first_chunk_seconds: float
    compiled_chunk_lengths: list[int]
    env_steps_per_second: float
    episodes_finished: int
    mean_return_per_episode: list[float]
    devices: list[str]


def simulate(
    registry: Registry,
    game_id: str,
    *,
    batch: int,
    steps: int,
    seed: int = 0,
    config: Mapping[str, object] | None = None,
    policy: str = "random",
    chunk: int = 100,
    progress: Callable[[int], None] = lambda done: None,
    formulation: str | None = None,
) -> SimulationReport:
    """Step `batch` matches `steps` times with `policy` (see `load_policy`), in chunks; a chunk of a length not
    run before compiles, so those are timed apart (`first_chunk_seconds` sums them). `formulation` picks
    one of a kernel's formulations (None: JAX's backend picks); a game whose kernel has one is refused."""
    if formulation is not None:
        require_formulations(registry, game_id)
    env, params = kernel_for(registry, game_id, config, formulation=formulation)
    act = load_policy(policy)
    key = jax.random.key(seed)
    key, reset_key = jax.random.split(key)
    _, state = reset_batch(env, reset_key, params, batch)
    devices = jax.devices()
    if len(devices) > 1 and batch % len(devices) == 0:
        state = shard_batch(state, devices)
    totals, episodes, done_steps = None, 0, 0
    first_chunk_seconds, steady_seconds, steady_steps = 0.0, 0.0, 0
    compiled: list[int] = []
    while done_steps < steps:
        size = min(chunk, steps - done_steps)
        key, chunk_key = jax.random.split(key)
        started = time.perf_counter()
        state, rewards, finished = rollout(env, params, chunk_key, state, size, act)
        jax.block_until_ready(state)
        elapsed = time.perf_counter() - started
        if size not in compiled:
            compiled.append(size)
            first_chunk_seconds += elapsed
        else:
            steady_seconds += elapsed
            steady_steps += size
        totals = rewards if totals is None else totals + rewards
        episodes += int(finished)
        done_steps += size
        progress(done_steps)
    rate_steps, rate_seconds = (steady_steps, steady_seconds) if steady_steps else (done_steps, first_chunk_seconds)
    return {
        "game": game_id,
        "formulation": getattr(env, "formulation", None),
        "policy": policy,
        "batch": batch,
        "steps": steps,
        "env_steps": batch * steps,
        "first_chunk_seconds": round(first_chunk_seconds, 4),
        "compiled_chunk_lengths": compiled,
        "env_steps_per_second": batch * rate_steps / rate_seconds,
        "episodes_finished": episodes,
        "mean_return_per_episode": [float(x) / max(episodes, 1) for x in (totals if totals is not None else [])],
        "devices": [str(d) for d in devices],
    }


def load_policy(path: str) -> Policy[KernelState] | None:
    """ "random" (None: uniformly random legal actions), or "package.module:function" / "package.module.function"
    naming a jittable `policy(key, obs, state) -> actions` for one match."""
    if path == "random":
        return None
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # a policy module of the current project, as `python -m` would find it
    module_name, _, attribute = path.partition(":") if ":" in path else path.rpartition(".")
    if not module_name or not attribute:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"--policy {path!r}: use 'random' or 'module:function'.")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"--policy {path!r}: {exc}") from None
    if not callable(found):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"--policy {path!r} is not a function.")
    policy: Policy[KernelState] = found
    return policy
