"""The examples run and do what they claim."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("optax")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_reinforce_on_the_split_100_kernel_beats_both_baselines() -> None:
    command = [sys.executable, str(EXAMPLES / "train_split_100.py"), "--iterations", "80", "--batch", "256", "--json"]
    report = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    curve = report["curve"]
    assert len(curve) == 80 and curve[-1] > curve[0] + 10, "the learning curve rises"
    assert report["trained"] > report["ask_half"] + 5 > report["random"] + 5
