"""Boolean masks kept as bits: the last axis packed 32 to a uint32 word, lowest bit first.

A legal-action mask built as booleans is one byte per action and player; a step that only draws a
random legal move and checks the chosen one reads a few bits of it. Built straight as words from
its column groups (`pack_columns`), AdaSociety's hard preset's mask cost a fraction of the boolean
one, which, with its packing for the draw, had been over a third of a step on a CPU.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp

WORD = 32


def words_for(width: int) -> int:
    """How many words hold `width` bits."""
    return -(-width // WORD)


def packed(mask: jax.Array) -> jax.Array:
    """uint32[..., words]: the last axis of `mask` as bits."""
    width = mask.shape[-1]
    words = words_for(width)
    padded = jnp.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, words * WORD - width)])
    bits = padded.reshape(*mask.shape[:-1], words, WORD).astype(jnp.uint32)
    return jnp.sum(bits << jnp.arange(WORD, dtype=jnp.uint32), axis=-1, dtype=jnp.uint32)


def pack_columns(width: int, groups: Sequence[tuple[int, jax.Array]]) -> jax.Array:
    """uint32[rows, words]: a mask of `width` columns, all False but for `groups` of (first column,
    bool[rows, k]) that set columns first..first+k−1 (groups never overlap)."""
    rows = groups[0][1].shape[0]
    words = [jnp.zeros((rows,), jnp.uint32) for _ in range(words_for(width))]
    for first, columns in groups:
        for index in range(len(words)):
            start, stop = max(first, index * WORD), min(first + columns.shape[-1], (index + 1) * WORD)
            if start < stop:
                bits = columns[:, start - first : stop - first].astype(jnp.uint32)
                shifts = jnp.arange(start - index * WORD, stop - index * WORD, dtype=jnp.uint32)
                words[index] = words[index] | jnp.sum(bits << shifts, axis=-1, dtype=jnp.uint32)
    return jnp.stack(words, axis=-1)


def unpack(words: jax.Array, width: int) -> jax.Array:
    """bool[..., width]: the mask that `words` hold."""
    columns = jnp.arange(width)
    return ((words[..., columns // WORD] >> (columns % WORD).astype(jnp.uint32)) & 1).astype(bool)


def bit_at(words: jax.Array, columns: jax.Array) -> jax.Array:
    """bool per row: whether each row's mask holds its column of `columns` (int[rows])."""
    word = jnp.take_along_axis(words, (columns // WORD)[..., None], axis=-1)[..., 0]
    return ((word >> (columns % WORD).astype(jnp.uint32)) & 1).astype(bool)
