"""The auto-reset: matches that ended replaced by fresh ones, written once for every stepper that
needs it (`BaseKernel.step`, `MarlEnv.step`, `rollout` and through `MarlEnv` the IPPO trainer).

Callers differ only in how they draw the fresh matches (one match or a batch, from which key), so
they pass that as a function; the selection, and when to skip building fresh matches, live here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import jax
import jax.numpy as jnp

Tree = TypeVar("Tree")


def tree_where(condition: jax.Array, on_true: Tree, on_false: Tree) -> Tree:
    """Per-match selection between two pytrees: `condition` is bool[] for one match or bool[B] for a
    batch whose leaves lead with B."""

    def pick(a: jax.Array, b: jax.Array) -> jax.Array:
        mask = condition.reshape(condition.shape + (1,) * (a.ndim - condition.ndim))
        return jnp.where(mask, a, b)

    result: Tree = jax.tree.map(pick, on_true, on_false)
    return result


def reset_done(done: jax.Array, current: Tree, fresh: Callable[[], Tree], *, only_when_any: bool = False) -> Tree:
    """`current` with each match that is `done` replaced by its counterpart in `fresh()`.

    `only_when_any`: build the fresh matches only on steps where some match ended (a `lax.cond`),
    worth it for envs whose matches all end on the same steps (`reset_when_any_done`).
    """

    def replace(current: Tree) -> Tree:
        return tree_where(done, fresh(), current)

    if only_when_any:
        kept: Tree = jax.lax.cond(done.any(), replace, lambda unchanged: unchanged, current)
        return kept
    return replace(current)
