"""What the command line writes: transcripts that say who saw what, output that ends quietly when its reader
leaves, and progress drawn on a terminal only (never into a pipe, a file or JSON)."""

from __future__ import annotations

import json
import os
import pty
import select
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from negotiation_platform.cli.main import READER_LEFT_EXIT
from tests.test_cli_conventions import cli

COMMAND = [sys.executable, "-m", "negotiation_platform.cli.main"]


def test_output_piped_into_head_ends_quietly() -> None:
    command = shlex.join([*COMMAND, "play", "adasociety", "--agents", "gatherer", "--seed", "1", "--json"])
    # The JSON is far longer than what head reads plus what a pipe holds, so writing it must meet the closed pipe.
    done = subprocess.run(
        ["bash", "-c", f"{command} | head -n 1; exit ${{PIPESTATUS[0]}}"], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout, done.stderr) == (READER_LEFT_EXIT, "{\n", "")


def test_a_transcript_for_a_reader_that_left_ends_quietly() -> None:
    reading, writing = os.pipe()
    os.close(reading)  # the reader left before the first line
    try:
        done = subprocess.run(
            [*COMMAND, "play", "split_100", "--seed", "1"], stdout=writing, stderr=subprocess.PIPE, timeout=120
        )
    finally:
        os.close(writing)
    assert (done.returncode, done.stderr) == (READER_LEFT_EXIT, b"")


def test_text_transcripts_name_who_saw_each_private_event() -> None:
    played = json.loads(cli("play", "trust_and_split", "--agents", "random", "--seed", "3", "--json").stdout)
    text = cli("play", "trust_and_split", "--agents", "random", "--seed", "3").stdout
    lines = {int(line[1:4]): line for line in text.splitlines() if line.startswith("#")}
    private = [event for event in played["events"] if event["visible_to"] is not None]
    assert {event["kind"] for event in private} == {"action", "notice"}
    for event in private:
        sender = event["actor"] or "game"
        assert (
            f" {sender} → {', '.join(event['visible_to'])}: {event['kind'] if sender == 'game' else ''}"
            in (lines[event["seq"]])
        )
    public = next(event for event in played["events"] if event["kind"] == "notice" and event["visible_to"] is None)
    assert "→" not in lines[public["seq"]]


def test_the_outcome_line_names_no_winner_when_there_is_none() -> None:
    auction = cli("play", "auction", "--agents", "random", "concession", "--seed", "3")
    outcome = auction.stdout.splitlines()[-1]
    assert "terms: {'winner': 'random'" in outcome and "winner: None" not in outcome
    split = cli("play", "split_100", "--seed", "3").stdout.splitlines()[-1]
    assert "  winner (most surplus over BATNA): concession_2  rounds: 6" in split


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A tournament's folder, and what the tournament wrote on stderr (a pipe)."""
    out = tmp_path_factory.mktemp("tournament")
    done = cli("tournament", "--games", "split_100", "--agents", "random", "concession", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out, done.stderr


def slow_commands(folder: Path) -> dict[str, tuple[list[str], str]]:
    """Each command that may take a while: its arguments, and what its progress shows."""
    again = folder.parent / f"{folder.name}-again"
    return {
        "tournament": (["tournament", "--games", "split_100", "--agents", "random", "--out", str(again)], "tournament"),
        "report": (["report", str(folder), "--samples", "10"], "report"),
        "play": (["play", "split_100", "--seed", "1", "--json"], "playing split_100"),
    }


def test_progress_stays_off_a_pipe(tournament: tuple[Path, str]) -> None:
    assert tournament[1] == ""  # not even the bar's last frame
    played = cli("play", "split_100", "--seed", "1", "--json")
    assert played.returncode == 0 and played.stderr == ""
    assert json.loads(played.stdout)["game"] == "split_100"


def on_a_terminal(argv: list[str]) -> tuple[int, str]:
    """Run the command with stderr on a pseudo-terminal; its exit status and what the terminal showed."""
    terminal, stderr = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    with subprocess.Popen([*COMMAND, *argv], stdout=subprocess.DEVNULL, stderr=stderr, env=env) as proc:
        os.close(stderr)
        shown = b""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if not select.select([terminal], [], [], 0.5)[0]:
                continue
            try:
                chunk = os.read(terminal, 65536)
            except OSError:  # EIO: the command has closed its end
                break
            if not chunk:
                break
            shown += chunk
        os.close(terminal)
        return proc.wait(timeout=120), shown.decode(errors="replace")


@pytest.mark.parametrize("command", ["tournament", "report", "play"])
def test_progress_shows_on_a_terminal(command: str, tournament: tuple[Path, str]) -> None:
    argv, label = slow_commands(tournament[0])[command]
    status, shown = on_a_terminal(argv)
    assert status == 0
    assert label in shown and "0:00:0" in shown  # the elapsed time column
