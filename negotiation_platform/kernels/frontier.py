"""Exact analysis of finite (or gridded) outcome spaces: Pareto frontier, Nash bargaining point, max welfare.

Utilities come as an array u[N, 2] (one row per outcome); the functions are jitted and work on any
two-player outcome space, which each game's kernel module enumerates.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


@jax.jit
def pareto_mask(utilities: jax.Array) -> jax.Array:
    """bool[N]: outcomes that no other outcome weakly improves for both players and strictly for one."""
    u = utilities[:, None, :]
    v = utilities[None, :, :]
    dominates = jnp.all(v >= u, axis=-1) & jnp.any(v > u, axis=-1)  # [i, j]: j dominates i
    return ~jnp.any(dominates, axis=1)


@jax.jit
def nash_point(utilities: jax.Array, batnas: jax.Array) -> jax.Array:
    """Index of the outcome maximising Π(u - batna) among those better than the BATNA for both; -1 if none."""
    gains = utilities - batnas[None, :]
    feasible = jnp.all(gains > 0, axis=-1)
    product = jnp.where(feasible, jnp.prod(jnp.maximum(gains, 0.0), axis=-1), -1.0)
    return jnp.where(jnp.any(feasible), jnp.argmax(product), -1)


@jax.jit
def max_welfare(utilities: jax.Array) -> jax.Array:
    """Index of the outcome with the largest sum of utilities."""
    return jnp.argmax(jnp.sum(utilities, axis=-1))


def summarize(utilities: jax.Array, batnas: jax.Array) -> dict[str, object]:
    """The frontier, the Nash point and the max-welfare point of an outcome space, as plain numbers."""
    frontier = pareto_mask(utilities)
    nash = int(nash_point(utilities, batnas))
    best = int(max_welfare(utilities))
    return {
        "outcomes": int(utilities.shape[0]),
        "pareto_indices": [int(i) for i in jnp.nonzero(frontier)[0]],
        "nash_index": nash,
        "nash_utilities": None if nash < 0 else [float(x) for x in utilities[nash]],
        "max_welfare_index": best,
        "max_welfare_utilities": [float(x) for x in utilities[best]],
    }
