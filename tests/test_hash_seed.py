"""Same game, config, seed and actions give the same transcript whatever the interpreter's hash seed
(issue 26, defect 4: the turn clock once played default moves in a set's order, so an auction nobody
moved in was won by alice or by carol depending on `PYTHONHASHSEED`).

The clock-heavy scenario of `tests/clock_transcripts.py` runs in a subprocess under each hash seed,
all at once; every transcript must be the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HASH_SEEDS = ("0", "1", "2", "3")
ROOT = Path(__file__).resolve().parent.parent


def test_a_clock_heavy_scenario_gives_one_transcript_whatever_the_hash_seed() -> None:
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.clock_transcripts"],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for seed in HASH_SEEDS
    ]
    transcripts = []
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err.decode()
        transcripts.append(json.loads(out))
    results = [[match["result"] for match in transcript] for transcript in transcripts]
    assert results == [results[0]] * len(HASH_SEEDS)
    assert transcripts == [transcripts[0]] * len(HASH_SEEDS)
