"""Spreading a batch of matches over every JAX device (several GPUs, or hosts joined by jax.distributed).

A batch is sharded along its leading axis over a one-dimensional mesh of all devices; jitted
kernels then run each shard where it lives. With one device this is a no-op placement.
"""

from __future__ import annotations

from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec


def batch_sharding(devices: list[Any] | None = None) -> NamedSharding:
    mesh = Mesh(list(devices or jax.devices()), ("batch",))
    return NamedSharding(mesh, PartitionSpec("batch"))


def shard_batch(tree: Any, devices: list[Any] | None = None) -> Any:
    """Place every leaf of a batched pytree (leading axis = matches) across the devices."""
    sharding = batch_sharding(devices)
    count = len(sharding.mesh.devices.flat)

    def place(leaf: Any) -> Any:
        if leaf.shape and leaf.shape[0] % count:
            raise ValueError(f"a batch of {leaf.shape[0]} does not split evenly over {count} devices")
        return jax.device_put(leaf, sharding if leaf.shape else None)

    return jax.tree.map(place, tree)
