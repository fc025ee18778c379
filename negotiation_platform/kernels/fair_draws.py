"""Cheap fair draws for kernels: one call to the generator where `randint` makes three.

Every finished match draws afresh and every random move draws too, at every step of a batch of
thousands, so on a CPU the counter-based generator (threefry) is a large part of a step:
`jax.random.randint` splits its key and draws twice to stay unbiased for any range. The small
ranges drawn here (coin flips, a few legal moves) are exact or off by less than 2**-24.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from negotiation_platform.kernels import threefry


def coin_flips(key: jax.Array, count: int) -> jax.Array:
    """int32[count] of fair 0/1 draws from one call: every bit of a generated word is a fair flip, so
    32 flips take one word (a word costs one threefry hash, and a match's flips are few)."""
    words = threefry.bits(key, (-(-count // 32),))
    shifts = jnp.arange(count, dtype=jnp.uint32)
    return ((words[shifts // 32] >> (shifts % 32)) & 1).astype(jnp.int32)


def uniform_indices(key: jax.Array, counts: jax.Array) -> jax.Array:
    """int32 per entry of `counts`: uniform in [0, count), from one call (24 bits of each word)."""
    counts = jnp.asarray(counts, jnp.int32)
    return _below(threefry.bits(key, counts.shape), counts)


def uniform_index_pair(key: jax.Array, first: jax.Array, second: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Two uniform indices, below `first` and below `second`, from one hash (`threefry.pair`)."""
    high, low = threefry.pair(key)
    return _below(high, jnp.asarray(first, jnp.int32)), _below(low, jnp.asarray(second, jnp.int32))


def _below(words: jax.Array, counts: jax.Array) -> jax.Array:
    """An index below each count from the top 24 bits of each word."""
    fractions = (words >> 8).astype(jnp.float32) * jnp.float32(2.0**-24)
    return jnp.minimum(jnp.floor(fractions * counts).astype(jnp.int32), counts - 1)


_DECODED_ORDERS = 6
"""Up to this many items, `uniform_order` decodes one draw (6! = 720 orders, each within 2**-24 of fair)."""


def uniform_order(key: jax.Array, count: int) -> jax.Array:
    """int32[count]: a uniformly random order of `range(count)`.

    Up to `_DECODED_ORDERS` items, one draw of an index among the count! orders, read as a Lehmer code:
    each digit picks one of the items not yet placed. That is a few dozen selects, which fuse; a
    sort (how `jax.random.permutation` shuffles) is a separate kernel on a CPU and cost AdaSociety's
    step a tenth of its time. More items are shuffled by `threefry.permutation`.
    """
    if count > _DECODED_ORDERS:
        return threefry.permutation(key, count).astype(jnp.int32)
    index = uniform_indices(key, jnp.int32(math.factorial(count)))
    placed: list[jax.Array] = [jnp.bool_(False)] * count
    order = []
    for position in range(count):
        radix = count - position
        digit, index = index % radix, index // radix
        free_before = jnp.int32(0)
        choice = jnp.int32(0)
        for item in range(count):
            free = ~placed[item]
            choice = jnp.where(free & (free_before == digit), item, choice)
            free_before = free_before + free.astype(jnp.int32)
        order.append(choice)
        placed = [was | (choice == item) for item, was in enumerate(placed)]
    return jnp.stack(order)
