"""JaxMARL's own IPPO baselines train on kernel games with only their `make` line changed.

`ippo_ff_mpe.py` and `ippo_ff_hanabi.py` (copied byte for byte under tests/third_party/jaxmarl_baselines)
run as JaxMARL runs them, the script under hydra in a fresh process, for a few updates. The one change:
`jaxmarl.make(...)` becomes `negotiation_platform.kernels.marl.make(...)`. wandb, which the scripts log
to, is a stand-in that writes each logged dict to a file, so the test reads what the run learned. They
need the `marl-baselines` extra (distrax, hydra-core) and skip without it.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MISSING = [module for module in ("jaxmarl", "distrax", "hydra") if importlib.util.find_spec(module) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"needs the marl-baselines extra ({', '.join(MISSING)} missing)")

BASELINES = Path(__file__).parent / "third_party" / "jaxmarl_baselines"
UPSTREAM_MAKE = "env = jaxmarl.make("
OUR_MAKE = "from negotiation_platform.kernels.marl import make; env = make("

WANDB_STAND_IN = '''"""wandb as the baselines call it: init, and log writing each metric dict as a JSON line."""
import json, os

def init(**kwargs):
    pass

def log(metrics):
    with open(os.environ["WANDB_LOG"], "a") as out:
        out.write(json.dumps({name: float(value) for name, value in metrics.items()}) + "\\n")
'''

NUM_ENVS, NUM_STEPS, TOTAL_TIMESTEPS = 4, 32, 512
UPDATES = TOTAL_TIMESTEPS // NUM_STEPS // NUM_ENVS
SHORT_RUN = [
    f"TOTAL_TIMESTEPS={TOTAL_TIMESTEPS}",
    f"NUM_ENVS={NUM_ENVS}",
    f"NUM_STEPS={NUM_STEPS}",
    "NUM_MINIBATCHES=2",
    "UPDATE_EPOCHS=1",
]


def run_baseline(script: str, game_id: str, workdir: Path, *overrides: str) -> list[dict[str, float]]:
    """Run upstream `script` with our make on `game_id` in `workdir`; the metrics it logged, one dict an update."""
    source = (BASELINES / script).read_text()
    assert source.count(UPSTREAM_MAKE) == 1, "the upstream script no longer has exactly one jaxmarl.make line"
    (workdir / script).write_text(source.replace(UPSTREAM_MAKE, OUR_MAKE))
    shutil.copytree(BASELINES / "config", workdir / "config")
    stand_in = workdir / "stand_in"
    (stand_in / "wandb").mkdir(parents=True)
    (stand_in / "wandb" / "__init__.py").write_text(WANDB_STAND_IN)
    log = workdir / "wandb.jsonl"
    path = [str(stand_in), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    # XLA's optimisations off, as `train --fast-compile`: compiling is most of a run this short.
    xla_flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_backend_optimization_level=0".strip()
    env = os.environ | {"PYTHONPATH": os.pathsep.join(path), "WANDB_LOG": str(log), "XLA_FLAGS": xla_flags}
    command = [sys.executable, script, f"ENV_NAME={game_id}", *SHORT_RUN, *overrides]
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_ippo_ff_mpe_trains_on_coins_classic(tmp_path: Path) -> None:
    """MPE's baseline (no masks, every agent acts every step) on a game of simultaneous claims: each update
    logs JaxMARL's episode statistics over our matches, the kernel's own `totals` info among them."""
    metrics = run_baseline("ippo_ff_mpe.py", "coins_classic", tmp_path, "NUM_SEEDS=1")
    assert len(metrics) == UPDATES
    assert all("totals" in update for update in metrics)  # the coin games' info entry: no JaxMARL env has it
    assert all(math.isfinite(value) for update in metrics for value in update.values())
    assert max(update["returned_episode_returns"] for update in metrics) > 0  # matches ended and paid
    assert any(update["ratio"] != 1.0 for update in metrics)  # the policy moved between minibatches
    assert (tmp_path / "ippo_ff_coins_classic.png").is_file()  # the script's own learning-curve plot


def test_ippo_ff_hanabi_trains_on_split_100_with_its_legal_moves(tmp_path: Path) -> None:
    """Hanabi's baseline (turn-based, actions masked by `get_legal_moves`, an int observation shape) on a
    turn-based game: it logs every update's env-steps and the returns of finished matches, which a
    split of 100 bounds."""
    metrics = run_baseline("ippo_ff_hanabi.py", "split_100", tmp_path)
    assert [update["env_step"] for update in metrics] == [i * NUM_ENVS * NUM_STEPS for i in range(UPDATES)]
    returns = [update["returns"] for update in metrics]
    assert all(0 <= value <= 100 for value in returns) and max(returns) > 0
