"""What every subcommand shares: --version, --log-level, help with defaults, output fit for pipes, one-line errors."""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from negotiation_platform.cli import main as cli_main
from negotiation_platform.registry import Registry


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "negotiation_platform.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """`parser` and every subcommand's parser under it."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from parsers(sub)


def test_version_names_the_installed_distribution() -> None:
    done = cli("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"negotiation-platform {importlib.metadata.version('negotiation-platform')}"


def test_every_argument_has_help_and_shows_its_default() -> None:
    parser = cli_main.build_parser(Registry())
    seen = 0
    for sub in parsers(parser):
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            seen += 1
            assert action.help, f"{sub.prog} {action.option_strings or action.dest} has no help"
    assert seen > 40
    assert "(default: 4096)" in cli("simulate", "--help").stdout
    serve_help = cli("serve", "mcp", "--help").stdout
    assert "(default: stdio)" in serve_help and "(default: 8000)" in serve_help
    assert "(default: None)" not in cli("play", "--help").stdout


def test_log_level_sends_library_logs_to_stderr() -> None:
    quiet = cli("rules", "split_100")
    loud = cli("--log-level", "debug", "rules", "split_100")
    assert quiet.returncode == loud.returncode == 0
    assert quiet.stderr == ""
    assert "DEBUG asyncio: Using selector" in loud.stderr
    assert loud.stdout == quiet.stdout


def test_tables_keep_whole_ids_when_piped() -> None:
    ids = [game["id"] for game in json.loads(cli("games", "--json").stdout)["games"]]
    done = cli("games", env={"COLUMNS": "40"})
    cells = {cell.strip() for line in done.stdout.splitlines() for cell in line.split("│")}
    assert set(ids) <= cells
    assert "integrative_negotiation" in ids and "…" not in done.stdout
    agents = cli("agents", env={"COLUMNS": "40"}).stdout
    assert "Time-based concession from its best outcome toward its reservation value." in agents


@pytest.fixture
def broken_plugin(tmp_path: Path) -> dict[str, str]:
    """An installed distribution whose games entry point cannot be imported (PYTHONPATH for a subprocess)."""
    info = tmp_path / "broken_games-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-games\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[negotiation_platform.games]\nbroken = no_such_module_for_this_test\n")
    return {"PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}


def test_games_json_is_only_json_and_reports_problems(broken_plugin: dict[str, str]) -> None:
    done = cli("games", "--json", env=broken_plugin)
    assert done.returncode == 0
    listing = json.loads(done.stdout)
    assert "split_100" in {game["id"] for game in listing["games"]}
    [problem] = listing["problems"]
    assert problem["plugin"] == "broken" and problem["source"] == "broken-games"
    assert "no_such_module_for_this_test" in problem["reason"]
    assert done.stderr.splitlines() == [f"plugin 'broken' (broken-games) left out: {problem['reason']}"]
    table = cli("games", env=broken_plugin)
    assert "left out" not in table.stdout and "left out" in table.stderr


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    return line


def test_errors_are_one_plain_line_unless_json() -> None:
    plain = cli("play", "chess")
    assert plain.returncode == 2 and plain.stdout == ""
    assert one_line(plain).startswith("negotiation-platform play: No game 'chess'; available: [")
    structured = cli("play", "chess", "--json")
    assert structured.returncode == 2 and structured.stdout == ""
    assert json.loads(one_line(structured))["error"]["code"] == "unknown_game"
    usage = cli("play", "split_100", "--seed", "seven")
    assert usage.returncode == 2
    assert one_line(usage) == (
        "negotiation-platform play: argument --seed: invalid int value: 'seven' (see negotiation-platform play --help)"
    )
    failed = cli("simulate", "split_100", "--batch", "0", "--json")
    assert failed.returncode == 1
    assert json.loads(one_line(failed)) == {
        "error": {"code": "command_failed", "message": "--batch and --steps must be positive"}
    }


@pytest.mark.parametrize(
    "argv", [["serve", "mcp"], ["serve", "a2a", "--port", "9000"], ["serve", "mcp", "--bogus"], ["serve", "openenv"]]
)
def test_serving_a_transport_that_is_not_installed_says_what_to_install(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli_main, "Registry", lambda: Registry(entry_points=False))  # nothing installed
    assert cli_main.main(argv) == 1
    captured = capsys.readouterr()
    name = argv[1]
    assert captured.out == ""
    hint = f'pip install "negotiation-platform[{name}]"'
    assert captured.err == f"negotiation-platform serve: the {name} transport is not installed: {hint}\n"


def test_unknown_options_are_still_refused_when_the_transport_is_installed() -> None:
    pytest.importorskip("negotiation_mcp")
    done = cli("serve", "mcp", "--bogus")
    assert done.returncode == 2
    assert "unrecognized arguments: --bogus" in one_line(done)


@pytest.mark.parametrize("command", [["serve", "view"], ["serve", "mcp", "--transport", "http"], ["serve", "a2a"]])
def test_a_store_a_server_must_not_use_ends_the_command_with_the_reason(command: list[str], tmp_path: Path) -> None:
    """The arena refuses the store (`CannotStart`); the command line makes it its exit, before listening."""
    pytest.importorskip({"mcp": "negotiation_mcp", "a2a": "negotiation_a2a"}.get(command[1], "negotiation_platform"))
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE invoices (id INTEGER)")
    done = cli(*command, "--store", str(other))
    assert done.returncode == 1 and done.stdout == ""
    assert one_line(done).startswith(f"negotiation-platform serve: cannot use --store {other}: ")
    assert "not a match store" in done.stderr


def test_the_serve_options_become_the_served_policy_they_name() -> None:
    from negotiation_platform.arena.policy import ArenaPolicy
    from negotiation_platform.cli.serve_options import add_policy_arguments, policy_from_args

    parser = argparse.ArgumentParser()
    add_policy_arguments(parser)
    chosen = parser.parse_args(
        [
            "--reproducible",
            "--turn-timeout",
            "7",
            "--max-live-matches",
            "40",
            "--max-live-per-caller",
            "3",
            "--max-live-per-address",
            "5",
            "--max-waiting-per-caller",
            "2",
            "--finished-ttl",
            "9",
            "--allow-remote-agent",
            "http://h:1/a",
            "--reveal-finished",
        ]
    )
    expected = ArenaPolicy.served(
        reproducible=True,
        turn_timeout=7,
        max_live_matches=40,
        max_live_per_caller=3,
        max_live_per_address=5,
        max_waiting_per_caller=2,
        finished_ttl=9,
        remote_agents=["http://h:1/a"],
        reveal_finished=True,
        play_base_url="http://127.0.0.1:1",
    )
    unkeyed = {"secret": b""}  # each policy draws its own
    assert dataclasses.replace(policy_from_args(chosen, "http://127.0.0.1:1"), **unkeyed) == dataclasses.replace(
        expected, **unkeyed
    )
    defaults = policy_from_args(parser.parse_args([]))
    assert dataclasses.replace(defaults, **unkeyed) == dataclasses.replace(ArenaPolicy.served(), **unkeyed)
