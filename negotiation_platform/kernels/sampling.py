"""Random values a kernel samples (coin flips, indices, orders, legal moves), fair and cheap to draw.

One call to the generator where `randint` makes three.

Every finished match draws afresh and every random move draws too, at every step of a batch of
thousands, so on a CPU the counter-based generator (threefry) is a large part of a step:
`jax.random.randint` splits its key and draws twice to stay unbiased for any range. The small
ranges drawn here (coin flips, a few legal moves) are exact or off by less than 2**-24.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from negotiation_platform.kernels import threefry
from negotiation_platform.kernels.bitmasks import WORD, packed


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


def uniform_true(key: jax.Array, mask: jax.Array) -> jax.Array:
    """int32 per row of `mask`: the position of a uniformly random True along its last axis (0 where a
    row has none), from one draw per row. A random legal move, given the legal mask."""
    return uniform_set_bit(key, packed(mask), mask.shape[-1])


def uniform_set_bit(key: jax.Array, words: jax.Array, width: int) -> jax.Array:
    """int32 per row of packed words (`bitmasks`) of a mask of `width` columns: the position of a
    uniformly random set bit (0 where a row has none), from one draw per row. A kernel that keeps its
    legal mask as bits draws a random legal move without ever building the mask as booleans."""
    counts = jnp.sum(jax.lax.population_count(words), axis=-1, dtype=jnp.int32)
    return computed_once(_nth_set_bit(words, uniform_indices(key, jnp.maximum(counts, 1))), width)


def computed_once(values: jax.Array, bound: int) -> jax.Array:
    """`values` (integers in [0, bound)) computed once for all their uses.

    XLA on a CPU copies cheap integer work (a draw's hash, a bit search) into every consumer of its
    result instead of computing it once, and a step has dozens. It copies neither an argmax nor an
    instruction it deems expensive, such as a division. Up to `_READ_BACK` values are read back
    through an argmax, which evaluates them once per possible value; more are divided by a one that
    XLA cannot see is one (it comes through an optimisation barrier). Which form pays, and by how
    much, `benchmarks/kernel_forms.py` measures on AdaSociety's step.
    """
    if bound <= _READ_BACK:
        return jnp.argmax(jnp.arange(bound) == values[..., None], axis=-1).astype(values.dtype)
    return jax.lax.div(values, jax.lax.optimization_barrier(jnp.ones((), values.dtype)))


_READ_BACK = 32
"""Most values `computed_once` reads back through an argmax rather than divides (see there)."""


def nth_true(mask: jax.Array, n: jax.Array) -> jax.Array:
    """int32 per row of `mask`: the position of its `n`-th True (from 0) along the last axis, 0 where
    there is no such True.

    The row is packed into 32-bit words and the position found by a binary search on population
    counts: a few dozen elementwise integer ops that fuse into one loop. A running count along the
    row (what `argmax(cumsum(mask) > n)` needs) is a chain of separate kernels on a CPU.
    """
    return _nth_set_bit(packed(mask), n)


def distinct_indices(key: jax.Array, count: int, n: int) -> jax.Array:
    """int32[n]: `n` distinct indices below `count` in a uniformly random order (the first `n` of a
    random order of `range(count)`), from one call for the draws.

    Each index is drawn among those not drawn yet, found as the k-th set bit of a packed mask of
    them, one pass of a loop per index. `threefry.permutation` sorts, and a sort of a row is a slow
    kernel on a CPU.
    """
    ranks = _ranks(key, count, n)
    free = packed(jnp.ones(count, bool))

    def draw(i: jax.Array, carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        free, drawn = carry
        index = _nth_set_bit(free, ranks[i])
        word = jnp.arange(free.shape[-1]) == index // WORD
        free = jnp.where(word, free & ~(jnp.uint32(1) << (index % WORD).astype(jnp.uint32)), free)
        return free, drawn.at[i].set(index)

    drawn: jax.Array = jax.lax.fori_loop(0, n, draw, (free, jnp.zeros(n, jnp.int32)))[1]
    return drawn


def distinct_indices_unrolled(key: jax.Array, count: int, n: int) -> jax.Array:
    """`distinct_indices` (the same indices from the same key) with no loop: the ranks are a Lehmer
    code, decoded from the last digit back, each step one vector select over all `n` (n − 1 steps,
    unrolled: straight-line work for an accelerator, where each pass of a loop waits on the device)."""
    drawn = _ranks(key, count, n)
    later = jnp.arange(n)
    for digit in range(n - 2, -1, -1):  # each earlier index pushes past the later ones at or above it
        drawn = jnp.where((later > digit) & (drawn >= drawn[digit]), drawn + 1, drawn)
    return drawn


def _ranks(key: jax.Array, count: int, n: int) -> jax.Array:
    """The rank of each of `n` draws among the indices below `count` not drawn before it."""
    return _below(threefry.bits(key, (n,)), count - jnp.arange(n, dtype=jnp.int32))


def _nth_set_bit(words: jax.Array, n: jax.Array) -> jax.Array:
    """The position of set bit number `n` (from 0) of each row of packed words, 0 where there is none."""
    rank = jnp.asarray(n, jnp.uint32)
    position, found = jnp.zeros(rank.shape, jnp.int32), jnp.zeros(rank.shape, bool)
    for index in range(words.shape[-1]):
        word = words[..., index]
        count = jax.lax.population_count(word)
        here = ~found & (rank < count)
        position = jnp.where(here, index * WORD + _nth_bit(word, rank), position)
        rank = jnp.where(found | here, rank, rank - count)
        found = found | here
    return position


def _nth_bit(word: jax.Array, rank: jax.Array) -> jax.Array:
    """The position of set bit number `rank` (from 0, lowest first) of each word, given that it has one:
    the highest position with at most `rank` set bits below it, by binary search."""
    position = jnp.zeros(word.shape, jnp.uint32)
    for step in (16, 8, 4, 2, 1):
        below = jax.lax.population_count(word & ((jnp.uint32(1) << (position + step)) - 1))
        position = jnp.where(below <= rank, position + step, position)
    return position.astype(jnp.int32)


def _below(words: jax.Array, counts: jax.Array) -> jax.Array:
    """An index below each count from the top 24 bits of each word."""
    fractions = (words >> 8).astype(jnp.float32) * jnp.float32(2.0**-24)
    return jnp.minimum(jnp.floor(fractions * counts).astype(jnp.int32), counts - 1)


_TABLED_ORDERS = 8
"""Up to this many items, `uniform_order` reads one draw's order from a table (8! = 40,320 orders of 8,
1.3 MB; each order within 2**-24 of fair): AdaSociety's hard preset has 8 players."""


def uniform_order(key: jax.Array, count: int) -> jax.Array:
    """int32[count]: a uniformly random order of `range(count)`.

    Up to `_TABLED_ORDERS` items, one draw of an index among the count! orders, whose order is read
    from a table of them all. A sort (how `jax.random.permutation` shuffles) is a separate kernel on
    a CPU; decoding the index with selects costs as much, as XLA repeats the decoding for every item
    of the order (`benchmarks/kernel_forms.py` times the table against a sort). More items are
    shuffled by `threefry.permutation`.
    """
    if count > _TABLED_ORDERS:
        return threefry.permutation(key, count).astype(jnp.int32)
    index = uniform_indices(key, jnp.int32(math.factorial(count)))
    return jnp.asarray(_orders(count))[index]


@functools.cache
def _orders(count: int) -> np.ndarray:
    """Every order of `range(count)`, in Lehmer-code order: row i is the order whose code is i."""
    rows = []
    for code in range(math.factorial(count)):
        free, order = list(range(count)), []
        for radix in range(count, 0, -1):
            code, digit = divmod(code, radix)
            order.append(free.pop(digit))
        rows.append(order)
    table = np.array(rows, np.int32)
    table.setflags(write=False)  # shared by every caller
    return table
