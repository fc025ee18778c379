"""The command line, run as a real subprocess like a newcomer would."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "negotiation_platform.cli.main", *args], capture_output=True, text=True, timeout=120
    )


def test_play_json_is_reproducible_and_seed_dependent() -> None:
    first, second = cli("play", "split_100", "--seed", "7", "--json"), cli("play", "split_100", "--seed", "7", "--json")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    result = json.loads(first.stdout)
    assert {"game", "seed", "agreement", "payoffs", "rounds", "events"} <= set(result)
    assert result["game"] == "split_100" and result["seed"] == 7
    assert all(isinstance(v, float | int) for v in result["payoffs"].values())
    seeds = {cli("play", "auction", "--seed", str(s), "--json", "--agents", "random").stdout for s in (1, 2)}
    assert len(seeds) == 2


def test_games_rules_agents() -> None:
    games = json.loads(cli("games", "--json").stdout)["games"]
    assert {"split_100", "auction"} <= {g["id"] for g in games}
    assert "alternating" in cli("rules", "split_100").stdout
    spec = json.loads(cli("rules", "auction", "--json").stdout)
    assert [p["name"] for p in spec["phases"]] == ["discuss", "bid"]
    assert {"random", "concession"} <= set(cli("agents").stdout.split())


@pytest.mark.parametrize("args", [("play", "chess"), ("play", "split_100", "--config", '{"rounds": 0}')])
def test_errors_are_structured(args) -> None:
    done = cli(*args)
    assert done.returncode == 2
    assert "error" in json.loads(done.stderr)


def test_play_prints_a_transcript() -> None:
    done = cli("play", "auction", "--seed", "4", "--agents", "concession", "random")
    assert done.returncode == 0, done.stderr
    assert "bid" in done.stdout and "payoff" in done.stdout
