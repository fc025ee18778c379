"""A policy of every game with a kernel plays whole matches through `play --agents policy:DIR`.

The policies here are the trainer's network with random parameters, saved by the trainer's own
`save_policy`: this checks the path from the seat's turn state
through the kernel observation, the network and the kernel action back to engine moves, for every
game, without a training run per game (`test_train` trains one and plays it).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

pytest.importorskip("flax")
pytest.importorskip("optax")

import jax
import jax.numpy as jnp
import numpy as np

from negotiation_platform.cli import main as cli_main
from negotiation_platform.kernels import kernel_for, marl
from negotiation_platform.registry import Registry
from negotiation_platform.training.artifacts import save_policy
from negotiation_platform.training.network import ActorCritic
from negotiation_platform.training.table import SKIPS

REGISTRY = Registry()
SHORT = {"max_length": 10, "negotiation_steps": 4}
TABLES: dict[str, tuple[dict[str, int], list[str]]] = {
    "deal_or_no_deal": ({"rounds": 2}, ["random"]),
    "split_100": ({"rounds": 3}, ["concession"]),
    "company_car": ({"rounds": 3}, ["batna"]),
    "resource_allocation": ({"rounds": 3}, ["concession"]),
    "integrative_negotiation": ({"rounds": 3}, ["random"]),
    "auction": ({}, ["random", "random"]),
    "adasociety": (SHORT, ["gatherer"] * 3),
}
"""A game of each kernel class (the other coin games and adasociety_hard share theirs): a short config
and the other seats' agents."""


@functools.cache
def kernel_class(game_id: str) -> type:
    return type(kernel_for(REGISTRY, game_id)[0])


@pytest.mark.parametrize("game_id", sorted(REGISTRY.kernels()))
def test_every_kernel_can_sit_at_a_table(game_id: str) -> None:
    """Each has the table methods, and one of the games played below runs the same `table_observation`."""
    kernel = kernel_class(game_id)
    assert callable(getattr(kernel, "table_observation", None)) and callable(getattr(kernel, "table_action", None))
    played = {kernel_class(game).table_observation for game in TABLES}
    assert kernel.table_observation in played


@pytest.fixture(scope="module")
def policies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A policy directory per game: the trainer's network with random parameters (drawn here from its
    shapes, quicker than running flax's initialisers once per game)."""
    made, rng = {}, np.random.default_rng(0)
    for game_id, (config, _) in TABLES.items():
        env = marl.make(game_id, **config)
        codes = env.action_space(env.agents[0]).n
        network = ActorCritic(codes, (16,))
        shapes = jax.eval_shape(
            network.init, jax.random.key(0), jnp.zeros((1, env.obs_size)), jnp.ones((1, codes), bool)
        )
        params = jax.tree.map(lambda leaf: rng.normal(0.0, 0.5, leaf.shape).astype(leaf.dtype), shapes)
        made[game_id] = tmp_path_factory.mktemp(game_id)
        save_policy(made[game_id], env, config, (16,), params)
    return made


@pytest.mark.parametrize("game_id", list(TABLES))
def test_a_policy_plays_a_whole_match(
    game_id: str, policies: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    config, others = TABLES[game_id]
    argv = ["play", game_id, "--agents", f"policy:{policies[game_id]}", *others, "--config", json.dumps(config)]
    assert cli_main.main([*argv, "--seed", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["payoffs"]) == 1 + len(others) and "policy" in result["payoffs"]
    moves = [e["data"] for e in result["events"] if e["kind"] == "action" and e["actor"] == "policy"]
    played = [m for m in moves if m["action_type"] not in SKIPS and not m.get("timed_out") and not m.get("forfeited")]
    assert played, "the policy chose moves of its own, every one taken by the engine"
