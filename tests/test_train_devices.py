"""IPPO over several devices and processes: 4 CPU devices learn what 1 device learns, and two processes
joined by jax.distributed train one policy. Each run is a subprocess: XLA_FLAGS and jax.distributed
must be set before JAX starts."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("flax")
pytest.importorskip("optax")

import jax

from negotiation_platform.cli import main as cli_main
from negotiation_platform.errors import NegotiationError
from negotiation_platform.training.devices import Hosts

CPU = {"JAX_PLATFORMS": "cpu"}  # forced host devices exist only on the CPU platform
FOUR_CPUS = {**CPU, "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}

ON_N_DEVICES = """
import json, sys, jax, numpy as np
from negotiation_platform.errors import NegotiationError
from negotiation_platform.kernels.marl import make
from negotiation_platform.kernels.sharding import batch_mesh
from negotiation_platform.registry import Registry
from negotiation_platform.training.devices import training_mesh
from negotiation_platform.training.ippo import TrainConfig, make_train
from negotiation_platform.training.run import compile_for

env = make("split_100", registry=Registry())
config = TrainConfig(total_steps=1024, num_envs=16, num_steps=8, hidden=(16,), reward_scale=10.0)
key = jax.random.key(0)
mesh = batch_mesh(jax.devices()[: int(sys.argv[1])])
compiled = compile_for(make_train(env, config, mesh)[1], key, fast=True, mesh=mesh)
params, curve = compiled(key)
leaves = jax.tree.leaves(params)
try:
    training_mesh(4, 10)
except NegotiationError as exc:
    uneven = exc.message
print(json.dumps({
    "curve": [None if np.isnan(v) else float(v) for v in np.asarray(curve)],
    "params": np.concatenate([np.asarray(x).ravel() for x in leaves]).tolist(),
    "all_reduces": compiled.as_text().count("all-reduce("),
    "params_on": sorted({len(x.sharding.device_set) for x in leaves}),
    "replicated": all(x.sharding.is_fully_replicated for x in leaves),
    "uneven": uneven,
}))
"""

RUN = ["--total-steps", "1024", "--num-envs", "16", "--num-steps", "8", "--hidden", "16", "--fast-compile"]
TRAIN = [sys.executable, "-m", "negotiation_platform.cli.main", "train", "split_100", *RUN]


def test_four_cpu_devices_learn_the_same_curve_as_one() -> None:
    one, four = (json.loads(out) for out in run_together([[sys.executable, "-c", ON_N_DEVICES, n] for n in "14"]))
    # The same program: only the order of float sums differs (measured: parameters 3e-7 apart).
    assert [v is None for v in one["curve"]] == [v is None for v in four["curve"]]
    assert sum(v is not None for v in one["curve"]) >= 4
    assert four["curve"] == pytest.approx(one["curve"], rel=1e-4)
    assert four["params"] == pytest.approx(one["params"], abs=1e-5)
    # Data parallel for real: gradients all-reduced across the 4 devices, parameters replicated on each.
    assert (one["all_reduces"], one["params_on"]) == (0, [1])
    assert four["all_reduces"] > 0 and four["params_on"] == [4] and four["replicated"]
    assert four["uneven"] == "--num-envs 10 does not split evenly over 4 devices (4 per process × 1 processes)"


def run_together(commands: list[list[str]], env: dict[str, str] = FOUR_CPUS) -> list[str]:
    """Each command's stdout, the commands run at once (each compiles on its own core)."""
    processes = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
        for command in commands
    ]
    try:
        outputs = [process.communicate(timeout=300) for process in processes]
    finally:
        for process in processes:
            process.kill()
    assert [p.returncode for p in processes] == [0] * len(processes), [err[-2000:] for _, err in outputs]
    return [out for out, _ in outputs]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_two_processes_joined_by_jax_distributed_train_one_policy(tmp_path: Path) -> None:
    joined = ["--coordinator", f"127.0.0.1:{free_port()}", "--num-processes", "2", "--scripted-matches", "0"]
    commands = [
        [*TRAIN, *joined, "--process-id", str(rank), "--out", str(tmp_path / f"p{rank}"), "--json"] for rank in (0, 1)
    ]
    first, second = (json.loads(out) for out in run_together(commands, CPU))
    assert (first["processes"], first["devices"]) == (second["processes"], second["devices"]) == (2, 2)
    assert first["params_sha256"] == second["params_sha256"]  # each process's own copy of the parameters
    assert first["final_return"] == second["final_return"] > first["random_return"]
    written = tmp_path / "p0"
    assert json.loads((written / "summary.json").read_text()) == first
    assert hashlib.sha256((written / "params.msgpack").read_bytes()).hexdigest() == first["params_sha256"]
    assert not (tmp_path / "p1").exists(), "only process 0 writes the run's files"


def test_too_many_devices_and_bad_hosts_are_refused_before_training(capsys: pytest.CaptureFixture[str]) -> None:
    too_many = len(jax.local_devices()) + 1
    assert cli_main.main(["train", "split_100", *RUN, "--devices", str(too_many), "--json"]) == 2
    error = json.loads(capsys.readouterr().err)["error"]
    message, backend = error["message"], jax.default_backend()
    assert error["code"] == "invalid_argument"
    assert f"--devices {too_many}: this process has {too_many - 1} {backend} device(s)" in message
    if backend == "cpu":
        assert f"XLA_FLAGS=--xla_force_host_platform_device_count={too_many} before starting" in message
    assert cli_main.main(["train", "split_100", "--process-id", "1"]) == 1
    assert "--num-processes and --process-id need --coordinator HOST:PORT" in capsys.readouterr().err
    for coordinator, processes, rank in (("127.0.0.1", 2, 0), ("h:99999", 2, 0), ("h:1234", 2, 2)):
        with pytest.raises(NegotiationError) as refused:
            Hosts(coordinator, processes, rank)
        assert refused.value.code == "invalid_argument"
