"""An entry of a small array read at a traced index with selects rather than a gather.

Under `vmap`, `x[i]` with a traced `i` becomes a gather, on a CPU a kernel of its own that XLA does
not fuse with the arithmetic around it; a bargaining step reads several per-seat entries so. A chain
of selects over the entries can fuse instead. Whether that pays is XLA's call and differs from
kernel to kernel (company_car's reads of the mover's and the other seat's entries gain, the
bilateral kernels' did not), so measure: `benchmarks/kernel_forms.py` times company_car's step
with and without it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def entry(values: jax.Array, index: jax.Array) -> jax.Array:
    """`values[index]` along the first axis, for an index in range and a first axis of a few entries."""
    picked = values[0]
    for position in range(1, values.shape[0]):
        picked = jnp.where(index == position, values[position], picked)
    return picked
