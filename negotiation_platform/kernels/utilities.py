"""Batched utility functions of the built-in games: a batch of outcomes → every player's utility.

The environments score with these, and outcome analysis enumerates outcome spaces through them,
so a game's payoff rule exists once on the JAX side. Formulas follow the games' rules; every array
argument may carry any leading batch shape.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def decayed(batna: jax.Array, decay: jax.Array, round_number: jax.Array, rounds: int | None = None) -> jax.Array:
    """batna × (1 − decay) ** (round − 1); with `rounds`, the factor comes from `round_factor`."""
    if rounds is None:
        return batna * (1.0 - decay) ** (round_number - 1)
    return batna * round_factor(1.0 - decay, round_number, rounds)


_PICKED_ROUNDS = 16
"""Up to this many rounds, `round_factor` picks from a table; beyond, it takes the power."""


def round_factor(base: jax.Array, round_number: jax.Array, rounds: int) -> jax.Array:
    """base ** (round − 1), for rounds 1 to rounds + 1 (the state after the last).

    A float power per match and step was the costliest operation of a bargaining kernel's step on a
    CPU. A kernel's base is a parameter, the same for every match of a batch, so under `vmap` the
    table of its powers is made once per step; each match picks its round's entry with a chain of
    selects, which XLA fuses (a gather from the table measured slower than the power itself).
    """
    if rounds > _PICKED_ROUNDS:
        return jnp.asarray(base, jnp.float32) ** (round_number - 1)
    table = jnp.asarray(base, jnp.float32)[..., None] ** jnp.arange(rounds + 1, dtype=jnp.float32)
    exponent = jnp.clip(round_number - 1, 0, rounds)
    factor = table[..., 0]
    for power in range(1, rounds + 1):
        factor = jnp.where(exponent == power, table[..., power], factor)
    return factor


def split_100_utilities(
    share0: jax.Array, agreed: jax.Array, round_number: jax.Array, total: float, discount: jax.Array
) -> jax.Array:
    """[..., 2]: seat 0 gets `share0`, seat 1 the rest, times discount ** (round − 1); 0 without a deal."""
    factor = discount ** (round_number - 1)
    split = jnp.stack([share0, total - share0], axis=-1) * factor[..., None]
    return jnp.where(agreed[..., None], split, 0.0)


def resource_allocation_utilities(gpu_hours: jax.Array, cpu_hours: jax.Array, coefficients: jax.Array) -> jax.Array:
    """[..., 2] by role (development, marketing): coefficients[role] · (gpu, cpu)."""
    plan = jnp.stack([gpu_hours, cpu_hours], axis=-1)
    return plan @ coefficients.T


def integrative_utilities(choices: jax.Array, weights: jax.Array, points: jax.Array) -> jax.Array:
    """[..., 2] by role (IT, Marketing): Σ_issue weight × points of the chosen option.

    choices: int[..., issues] option indices; weights: [2, issues]; points: [2, issues, options].
    """
    issues = jnp.arange(points.shape[1])
    chosen = points[:, issues, choices]  # [2, ..., issues]
    return jnp.moveaxis(jnp.sum(chosen * weights.reshape((2,) + (1,) * (chosen.ndim - 2) + (-1,)), axis=-1), 0, -1)


def auction_utilities(bids: jax.Array, values: jax.Array, second_price: bool) -> jax.Array:
    """[..., n]: the highest bid wins (ties: the lowest index, i.e. the earliest) and pays its bid or the second."""
    winner = jnp.argmax(bids, axis=-1)
    top = jnp.max(bids, axis=-1)
    second = jnp.sort(bids, axis=-1)[..., -2] if bids.shape[-1] > 1 else jnp.zeros_like(top)
    price = second if second_price else top
    won = jax.nn.one_hot(winner, bids.shape[-1], dtype=bool)
    return jnp.where(won, values - price[..., None], 0.0)
