"""README.md's two set-up commands are exactly what CI runs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    setup = readme.split("## Set up (two commands)", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.+?)\n```", setup, flags=re.S)
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text()
    for command in commands:
        assert command.strip() in ci


def test_the_repository_ships_no_match_store() -> None:
    # A SQLite store committed at the root (matches.db and its -wal, -shm) is stale data in every checkout.
    patterns = ["*.db", "*.db-wal", "*.db-shm"]
    listed = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    assert listed.stdout.split() == []
    ignored = subprocess.run(["git", "check-ignore", "-q", "matches.db"], cwd=ROOT)
    assert ignored.returncode == 0, "a store written at the root must stay out of commits"
