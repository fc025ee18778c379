"""Work that only some steps need (a phase's rules), skipped by a batch when none of its matches needs it.

Under `vmap` a `lax.cond` on a per-match condition runs both branches for every match. A
`lax.while_loop` of at most one pass runs its body while any match of the batch still needs it,
and not at all once none does: a phase that only some steps are in (AdaSociety's bargaining, the
first 21 of 120 steps) costs nothing on the others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import jax
import jax.numpy as jnp

T = TypeVar("T")


def only_if(needed: jax.Array, compute: Callable[[], T], otherwise: T) -> T:
    """`compute()` where `needed` (a bool scalar per match), else `otherwise` (the same structure),
    with no pass at all in a batch where no match needs it."""
    carry = jax.lax.while_loop(lambda c: c[0], lambda c: (jnp.bool_(False), compute()), (needed, otherwise))
    return carry[1]
