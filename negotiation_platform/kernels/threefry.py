"""JAX's default random streams (Threefry-2x32), computed in a form XLA fuses on a CPU.

On a CPU, JAX lowers its Threefry hash as a loop of five iterations (to keep compile times
short), and each iteration is a few separate kernels with copies between them: 15 ns per word
on this project's 2-core test machine, against 2.3 ns for the same hash written out as 20 rounds of
array arithmetic, which XLA fuses with whatever uses the words. A kernel draws at every step
of every match (random moves, fresh draws for the matches that ended), so the hash was about
40% of a step.

`bits`, `split` and `uniform` return exactly what `jax.random.bits`, `jax.random.split` and
`jax.random.uniform` return (tested), for typed threefry keys with `jax_threefry_partitionable`
on (JAX's default). Every other key, or that flag off, goes to `jax.random` itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
"""Rotation distances of the four rounds of each block, alternating between blocks (Random123's)."""
_PARITY = np.uint32(0x1BD11BDA)
"""Threefish's key-schedule constant: the third key word is k0 ^ k1 ^ this."""


def hash_2x32(k0: jax.Array, k1: jax.Array, x0: jax.Array, x1: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Threefry-2x32 with 20 rounds: the block (x0, x1) enciphered under key (k0, k1), all uint32."""
    schedule = (k0, k1, k0 ^ k1 ^ _PARITY)
    x0, x1 = x0 + k0, x1 + k1
    for block in range(5):
        for distance in _ROTATIONS[block % 2]:
            x0 = x0 + x1
            x1 = ((x1 << distance) | (x1 >> (32 - distance))) ^ x0
        x0 = x0 + schedule[(block + 1) % 3]
        x1 = x1 + schedule[(block + 2) % 3] + np.uint32(block + 1)
    return x0, x1


def is_threefry(key: jax.Array) -> bool:
    """Whether `key` is a typed threefry key (JAX's default kind; raw `PRNGKey` arrays are not typed)."""
    return jnp.issubdtype(key.dtype, jax.dtypes.prng_key) and str(jax.random.key_impl(key)) == "threefry2x32"


def _fast(key: jax.Array) -> bool:
    """Whether `key` draws the stream computed here (else `jax.random` is asked)."""
    return is_threefry(key) and key.ndim == 0 and bool(jax.config.values["jax_threefry_partitionable"])


def _counters(shape: Sequence[int]) -> jax.Array:
    """Each entry's row-major index (JAX's counters; the high word is 0 below 2**32 entries)."""
    size = int(np.prod(shape))
    if size >= 2**32:
        raise ValueError(f"at most 2**32 - 1 random words at once, not {size}")
    return jnp.arange(size, dtype=jnp.uint32).reshape(tuple(shape))


def _hash_counters(key: jax.Array, shape: Sequence[int]) -> tuple[jax.Array, jax.Array]:
    words = jax.random.key_data(key)
    counters = _counters(shape)
    return hash_2x32(words[0], words[1], jnp.zeros_like(counters), counters)


def bits(key: jax.Array, shape: Sequence[int] = ()) -> jax.Array:
    """uint32 words of `shape`: `jax.random.bits(key, shape)`."""
    if not _fast(key):
        return jax.random.bits(key, tuple(shape))
    high, low = _hash_counters(key, shape)
    return high ^ low


def pair(key: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Two uint32 words from one hash: both halves of the first Threefry block (each half of a keyed
    hash is a uniform word). Not `jax.random`'s stream; for two draws that need only be fair.

    Only a pair: spreading more words out of the halves of several blocks (a concatenation) made
    XLA's fused code slower than a hash per word, up to 8x for three words."""
    if not _fast(key):
        words = jax.random.bits(key, (2,))
        return words[0], words[1]
    high, low = _hash_counters(key, ())
    return high, low


def split(key: jax.Array, num: int = 2) -> jax.Array:
    """`num` new keys: `jax.random.split(key, num)`."""
    if not _fast(key):
        return jax.random.split(key, num)
    high, low = _hash_counters(key, (num,))
    keys: jax.Array = jax.random.wrap_key_data(jnp.stack([high, low], axis=-1), impl="threefry2x32")
    return keys


def uniform(key: jax.Array, shape: Sequence[int] = ()) -> jax.Array:
    """float32 in [0, 1) of `shape`: `jax.random.uniform(key, shape)` (23 random mantissa bits)."""
    if not _fast(key):
        return jax.random.uniform(key, tuple(shape))
    mantissas = (bits(key, shape) >> 9) | np.uint32(0x3F800000)  # a float in [1, 2)
    return jnp.maximum(jax.lax.bitcast_convert_type(mantissas, jnp.float32) - 1.0, 0.0)


def permutation(key: jax.Array, count: int) -> jax.Array:
    """A uniformly random order of `range(count)`: `jax.random.permutation(key, count)` (sorts by random
    words, repeated where ties among 32-bit words are likely enough to matter)."""
    if not _fast(key):
        return jax.random.permutation(key, count)
    order = jnp.arange(count)
    sorts = int(np.ceil(3 * np.log(max(1, count)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(sorts):
        key, subkey = split(key)
        _, order = jax.lax.sort_key_val(bits(subkey, (count,)), order)
    return order
