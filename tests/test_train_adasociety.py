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
