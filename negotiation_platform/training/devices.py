"""Where a training run's matches live: some of this process's devices, and hosts joined by jax.distributed.

Multi-host JAX is JAX's own: `jax.distributed.initialize` joins the processes, after which every
process sees every process's devices and runs the same jitted program over one mesh (each process
computing the shards on its own devices). On CPU the processes exchange data through gloo.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import jax
from jax.sharding import Mesh

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.kernels.sharding import batch_mesh

FORCE_CPU_DEVICES = "XLA_FLAGS=--xla_force_host_platform_device_count"


@dataclass(frozen=True)
class Hosts:
    """One process's part in a run over several processes (`--coordinator --num-processes --process-id`)."""

    coordinator: str
    """HOST:PORT of process 0's coordination service, the same for every process."""
    num_processes: int
    process_id: int

    def __post_init__(self) -> None:
        host, _, port = self.coordinator.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT, f"--coordinator must be HOST:PORT, got {self.coordinator!r}"
            )
        if not 0 <= self.process_id < self.num_processes:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT,
                f"--process-id must be in 0..{self.num_processes - 1} for --num-processes {self.num_processes}, "
                f"got {self.process_id}",
            )


def join(hosts: Hosts) -> None:
    """Join the run's other processes (waits for all of them); call before anything else touches JAX's devices."""
    # CPU collectives across processes (jax.config.update is untyped)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")  # type: ignore[no-untyped-call]
    jax.distributed.initialize(hosts.coordinator, hosts.num_processes, hosts.process_id)


@contextmanager
def native_stdout_to_stderr() -> Iterator[None]:
    """Native code's writes to stdout go to stderr meanwhile: gloo announces its connections on stdout,
    which would break `--json` output. Python's own prints are redirected too, so print after."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def training_mesh(devices: int, num_envs: int) -> Mesh:
    """A mesh of the first `devices` devices of every process; `num_envs` matches must split evenly over it."""
    local = jax.local_devices()
    if devices < 1 or devices > len(local):
        on_cpu = jax.default_backend() == "cpu"
        hint = f"; on a CPU, set {FORCE_CPU_DEVICES}={devices} before starting" if on_cpu else ""
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"--devices {devices}: this process has {len(local)} {jax.default_backend()} device(s){hint}",
        )
    chosen = [
        device
        for process in range(jax.process_count())
        for device in sorted((d for d in jax.devices() if d.process_index == process), key=lambda d: d.id)[:devices]
    ]
    if num_envs % len(chosen):
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"--num-envs {num_envs} does not split evenly over {len(chosen)} devices "
            f"({devices} per process × {jax.process_count()} processes)",
        )
    return batch_mesh(chosen)


def writes_files() -> bool:
    """Whether this process writes the run's files: only process 0 of a multi-process run."""
    return jax.process_index() == 0
