"""Spreading a batch of matches over every JAX device (several GPUs, or hosts joined by jax.distributed).

A batch is sharded along its leading axis over a one-dimensional mesh of all devices; jitted
kernels then run each shard where it lives. With one device this is a no-op placement.
"""

from __future__ import annotations

from typing import TypeVar

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

Tree = TypeVar("Tree")


def batch_sharding(devices: list[jax.Device] | None = None) -> NamedSharding:
    mesh = Mesh(list(devices or jax.devices()), ("batch",))
    return NamedSharding(mesh, PartitionSpec("batch"))


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
