"""The report's statistics on real tournaments: intervals, paired tests, ratings that follow payoffs, figures."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("scipy")

from negotiation_platform.registry import Registry
from negotiation_platform.research.analysis import (
    agent_intervals,
    analyze,
    holm,
    mean_interval,
    paired_comparisons,
    paired_tests,
    ratings_with_intervals,
)
from negotiation_platform.research.analysis.metrics import with_metrics
from negotiation_platform.research.report import concession_figure, outcome_figure, write_report
from negotiation_platform.research.report_figures import DPI, save
from negotiation_platform.research.report_format import Estimate, Unit, cell
from negotiation_platform.research.rows import MatchRow
from negotiation_platform.research.tournament import run_tournament


def png_width(path: Path) -> int:
    width: int = struct.unpack(">I", path.read_bytes()[16:20])[0]  # the IHDR chunk's width
    return width


@pytest.fixture(scope="module")
def car(tmp_path_factory: pytest.TempPathFactory) -> list[MatchRow]:
    """company_car, concession against batna in both roles, 12 seeds: BATNAs and payoffs vary by seed."""
    out = tmp_path_factory.mktemp("car")
    return with_metrics(run_tournament(["company_car"], ["concession", "batna"], seeds=12, swap_roles=True, out=out))


def test_intervals_hold_the_mean_and_shrink_with_more_seeds(car: list[MatchRow]) -> None:
    few = agent_intervals([r for r in car if r["seed"] < 3])["company_car"]["concession"]["utility"]
    many = agent_intervals(car)["company_car"]["concession"]["utility"]
    for interval in (few, many):
        assert interval["low"] is not None and interval["high"] is not None
        assert interval["low"] <= interval["mean"] <= interval["high"]
        assert interval["low"] < interval["high"]
    assert many["high"] - many["low"] < few["high"] - few["low"]  # type: ignore[operator]
    assert mean_interval([1.0, 5.0, 2.0]) == mean_interval([1.0, 5.0, 2.0])  # seeded: the same every time
    assert mean_interval([0.0] * 8) == {"mean": 0.0, "low": 0.0, "high": 0.0}  # constant data: an honest [0, 0]
    assert mean_interval([3.0]) == {"mean": 3.0, "low": None, "high": None}
    assert mean_interval([]) is None


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> list[MatchRow]:
    """split_100 as issue 39 found it: random, concession and batna, 4 seeds, seats in the order given."""
    out = tmp_path_factory.mktemp("split")
    return run_tournament(["split_100"], ["random", "concession", "batna"], seeds=4, out=out)


def test_ratings_follow_payoffs_random_below_concession(split: list[MatchRow]) -> None:
    assert all(r["payoffs"] == [0.0, 0.0] for r in split if "random" in r["agents"])  # random never agrees
    ratings = ratings_with_intervals(paired_comparisons(split), samples=30)
    assert ratings["random"]["rating"] < ratings["concession"]["rating"]
    assert ratings["random"]["high"] < ratings["concession"]["low"]  # and the intervals say so
    for rating in ratings.values():
        assert rating["low"] <= rating["rating"] <= rating["high"]
    # A no-deal is a draw only where both agents earned the same from that position: against random
    # both get 0 (a draw); against concession or batna, concession earns 45 or 55 where random earned 0.
    scores = [s for a, b, s in paired_comparisons(split) if (a, b) == ("concession", "random")]
    assert sorted(set(scores)) == [0.5, 1.0] and scores.count(1.0) == 8


def test_the_paired_test_finds_a_real_difference_and_none_between_an_agent_and_itself(split: list[MatchRow]) -> None:
    tests = {(t["agent_a"], t["agent_b"]): t for t in paired_tests(split)}
    strong = tests[("concession", "random")]
    assert strong["mean_difference"] > 0 and strong["b_better"] == 0 and strong["p_holm"] < 0.05
    assert strong["p_value"] <= strong["p_holm"]
    # "twin" plays exactly what concession played (renamed rows), wherever concession is not also seated.
    twin: list[MatchRow] = [
        {**r, "agents": ["twin" if a == "concession" else a for a in r["agents"]]}
        for r in split
        if r["agents"].count("concession") == 1
    ]
    mirrored = paired_tests([*split, *twin])
    itself = next(t for t in mirrored if {t["agent_a"], t["agent_b"]} == {"concession", "twin"})
    assert itself["positions"] > 0 and itself["mean_difference"] == 0.0 and itself["p_holm"] == 1.0
    noise = np.random.default_rng(1).normal(50.0, 5.0, size=(2, 20))  # two draws of one distribution
    rows: list[MatchRow] = [
        {"key": f"x|{s}", "game": "x", "seed": s, "agents": [name, "field"], "payoffs": [float(v), 0.0]}
        for name, draws in zip(("a", "b"), noise, strict=True)
        for s, v in enumerate(draws)
    ]
    (same,) = paired_tests(rows)  # only a and b played the same positions
    assert (same["agent_a"], same["agent_b"], same["positions"]) == ("a", "b", 20) and same["p_holm"] > 0.05


def test_holm_by_hand() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.2, 0.9]) == pytest.approx([0.4, 0.9])  # the largest p is multiplied by 1
    assert holm([0.6, 0.7]) == pytest.approx([1.0, 1.0])  # capped at 1, kept increasing


@pytest.mark.parametrize(
    ("value", "unit", "written"),
    [
        (32.400000000000006, Unit.AMOUNT, "32.40"),
        (38365.07324999999, Unit.AMOUNT, "38,365"),
        (Estimate(36.25, 25.0, 45.3125), Unit.AMOUNT, "36.25 [25.00, 45.31]"),
        (Estimate(0.75, 0.5, 0.9375), Unit.SHARE, "75.0% [50.0%, 93.8%]"),
        (Estimate(3.0, None, None), Unit.AMOUNT, "3.00"),
        (Estimate(1584.0, 1546.2, 1639.2), Unit.RATING, "1,584 [1,546, 1,639]"),
        (0.008995, Unit.P_VALUE, "0.009"),
        (0.0001, Unit.P_VALUE, "<0.001"),
    ],
)
def test_numbers_without_float_artefacts(value: Estimate | float, unit: Unit, written: str) -> None:
    assert cell(value, unit) == written


def test_figures_are_print_wide_and_their_legends_cover_no_data(
    tmp_path: Path, split: list[MatchRow], car: list[MatchRow]
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    random_offers: MatchRow = {**car[0], "offers": [[0, 1, 3.3], [1, 1, -0.9]]}  # a random agent's wild offers
    for name, figure in [
        ("outcomes", outcome_figure("split_100", split, Registry())),
        ("concession", concession_figure("company_car", [*car, random_offers])),
    ]:
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
        (legend,) = figure.legends
        box = legend.get_window_extent(renderer)
        axes = figure.axes[0]
        assert not box.overlaps(axes.get_window_extent(renderer))  # beside the axes, so over no point
        offsets = [np.asarray(c.get_offsets(), dtype=float) for c in axes.collections]
        points = np.vstack([o for o in offsets if o.size] + [np.asarray(line.get_xydata()) for line in axes.lines])
        shown = axes.transData.transform(points)
        assert not any(box.contains(x, y) for x, y in shown)
        if name == "concession":
            assert axes.get_ylim() == (-0.05, 1.05)
            heights = np.concatenate([np.asarray(line.get_ydata(), dtype=float) for line in axes.lines])
            assert heights.size and ((heights >= 0.0) & (heights <= 1.0)).all()  # 3.3 and −0.9 count as 1 and 0
        path = tmp_path / f"{name}.png"
        save(figure, path)
        assert png_width(path) >= 1200 and DPI >= 150


def test_report_of_3_agents_2_games_10_seeds_has_intervals_and_pairwise_tests(tmp_path: Path) -> None:
    agents = ["concession", "batna", "random"]
    rows = run_tournament(["split_100", "company_car"], agents, seeds=10, swap_roles=True, out=tmp_path)
    assert len(rows) == 2 * 9 * 10
    written = write_report(tmp_path, samples=30)
    markdown = (tmp_path / "report.md").read_text()
    outcomes = markdown.split("## Outcomes per game and agent", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in outcomes.splitlines() if line.startswith(("| split_100 |", "| company_car |"))]
    assert len(lines) == 2 * 3 and all(line.count(" [") >= 5 for line in lines)  # agreement … Nash welfare
    assert "| split_100 | random | 60 | 20.0% [" in outcomes  # 60 seats: 10 seeds × (4 against others + 2 itself)
    pairwise = markdown.split("## Pairwise comparisons", 1)[1].split("\n## ", 1)[0]
    tests = [line for line in pairwise.splitlines() if line.startswith(("| split_100 |", "| company_car |"))]
    assert len(tests) == 2 * 3  # every pair of agents on every game
    assert "| split_100 | concession | random | 60 |" in pairwise and "| yes |" in pairwise
    ratings = json.loads((tmp_path / "analysis.json").read_text())["ratings"]["split_100"]["bradley_terry"]
    assert ratings["random"]["high"] < min(ratings["concession"]["low"], ratings["batna"]["low"])
    assert "32.400000000000006" not in markdown and "e+0" not in markdown
    for path in written:
        if path.suffix == ".png":
            assert png_width(path) >= 1200, path.name
    analysis = analyze(rows, samples=5, resamples=200)
    assert {t["game"] for t in analysis["pairwise"]} == {"split_100", "company_car"}
