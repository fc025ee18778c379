"""`train` learns a coin game better than random play, and its policy plays whole matches through `play`."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

pytest.importorskip("flax")
pytest.importorskip("optax")

from negotiation_platform.agents.catalog import make_agent
from negotiation_platform.agents.seating import SeatedBy
from negotiation_platform.errors import NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.wire.allowlist import AllowList
from tests.test_cli_conventions import cli

GAME, CONFIG = "trust_and_split", '{"rounds": 4}'
SHORT_RUN = ["--total-steps", "4096", "--num-envs", "32", "--num-steps", "8", "--hidden", "32", "--fast-compile"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    out = tmp_path_factory.mktemp("run")
    done = cli("train", GAME, *SHORT_RUN, "--config", CONFIG, "--scripted-matches", "2", "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    return out, json.loads(done.stdout)


def test_a_short_run_beats_random_and_writes_its_files(trained: tuple[Path, dict[str, object]]) -> None:
    out, summary = trained
    assert summary == json.loads((out / "summary.json").read_text())
    assert summary["final_return"] > summary["random_return"] > 0  # type: ignore[operator]
    assert summary["scripted"] == "concession" and isinstance(summary["scripted_return"], float)
    assert summary["env_steps"] == 4096 and summary["env_steps_per_second"] > 0  # type: ignore[operator]
    assert summary["device"] and summary["platform"] == "cpu"
    rows = list(csv.reader((out / "curve.csv").open()))
    assert rows[0] == ["env_steps", "mean_return"] and [int(r[0]) for r in rows[1:]] == [256 * i for i in range(1, 17)]
    assert (out / "curve.png").read_bytes()[:4] == b"\x89PNG"
    assert {"policy.json", "params.msgpack"} <= {p.name for p in out.iterdir()}


def test_a_policy_plays_a_whole_match_through_play(trained: tuple[Path, dict[str, object]]) -> None:
    out, _ = trained
    args = ["play", GAME, "--agents", f"policy:{out}", "random", "--config", CONFIG, "--seed", "5", "--json"]
    first, again = cli(*args), cli(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout, "the policy samples from a generator seeded by the match seed"
    result = json.loads(first.stdout)
    assert set(result["payoffs"]) == {"policy", "random"} and result["rounds"] == 4
    moves = [e["data"] for e in result["events"] if e["kind"] == "action" and e["data"]["action_type"] == "split"]
    assert len(moves) == 8 and all(0 <= m["payload"]["coins"] <= 10 for m in moves)


def test_a_policy_refuses_another_game_a_missing_directory_and_a_served_arena(
    trained: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    registry = Registry()
    agent = make_agent(registry, f"policy:{trained[0]}", 0, by=SeatedBy.OPERATOR)
    with pytest.raises(NegotiationError, match="This policy plays trust_and_split, not 'no_press'") as other:
        agent.decide({"game_id": "no_press", "your_turn": True, "allowed_actions": [{"name": "split"}]})
    with pytest.raises(NegotiationError, match="holds no trained policy") as missing:
        make_agent(registry, f"policy:{tmp_path}", 0, by=SeatedBy.OPERATOR)
    with pytest.raises(NegotiationError) as served:
        make_agent(registry, f"policy:{trained[0]}", 0, allow=AllowList.of(["http://127.0.0.1:9/"]), by=SeatedBy.CLIENT)
    assert (other.value.code, missing.value.code, served.value.code) == ("invalid_argument",) * 2 + ("forbidden",)
