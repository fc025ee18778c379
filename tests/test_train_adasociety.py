"""IPPO beats the scripted `gatherer` team at the table on a CPU-sized AdaSociety (docs/train.md).

The variant is a config the game accepts: one carpenter and one miner on a 5×5 torus, 2 wood and
2 stone piles of 5, 20 hammer cells, 40 steps of which 6 negotiate. Trained from scratch with a
fixed seed on the team's reward with potential-based shaping, the policy finds the chain that
pays (craft a hammer, drop it, the miner picks it up) and plays it at the engine's table.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("flax")
pytest.importorskip("optax")

import jax
import jax.numpy as jnp
import numpy as np

from negotiation_adasociety.kernels import AdaSocietyEnv
from negotiation_platform.errors import NegotiationError
from negotiation_platform.kernels.marl import make
from negotiation_platform.training.ippo import TrainConfig, shaping, teamed

SMALL = {
    "map_size": 5,
    "max_length": 40,
    "negotiation_steps": 6,
    "piles": [{"resource": "wood", "count": 2, "amount": 5}, {"resource": "stone", "count": 2, "amount": 5}],
    "recipes": [{"name": "hammer_craft", "inputs": {"wood": 1, "stone": 1}, "outputs": {"hammer": 1}, "count": 20}],
    "jobs": [
        {
            "name": "carpenter",
            "fov": 2,
            "caps": {"wood": 100, "stone": 100, "hammer": 1},
            "values": {"wood": 1, "stone": 1, "hammer": 5},
            "count": 1,
        },
        {"name": "miner", "fov": 2, "caps": {"hammer": 100}, "values": {"hammer": 10}, "count": 1},
    ],
}
RUN = [
    *("--total-steps", "524288", "--num-envs", "128", "--num-steps", "32", "--hidden", "128", "128"),
    *("--team-reward", "1", "--shaping", "1", "--seed", "0"),
    *("--scripted", "gatherer", "--scripted-matches", "0", "--table-seeds", "50"),
]


HAMMER, WOOD = 2, 0


def test_the_team_reward_mixes_each_seat_with_the_mean() -> None:
    reward = jnp.array([[4.0, 0.0], [0.0, 2.0]])  # [seats, matches]
    np.testing.assert_allclose(teamed(reward, 0.0), reward)
    np.testing.assert_allclose(teamed(reward, 1.0), [[2.0, 1.0], [2.0, 1.0]])
    np.testing.assert_allclose(teamed(reward, 0.5), [[3.0, 0.5], [1.0, 1.5]])


def test_shaping_adds_the_change_of_the_crafted_items_on_the_ground_and_ends_at_zero() -> None:
    env = make("adasociety", **SMALL)
    _, state = env.reset(jax.random.key(0))
    dropped = state._replace(piles=state.piles.at[3, HAMMER].add(2).at[4, WOOD].add(7))
    # two hammers at 5, shared by the two seats; wood is a pile resource, not crafted
    assert isinstance(env.kernel, AdaSocietyEnv)
    np.testing.assert_allclose(env.kernel.shaping_potential(dropped, env.params), np.array([5.0, 5.0]))
    shape = shaping(env, TrainConfig(shaping=1.0, gamma=0.9))
    before, after = (
        jax.tree.map(lambda *leaves: jnp.stack(leaves), *pair) for pair in ((state, dropped), (dropped, state))
    )
    reward = jnp.ones((2, 2))
    live, ended = jnp.zeros((2, 2)), jnp.ones((2, 2))
    # match 0 drops the hammers (+0.9·5), match 1 has them picked up (−5); where the match ends Φ(s') is 0
    np.testing.assert_allclose(shape(before, after, reward, live), [[5.5, -4.0], [5.5, -4.0]])
    np.testing.assert_allclose(shape(before, after, reward, ended), [[1.0, -4.0], [1.0, -4.0]])
    assert shaping(env, TrainConfig())(before, after, reward, live) is reward


def test_shaping_a_game_whose_kernel_has_no_potential_is_refused() -> None:
    with pytest.raises(NegotiationError, match="no shaping_potential") as refused:
        shaping(make("trust_and_split"), TrainConfig(shaping=1.0))
    assert refused.value.code == "invalid_argument"


@pytest.mark.slow
def test_ippo_with_the_team_reward_and_shaping_beats_the_gatherer_team_at_the_table(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "negotiation_platform.cli.main", "train", "adasociety", *RUN]
    command += ["--config", json.dumps(SMALL), "--out", str(tmp_path), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=560, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    table = json.loads(done.stdout)["table"]
    assert table == json.loads((tmp_path / "table.json").read_text())
    assert table["seeds"] == 50 and table["scripted_agent"] == "gatherer"
    policy, gatherer = table["policy"], table["scripted"]
    # the two 95% intervals do not overlap: the trained team is better, not within noise of the scripted one
    assert policy["mean"] > gatherer["mean"] and policy["low"] > gatherer["high"], table
    meta = json.loads((tmp_path / "policy.json").read_text())
    assert (meta["team_reward"], meta["shaping"], meta["config"]) == (1.0, 1.0, SMALL)
