"""The command line, run as a real subprocess like a newcomer would."""

from __future__ import annotations

import json
import socket
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
def test_errors_are_structured_with_json(args) -> None:
    done = cli(*args, "--json")
    assert done.returncode == 2
    assert "error" in json.loads(done.stderr)


def test_play_prints_a_transcript() -> None:
    done = cli("play", "auction", "--seed", "4", "--agents", "concession", "random")
    assert done.returncode == 0, done.stderr
    assert "bid" in done.stdout and "payoff" in done.stdout


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def one_line_failure(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize("scheme", ["mcp", "a2a"])
def test_an_unreachable_server_is_one_line(scheme: str) -> None:
    pytest.importorskip(f"negotiation_{scheme}")
    url = f"http://127.0.0.1:{closed_port()}" + ("/mcp" if scheme == "mcp" else "")
    via = url if scheme == "mcp" else f"a2a:{url}"
    line = one_line_failure(cli("play", "split_100", "--via", via))
    assert line.startswith("negotiation-platform play: ") and via in line


@pytest.mark.parametrize(
    "args",
    [
        ("serve", "mcp", "--port", "99999"),
        ("serve", "a2a", "--port", "0"),
        ("agent", "serve", "random", "--port", "70000"),
    ],
)
def test_an_invalid_port_is_refused_before_serving(args: tuple[str, ...]) -> None:
    pytest.importorskip(f"negotiation_{'a2a' if 'a2a' in args or 'agent' in args else 'mcp'}")
    done = cli(*args)
    assert done.returncode == 2
    assert "--port must be between 1 and 65535" in one_line_failure(done)


def test_an_infeasible_config_is_one_json_line() -> None:
    done = cli("play", "deal_or_no_deal", "--config", '{"value_total": 1}', "--json")
    if "unknown_game" in done.stderr:
        pytest.skip("the coin games are not installed")
    assert json.loads(one_line_failure(done))["error"]["code"] == "invalid_config"
