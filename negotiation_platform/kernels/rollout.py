"""Batched rollouts: many matches stepped together with a policy, fused with `lax.scan`.

Finished matches are reset in place (`autoreset.reset_done`, the auto-reset `BaseKernel.step` and
`MarlEnv.step` use too, here over the whole batch) so every env-step is real work; the scan returns
per-step totals that the CLI and the benchmarks turn into throughput and returns. An env whose
matches all last the same number of steps sets `reset_when_any_done = True`: the batch is then reset
only on the steps where some match ended (a `lax.cond`), not built afresh on every step.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import jax
import jax.numpy as jnp

from negotiation_platform.kernels import threefry
from negotiation_platform.kernels.autoreset import reset_done
from negotiation_platform.kernels.env import Env, Observation, ParamsT, StateT


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


def reset_batch(env: Env[StateT, ParamsT], key: jax.Array, params: ParamsT, batch: int) -> tuple[Observation, StateT]:
    """(obs, state) for `batch` fresh matches."""
    fresh: tuple[Observation, StateT] = jax.vmap(env.reset, in_axes=(0, None))(match_keys(key, batch), params)
    return fresh


Policy = Callable[[jax.Array, Observation, StateT], jax.Array]
"""`policy(key, obs, state) -> actions` for one match (rollouts vmap it): any jittable function."""


@partial(jax.jit, static_argnames=("env", "steps", "policy"))
def rollout(
    env: Env[StateT, ParamsT],
    params: ParamsT,
    key: jax.Array,
    state: StateT,
    steps: int,
    policy: Policy[StateT] | None = None,
) -> tuple[StateT, jax.Array, jax.Array]:
    """Step every match `steps` times; returns (state, summed rewards [A], episodes done).

    `policy` chooses each match's actions from its observation (None: uniformly random legal
    actions, without building observations at all). Finished matches restart with fresh draws.
    """
    batch = jax.tree.leaves(state)[0].shape[0]
    obs = jax.vmap(env.observe, in_axes=(0, None))(state, params) if policy is not None else None

    def act(key: jax.Array, obs: Observation | None, state: StateT) -> jax.Array:
        if policy is None or obs is None:
            return env.sample_actions(key, state, params)
        return policy(key, obs, state)

    def body(
        carry: tuple[jax.Array, Observation | None, StateT], _: None
    ) -> tuple[tuple[jax.Array, Observation | None, StateT], tuple[jax.Array, jax.Array]]:
        key, obs, state = carry
        key, act_key, step_key, reset_key = threefry.split(key, 4)
        actions = jax.vmap(act)(match_keys(act_key, batch), obs, state)
        step = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(match_keys(step_key, batch), state, actions, params)
        following = (step.obs if policy is not None else None, step.state)

        def fresh() -> tuple[Observation | None, StateT]:
            obs, state = reset_batch(env, reset_key, params, batch)
            return (obs if policy is not None else None, state)

        obs, state = reset_done(step.done, following, fresh, only_when_any=getattr(env, "reset_when_any_done", False))
        return (key, obs, state), (step.rewards.sum(axis=0), step.done.sum())

    (_, _, state), (rewards, dones) = jax.lax.scan(body, (key, obs, state), None, length=steps)
    return state, rewards.sum(axis=0), dones.sum()
