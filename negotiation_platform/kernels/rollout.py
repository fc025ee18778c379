"""Batched rollouts: many matches stepped together with a policy, fused with `lax.scan`.

Finished matches are reset in place so every env-step is real work; the scan returns per-step
totals that the CLI and the benchmarks turn into throughput and returns. An env whose matches all
last the same number of steps sets `reset_when_any_done = True`: the batch is then reset only on
the steps where some match ended (a `lax.cond`), not built afresh on every step.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

from negotiation_platform.kernels import threefry
from negotiation_platform.kernels.env import Env


def tree_where(condition: jax.Array, on_true: Any, on_false: Any) -> Any:
    """Per-match selection between two batched pytrees (condition: bool[B])."""

    def pick(a: jax.Array, b: jax.Array) -> jax.Array:
        mask = condition.reshape(condition.shape + (1,) * (a.ndim - condition.ndim))
        return jnp.where(mask, a, b)

    return jax.tree.map(pick, on_true, on_false)


def match_keys(key: jax.Array, batch: int) -> jax.Array:
    """One key per match of a batch, for one use.

    A threefry key (the default kind) is a keyed hash: distinct keys give independent streams, the
    use Random123, where Threefry comes from, makes of its key as a stream id. So match i gets the
    given key with i mixed into its second word, which costs no hash; `split` costs one hash per
    match, on a CPU as much as a whole step of a small game. Keys of other kinds, and raw (legacy
    `PRNGKey`) keys, are split.
    """
    if not threefry.is_threefry(key):
        return jax.random.split(key, batch)
    words = jax.random.key_data(key)
    index = jnp.arange(batch, dtype=jnp.uint32)
    keys: jax.Array = jax.random.wrap_key_data(
        jnp.stack([jnp.broadcast_to(words[0], (batch,)), words[1] ^ index], axis=1), impl="threefry2x32"
    )
    return keys


def reset_batch(env: Env, key: jax.Array, params: Any, batch: int) -> tuple[Any, Any]:
    """(obs, state) for `batch` fresh matches."""
    return jax.vmap(env.reset, in_axes=(0, None))(match_keys(key, batch), params)


Policy = Callable[[jax.Array, Any, Any], jax.Array]
"""`policy(key, obs, state) -> actions` for one match (rollouts vmap it): any jittable function."""


@partial(jax.jit, static_argnames=("env", "steps", "policy"))
def rollout(
    env: Env, params: Any, key: jax.Array, state: Any, steps: int, policy: Policy | None = None
) -> tuple[Any, jax.Array, jax.Array]:
    """Step every match `steps` times; returns (state, summed rewards [A], episodes done).

    `policy` chooses each match's actions from its observation (None: uniformly random legal
    actions, without building observations at all). Finished matches restart with fresh draws.
    """
    batch = jax.tree.leaves(state)[0].shape[0]
    obs = jax.vmap(env.observe, in_axes=(0, None))(state, params) if policy is not None else None

    def act(key: jax.Array, obs: Any, state: Any) -> jax.Array:
        if policy is None:
            return env.sample_actions(key, state, params)
        return policy(key, obs, state)

    def body(
        carry: tuple[jax.Array, Any, Any], _: None
    ) -> tuple[tuple[jax.Array, Any, Any], tuple[jax.Array, jax.Array]]:
        key, obs, state = carry
        key, act_key, step_key, reset_key = threefry.split(key, 4)
        actions = jax.vmap(act)(match_keys(act_key, batch), obs, state)
        step = jax.vmap(env.step, in_axes=(0, 0, 0, None))(match_keys(step_key, batch), state, actions, params)
        following = (step.obs if policy is not None else None, step.state)

        def reset_finished(current: tuple[Any, Any]) -> Any:
            fresh = reset_batch(env, reset_key, params, batch)
            return tree_where(step.done, (fresh[0] if policy is not None else None, fresh[1]), current)

        if getattr(env, "reset_when_any_done", False):
            obs, state = jax.lax.cond(step.done.any(), reset_finished, lambda current: current, following)
        else:
            obs, state = reset_finished(following)
        return (key, obs, state), (step.rewards.sum(axis=0), step.done.sum())

    (_, _, state), (rewards, dones) = jax.lax.scan(body, (key, obs, state), None, length=steps)
    return state, rewards.sum(axis=0), dones.sum()
