"""The command line refuses what it cannot do as asked (exit 2, one line saying why), in the form asked for."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from negotiation_platform.agents.catalog import agent_description
from negotiation_platform.cli import main as cli_main
from negotiation_platform.registry import Registry
from tests.test_cli_conventions import cli, one_line


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["play", "split_100", "--agents", "random", "random", "random"],
            "split_100 has 2 seat(s) but --agents names 3",
        ),
        (
            ["play", "split_100", "--human", "--no-browser", "--agents", "random", "random"],
            "split_100 has 1 seat(s) beside yours but --agents names 2",
        ),
        (
            ["study", "create", "--game", "split_100", "--opponents", "random", "random", "--participants", "1"],
            "split_100 has 2 seats: one for the participant, at most 1 opponent(s)",
        ),
    ],
)
def test_more_agents_than_seats_are_refused_not_dropped(argv: list[str], said: str, tmp_path: Path) -> None:
    study = ["--store", str(tmp_path / "study.db"), "--out", str(tmp_path / "links.csv")] if argv[0] == "study" else []
    done = cli(*argv, *study)
    assert done.returncode == 2 and done.stdout == ""
    assert one_line(done).startswith(f"negotiation-platform {argv[0]}: {said}")
    assert not (tmp_path / "links.csv").exists()
    if argv[0] == "play":
        structured = cli(*argv, "--json")
        error = json.loads(one_line(structured))["error"]
        assert structured.returncode == 2 and error["code"] == "invalid_argument" and error["message"].startswith(said)


def test_agents_json_lists_every_agent_with_its_description() -> None:
    done = cli("agents", "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)["agents"]
    assert [agent["name"] for agent in listed] == sorted(Registry().agents())
    concession = next(agent for agent in listed if agent["name"] == "concession")
    assert concession["description"] == "Time-based concession from its best outcome toward its reservation value."


def test_every_installed_agent_has_a_description() -> None:
    agents = Registry().agents()
    assert {"random", "concession"} <= set(agents)
    assert [name for name, factory in agents.items() if not agent_description(factory)] == []


def test_a_usage_error_with_json_is_the_json_error() -> None:
    done = cli("play", "split_100", "--seed", "seven", "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert json.loads(one_line(done)) == {
        "error": {
            "code": "invalid_argument",
            "message": "argument --seed: invalid int value: 'seven' (see negotiation-platform play --help)",
        }
    }
    unknown = cli("report", "somewhere", "--json")  # `report` has no --json: still asked for, so answered so
    assert unknown.returncode == 2
    assert json.loads(one_line(unknown))["error"]["message"].startswith("unrecognized arguments: --json")
    assert one_line(cli("play", "split_100", "--seed", "seven")).startswith("negotiation-platform play: argument")


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """An SQLite store holding one finished match."""
    path = tmp_path / "arena.db"
    assert cli_main.main(["play", "split_100", "--seed", "1", "--store", str(path), "--json"]) == 0
    return path


def stored_rows(store: Path) -> list[str]:
    """The store's whole content as SQL (not its bytes: SQLite may checkpoint its journal into the file
    whenever the last connection closes, which changes the bytes and nothing stored)."""
    with sqlite3.connect(store) as db:
        return list(db.iterdump())


@pytest.mark.parametrize("command", [["matches"], ["export", "--out", "results.jsonl"]])
def test_reading_a_missing_store_is_a_bad_argument(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "nowhere.db"
    monkeypatch.chdir(tmp_path)
    assert cli_main.main([*command, "--store", str(missing)]) == 2
    line = capsys.readouterr().err.strip()
    assert line.startswith(f"negotiation-platform {command[0]}: no store at {missing} (check --store;")
    assert "pass --store" not in line and not missing.exists() and not (tmp_path / "results.jsonl").exists()
    monkeypatch.setenv("NEGOTIATION_STORE", str(missing))
    assert cli_main.main([*command, "--json"] if command == ["matches"] else command) == 2
    captured = capsys.readouterr().err
    message = json.loads(captured)["error"]["message"] if command == ["matches"] else captured
    assert f"no store at {missing} (from $NEGOTIATION_STORE; check it, or pass --store;" in message
    assert cli_main.main([*command, "--store", ":memory:"]) == 2


def test_export_to_an_unknown_format_is_a_bad_argument_refused_before_reading(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    before = stored_rows(store)
    assert cli_main.main(["export", "--store", str(store), "--out", str(tmp_path / "results.csv")]) == 2
    assert (
        capsys.readouterr().err
        == "negotiation-platform export: --out must end in .jsonl or .parquet, got 'results.csv'\n"
    )
    assert not (tmp_path / "results.csv").exists() and stored_rows(store) == before
    assert cli_main.main(["export", "--store", str(store), "--out", str(tmp_path / "results.jsonl")]) == 0
    with sqlite3.connect(store) as db:
        [(stored,)] = db.execute("SELECT count(*) FROM matches").fetchall()
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == stored == 1
