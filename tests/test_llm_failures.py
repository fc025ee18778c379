"""LLM endpoint failures that show: `tournament` and `play` run as real subprocesses against the fake
OpenAI-compatible endpoint of `tests.fake_openai` on 127.0.0.1, which times out, answers 500 or sends
a body that is no JSON. Matches whose seats lost moves are marked, named and left out of the tables
(unless --keep-failed-llm); a seat with no usable answer at all fails the command."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from negotiation_platform.agents.llm_failures import EndpointFailures, row_failures
from negotiation_platform.research.analysis import usage_by_agent
from negotiation_platform.research.report import write_report
from negotiation_platform.research.tournament import finished_rows, run_tournament
from tests.fake_openai import Failing, serve

QUICK = {"api_key": "test", "timeout": 0.2, "retries": 1, "backoff": 0.01, "max_backoff": 0.02}
"""Two tries a call, each at most 0.2 s: a lost move costs well under a second."""


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "negotiation_platform.cli.main", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, env=dict(os.environ))


def stored(out: Path) -> dict[str, dict[str, Any]]:
    return finished_rows(out)


def test_a_tournament_whose_llm_never_answers_names_its_matches_leaves_them_out_and_exits_1(tmp_path: Path) -> None:
    model = Failing("timeout", delay=1.0)
    out = tmp_path / "t"
    for endpoint in serve(model):
        args = ["tournament", "--games", "split_100", "--agents", "llm:silent", "concession", "--out", str(out),
                "--agent-config", json.dumps({"base_url": endpoint, **QUICK})]  # fmt: skip
        done = cli(*args)
        tries = model.failed
        kept = cli(*args, "--keep-failed-llm")  # everything is played: the summary is made again from the rows
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "3 scheduled: 3 played, 0 skipped (done before), 0 failed; 1 matches (2 left out: LLM endpoint failures)"
        in (done.stdout)
    )
    assert "2 matches had LLM endpoint failures (left out above; --keep-failed-llm counts them):" in done.stdout
    lost = "seat 0 (llm:silent) lost 1 of 1 moves: 1 failed calls, 2 failed tries (last: timeout after 0.2 s (2 tries))"
    for key in ("split_100|llm:silent,llm:silent|0", "split_100|llm:silent,concession|0"):
        assert f"  {key}: {lost}" in done.stdout
    assert "2 seats (llm:silent) had no usable answer from their endpoint at all." in done.stdout
    assert tries == 4  # two matches, one move each before the forfeit ended it, two tries a move
    rows = stored(out)
    marked = {key: row_failures(row) for key, row in rows.items() if row_failures(row)}
    assert sorted(marked) == ["split_100|llm:silent,concession|0", "split_100|llm:silent,llm:silent|0"]
    assert all(f == [EndpointFailures(seat=0, agent="llm:silent", moves=1, moves_lost=1, failed_calls=1,
                                      failed_tries=2, last_error="timeout after 0.2 s (2 tries)")]
               for f in marked.values())  # fmt: skip
    assert "endpoint_failures" not in rows["split_100|concession,concession|0"]

    assert kept.returncode == 1 and model.failed == tries, kept.stdout + kept.stderr
    assert "3 scheduled: 0 played, 3 skipped (done before), 0 failed; 3 matches," in kept.stdout
    assert "2 matches had LLM endpoint failures (counted above, as asked):" in kept.stdout
    assert f"  split_100|llm:silent,concession|0: {lost}" in kept.stdout

    report = cli("report", str(out), "--samples", "5")
    assert report.returncode == 0, report.stderr
    page = (out / "report.md").read_text()
    outcomes = page.split("## Outcomes per game and agent", 1)[1].split("\n## ", 1)[0]
    assert "| concession |" in outcomes and "llm:silent" not in outcomes
    assert "## Matches with LLM endpoint failures\n\nLeft out of every outcome table" in page
    assert "| split_100\\|llm:silent,concession\\|0 | 0 | llm:silent | 1 | 1 | 1 | 2 |" in page
    left_out = json.loads((out / "analysis.json").read_text())
    write_report(out, samples=5, keep_failed_llm=True)
    counted = json.loads((out / "analysis.json").read_text())
    assert {a["agent"] for a in left_out["aggregate"]} == {"concession"}
    assert {a["agent"] for a in counted["aggregate"]} == {"concession", "llm:silent"}
    assert (
        "llm:silent" not in left_out["ratings"]["overall"]["bradley_terry"]
        and "llm:silent" in counted["ratings"]["overall"]["bradley_terry"]
    )
    assert [m["key"] for m in left_out["endpoint_failures"]] == [m["key"] for m in counted["endpoint_failures"]]
    assert left_out["usage"]["llm:silent"]["moves_lost"] == 2  # what was spent is reported either way


def test_a_tournament_whose_llm_fails_sometimes_exits_0_and_names_the_matches_with_true_counts(
    tmp_path: Path,
) -> None:
    def shaky_first_round(request: dict[str, Any]) -> bool:
        return bool(request["model"] == "shaky" and "Round 1 of" in request["messages"][1]["content"])

    model = Failing("500", fails=shaky_first_round)
    out = tmp_path / "t"
    for endpoint in serve(model):
        done = cli("tournament", "--games", "company_car", "--agents", "llm:steady", "llm:shaky", "--out", str(out),
                   "--agent-config", json.dumps({"base_url": endpoint, **QUICK}))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 failed; 1 matches (2 left out: LLM endpoint failures)" in done.stdout
    named = re.findall(r"^  (company_car\S+): seat (\d) \(llm:shaky\) lost 1 of (\d+) moves", done.stdout, re.M)
    assert sorted((key, seat) for key, seat, _ in named) == [
        ("company_car|llm:shaky,llm:shaky|0", "0"),
        ("company_car|llm:shaky,llm:shaky|0", "1"),
        ("company_car|llm:steady,llm:shaky|0", "1"),
    ]
    assert all(int(moves) > 1 for _, _, moves in named)  # later rounds were answered
    assert "no usable answer" not in done.stdout
    rows = list(stored(out).values())
    usage = usage_by_agent(rows)
    shaky, steady = usage["llm:shaky"], usage["llm:steady"]
    assert (steady["failed_calls"], steady["failed_tries"], steady["moves_lost"]) == (0, 0, 0)
    assert shaky["failed_tries"] == model.failed == 2 * shaky["failed_calls"]
    assert shaky["moves_lost"] == shaky["failed_calls"] == shaky["forfeits"] == 3
    seats = [seat for row in rows for seat in row_failures(row)]
    assert sum(seat.failed_calls for seat in seats) == 3 and {seat.last_error for seat in seats} == {
        "HTTP 500 (2 tries)"
    }


def test_play_whose_endpoint_sends_garbage_says_so_and_exits_1() -> None:
    model = Failing("garbage")
    for endpoint in serve(model):
        done = cli("play", "split_100", "--agents", "llm:m", "concession", "--seed", "3", "--json",
                   "--agent-config", json.dumps({"base_url": endpoint, **QUICK}))  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert row_failures(result) == [
        EndpointFailures(seat=0, agent="llm:m", moves=1, moves_lost=1, failed_calls=1, failed_tries=2,
                         last_error="a reply that is not JSON (2 tries)")
    ]  # fmt: skip
    assert "1 matches had LLM endpoint failures" in done.stderr and "Traceback" not in done.stderr
    assert "split_100 seed 3: seat 0 (llm:m) lost 1 of 1 moves" in done.stderr
    assert "1 seats (llm:m) had no usable answer from their endpoint at all." in done.stderr


def test_an_mcp_llm_seat_counts_its_failed_calls_through_the_same_call_layer(tmp_path: Path) -> None:
    pytest.importorskip("negotiation_mcp")
    model = Failing("500")
    for endpoint in serve(model):
        [row] = run_tournament(
            ["split_100"], ["mcp-llm:m"], out=tmp_path, agent_options={"base_url": endpoint, **QUICK}
        )
    [failure] = row_failures(row)
    assert (failure.seat, failure.agent, failure.moves_lost, failure.failed_calls) == (0, "mcp-llm:m", 1, 1)
    assert failure.no_usable_answer and row["usage"][0]["failed_tries"] == model.failed == 2
