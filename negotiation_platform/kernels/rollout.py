"""Batched rollouts: many matches stepped together with a policy, fused with `lax.scan`.

Finished matches are reset in place so every env-step is real work; the scan returns per-step
totals that the CLI and the benchmarks turn into throughput and returns. An env whose matches all
last the same number of steps sets `reset_when_any_done = True`: the batch is then reset only on
the steps where some match ended (a `lax.cond`), not built afresh on every step.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

from negotiation_platform.kernels.env import Env


def tree_where(condition: jax.Array, on_true: Any, on_false: Any) -> Any:
    """Per-match selection between two batched pytrees (condition: bool[B])."""

    def pick(a: jax.Array, b: jax.Array) -> jax.Array:
        mask = condition.reshape(condition.shape + (1,) * (a.ndim - condition.ndim))
        return jnp.where(mask, a, b)

    return jax.tree.map(pick, on_true, on_false)


def reset_batch(env: Env, key: jax.Array, params: Any, batch: int) -> tuple[Any, Any]:
    """(obs, state) for `batch` fresh matches."""
    return jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(key, batch), params)


@partial(jax.jit, static_argnames=("env", "steps"))
def rollout(env: Env, params: Any, key: jax.Array, state: Any, steps: int) -> tuple[Any, jax.Array, jax.Array]:
    """Step every match `steps` times with the random policy; returns (state, summed rewards [A], episodes done)."""
    batch = jax.tree.leaves(state)[0].shape[0]

    def body(carry: tuple[jax.Array, Any], _: None) -> tuple[tuple[jax.Array, Any], tuple[jax.Array, jax.Array]]:
        key, state = carry
        key, act_key, step_key, reset_key = jax.random.split(key, 4)
        actions = jax.vmap(env.sample_actions, in_axes=(0, 0, None))(jax.random.split(act_key, batch), state, params)
        step = jax.vmap(env.step, in_axes=(0, 0, 0, None))(jax.random.split(step_key, batch), state, actions, params)

        def reset_finished(state: Any) -> Any:
            _, fresh = reset_batch(env, reset_key, params, batch)
            return tree_where(step.done, fresh, state)

        if getattr(env, "reset_when_any_done", False):
            state = jax.lax.cond(step.done.any(), reset_finished, lambda state: state, step.state)
        else:
            state = reset_finished(step.state)
        return (key, state), (step.rewards.sum(axis=0), step.done.sum())

    (_, state), (rewards, dones) = jax.lax.scan(body, (key, state), None, length=steps)
    return state, rewards.sum(axis=0), dones.sum()
