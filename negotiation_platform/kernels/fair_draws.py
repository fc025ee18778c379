"""Cheap fair draws for kernels: one call to the generator where `randint` makes three.

Every finished match draws afresh and every random move draws too, at every step of a batch of
thousands, so on a CPU the counter-based generator (threefry) is a large part of a step:
`jax.random.randint` splits its key and draws twice to stay unbiased for any range. The small
ranges drawn here (coin flips, a few legal moves) are exact or off by less than 2**-24.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from negotiation_platform.kernels import threefry


def coin_flips(key: jax.Array, count: int) -> jax.Array:
    """int32[count] of fair 0/1 draws from one call: every bit of a generated word is a fair flip, so
    32 flips take one word (a word costs half a threefry hash, and a match's flips are few)."""
    words = threefry.bits(key, (-(-count // 32),))
    shifts = jnp.arange(count, dtype=jnp.uint32)
    return ((words[shifts // 32] >> (shifts % 32)) & 1).astype(jnp.int32)


def uniform_indices(key: jax.Array, counts: jax.Array) -> jax.Array:
    """int32 per entry of `counts`: uniform in [0, count), from one call (24 bits of each word)."""
    counts = jnp.asarray(counts, jnp.int32)
    fractions = (threefry.bits(key, counts.shape) >> 8).astype(jnp.float32) * jnp.float32(2.0**-24)
    return jnp.minimum(jnp.floor(fractions * counts).astype(jnp.int32), counts - 1)
