"""Tournaments: scheduling over seats and seeds, resuming from matches.jsonl, the CLI with its progress bar."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from negotiation_platform.errors import NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.research.tournament import MatchPlan, offer_position, play_plan, run_tournament, schedule


def without_timing(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in row.items() if k != "seconds"} for row in rows]


def test_schedule_covers_every_seat_with_swaps() -> None:
    registry = Registry()
    swapped = schedule(registry, ["split_100", "auction"], ["random", "batna"], seeds=2, swap_roles=True)
    split = [p for p in swapped if p.game == "split_100"]
    assert Counter(p.agents for p in split) == {
        line_up: 2 for line_up in [("random", "random"), ("random", "batna"), ("batna", "random"), ("batna", "batna")]
    }
    assert len([p for p in swapped if p.game == "auction"]) == 2**3 * 2
    plain = schedule(registry, ["split_100"], ["random", "batna"], seeds=1)
    assert [p.agents for p in plain] == [("random", "random"), ("random", "batna"), ("batna", "batna")]


@pytest.mark.parametrize(
    "kwargs",
    [{"seeds": 0}, {"agents": ["nobody"]}, {"games": ["chess"]}, {"configs": {"auction": {}}}],
)
def test_bad_schedules_are_refused(kwargs: dict[str, object]) -> None:
    args: dict[str, object] = {"games": ["split_100"], "agents": ["random"], **kwargs}
    with pytest.raises(NegotiationError):
        schedule(Registry(), **args)  # type: ignore[arg-type]


def test_rows_are_deterministic_and_seat_ordered() -> None:
    registry = Registry()
    plan = MatchPlan("company_car", ("concession", "batna"), 2)
    first, second = (asyncio.run(play_plan(plan, registry)) for _ in range(2))
    assert without_timing([first]) == without_timing([second])
    assert first["agents"] == ["concession", "batna"] and sorted(first["roles"]) == [0, 1]
    assert first["surplus"] == pytest.approx([p - b for p, b in zip(first["payoffs"], first["batnas"], strict=True)])
    assert first["offers"] and all(0 <= seat < 2 and rnd >= 1 for seat, rnd, _ in first["offers"])


def test_resume_runs_nothing_new(tmp_path: Path) -> None:
    landed: list[dict[str, object]] = []
    args = {"seeds": 2, "swap_roles": True, "out": tmp_path}
    rows = run_tournament(
        ["split_100", "integrative_negotiation"], ["random", "concession"], progress=landed.append, **args
    )
    assert len(rows) == len(landed) == 2 * 4 * 2
    assert len({row["key"] for row in rows}) == len(rows)
    lines = (tmp_path / "matches.jsonl").read_text().splitlines()
    again: list[dict[str, object]] = []
    rerun = run_tournament(
        ["split_100", "integrative_negotiation"], ["random", "concession"], progress=again.append, **args
    )
    assert again == [] and rerun == rows
    assert (tmp_path / "matches.jsonl").read_text().splitlines() == lines
    # A torn last line (an interrupted run) is replayed, not trusted.
    (tmp_path / "matches.jsonl").write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:20])
    third: list[dict[str, object]] = []
    run_tournament(["split_100", "integrative_negotiation"], ["random", "concession"], progress=third.append, **args)
    assert [row["key"] for row in third] == [json.loads(lines[-1])["key"]]


def test_two_workers_give_the_same_rows(tmp_path: Path) -> None:
    args = {"games": ["split_100"], "agents": ["random", "batna"], "seeds": 3, "swap_roles": True}
    inline = run_tournament(out=tmp_path / "one", workers=1, **args)  # type: ignore[arg-type]
    pooled = run_tournament(out=tmp_path / "two", workers=2, **args)  # type: ignore[arg-type]
    assert without_timing(pooled) == without_timing(inline)


def test_cli_tournament_resumes(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "negotiation_platform.cli.main", "tournament", "--games", "split_100",
               "--agents", "random", "concession", "--seeds", "2", "--swap-roles", "--out", str(tmp_path),
               "--config", 'split_100={"rounds": 4}']  # fmt: skip
    first = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert "8 scheduled: 8 played, 0 skipped (done before), 0 failed; 8 matches" in first.stdout
    rows = [json.loads(line) for line in (tmp_path / "matches.jsonl").read_text().splitlines()]
    assert len(rows) == 8 and all(row["config"] == {"rounds": 4} and row["rounds"] <= 4 for row in rows)
    second = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert "8 scheduled: 0 played, 8 skipped (done before), 0 failed; 8 matches" in second.stdout
    bad = subprocess.run([*command[:5], "chess", "--agents", "random"], capture_output=True, text=True, timeout=120)
    [line] = bad.stderr.splitlines()  # one line: no empty progress bar before it
    assert bad.returncode == 2 and line.startswith("negotiation-platform tournament: No game 'chess'")


def test_offer_position_by_hand() -> None:
    field = {"action": "propose", "field": "mine", "best": 100, "reservation": 0}
    assert offer_position(field, {"mine": 60}) == pytest.approx(0.6)
    seller = {"action": "offer", "field": "price", "best": 50_000, "reservation": 40_000}
    assert offer_position(seller, {"price": 42_500}) == pytest.approx(0.25)
    menu = {"action": "propose", "batna": 20.0, "menu": [{"payload": {"x": 1}, "utility": 10.0},
                                                         {"payload": {"x": 2}, "utility": 60.0}]}  # fmt: skip
    assert offer_position(menu, {"x": 2}) == pytest.approx(1.0)
    assert offer_position(menu, {"x": 1}) == pytest.approx(-0.25)  # below its BATNA: (10 − 20) / (60 − 20)
    assert offer_position(menu, {"x": 3}) is None
