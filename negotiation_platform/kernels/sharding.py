"""Spreading a batch of matches over every JAX device (several GPUs, or hosts joined by jax.distributed).

A batch is sharded along its batch axis over a one-dimensional mesh of devices; jitted kernels then
run each shard where it lives. With one device this is a no-op placement. Outside a jitted function
`shard_batch` places arrays; inside one, `spread` asks XLA (GSPMD) to keep them split, and XLA
moves data and inserts the collectives (a mean over a split axis becomes an all-reduce).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

Tree = TypeVar("Tree")

BATCH = "batch"
"""The mesh's one axis: the matches."""


def batch_mesh(devices: Sequence[jax.Device] | None = None) -> Mesh:
    return Mesh(list(devices or jax.devices()), (BATCH,))


def batch_sharding(devices: list[jax.Device] | None = None) -> NamedSharding:
    return NamedSharding(batch_mesh(devices), PartitionSpec(BATCH))


def replicated(mesh: Mesh) -> NamedSharding:
    """A whole copy on every device of `mesh` (parameters, scalars)."""
    return NamedSharding(mesh, PartitionSpec())


def shard_batch(tree: Tree, devices: list[jax.Device] | None = None) -> Tree:
    """Place every leaf of a batched pytree (leading axis = matches) across the devices."""
    sharding = batch_sharding(devices)
    count = len(sharding.mesh.devices.flat)

    def place(leaf: jax.Array) -> jax.Array:
        if leaf.shape and leaf.shape[0] % count:
            raise ValueError(f"a batch of {leaf.shape[0]} does not split evenly over {count} devices")
        placed: jax.Array = jax.device_put(leaf, sharding if leaf.shape else None)
        return placed

    sharded: Tree = jax.tree.map(place, tree)
    return sharded


def spread(tree: Tree, mesh: Mesh | None, axis: int = 0) -> Tree:
    """Inside a jitted function: every leaf split along `axis` over `mesh` (unchanged without a mesh)."""
    if mesh is None:
        return tree
    sharding = NamedSharding(mesh, PartitionSpec(*([None] * axis), BATCH))
    constrained: Tree = jax.lax.with_sharding_constraint(tree, sharding)
    return constrained
