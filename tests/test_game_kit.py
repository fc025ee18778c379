"""`new-game` scaffolds a package that installs, is found through its entry point, passes its own
tests and plays through the CLI and over MCP (a real stdio subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from negotiation_platform.agents.concession import ConcessionAgent
from negotiation_platform.agents.driver import play_match

CLI = [sys.executable, "-m", "negotiation_platform.cli.main"]


def run(
    args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """`new-game haggle`, built and installed into a target directory; an environment that sees it."""
    root = tmp_path_factory.mktemp("kit")
    made = run([*CLI, "new-game", "haggle", "--dir", str(root)])
    assert made.returncode == 0, made.stderr
    site = root / "site"
    built = run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", str(site),
         str(root / "haggle")]
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    return root / "haggle", {**os.environ, "PYTHONPATH": str(site)}


def test_the_scaffold_passes_its_own_tests(installed: tuple[Path, dict[str, str]]) -> None:
    project, env = installed
    assert {"pyproject.toml", "README.md", "haggle", "tests"} <= {p.name for p in project.iterdir()}
    # mapped explicitly, so the author's editable install is a path entry type checkers follow (as the core's)
    assert tomllib.loads((project / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"] == {"": "."}
    tested = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], env=env, cwd=project)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "4 passed" in tested.stdout


def test_the_scaffold_plays_through_the_cli(installed: tuple[Path, dict[str, str]]) -> None:
    _, env = installed
    games = json.loads(run([*CLI, "games", "--json"], env=env).stdout)["games"]
    assert {"id": "haggle", "source": "haggle"}.items() <= next(g for g in games if g["id"] == "haggle").items()
    played = run([*CLI, "play", "haggle", "--seed", "3", "--agents", "concession", "batna", "--json"], env=env)
    assert played.returncode == 0, played.stderr
    result = json.loads(played.stdout)
    assert result["game"] == "haggle" and set(result["payoffs"]) == {"concession", "batna"}
    assert any(e["kind"] == "action" and e["data"]["action_type"] == "propose" for e in result["events"])


@pytest.mark.anyio
async def test_the_scaffold_plays_over_mcp_stdio(installed: tuple[Path, dict[str, str]]) -> None:
    from mcp import Client, StdioServerParameters

    from negotiation_mcp.client import McpArena, stdio_server_parameters

    _, env = installed
    spawn = stdio_server_parameters()
    server = StdioServerParameters(command=spawn.command, args=spawn.args, env=env)
    async with Client(server) as client:
        api = McpArena(client)
        assert "haggle" in {g["id"] for g in (await api.call("list_games"))["games"]}
        result = await play_match(api, "haggle", [ConcessionAgent(seed=1), ConcessionAgent(seed=2)], seed=5)
    assert result["game_id"] == "haggle" and len(result["payoffs"]) == 2


@pytest.mark.parametrize(
    ("name", "reason"),
    [("My-Game", "is not a valid game name"), ("json", "would shadow"), ("split_100", "already installed")],
)
def test_bad_names_are_refused_in_one_line(tmp_path: Path, name: str, reason: str) -> None:
    refused = run([*CLI, "new-game", name, "--dir", str(tmp_path)])
    assert refused.returncode == 2
    assert refused.stderr.startswith("negotiation-platform new-game: ") and reason in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_an_existing_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "haggle").mkdir()
    refused = run([*CLI, "new-game", "haggle", "--dir", str(tmp_path)])
    assert refused.returncode == 2 and "already exists" in refused.stderr
    assert list((tmp_path / "haggle").iterdir()) == []
