"""Outcome metrics, ratings and the meta-game against hand-computed numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from negotiation_platform.research.analysis import (
    aggregate,
    analyze,
    bradley_terry,
    elo,
    match_metrics,
    metagame,
    pairwise_outcomes,
    ratings_with_intervals,
    symmetric_nash,
    zero_sum_nash,
)
from negotiation_platform.research.analysis.metrics import distance_to_frontier, envy, nash_welfare
from negotiation_platform.research.analysis.outcomes import outcome_space


def row(game: str, agents: list[str], payoffs: list[float], batnas: list[float], **extra: object) -> dict[str, object]:
    return {
        "game": game,
        "config": None,
        "seed": 0,
        "agents": agents,
        "roles": None,
        "agreement": True,
        "rounds": 2,
        "payoffs": payoffs,
        "batnas": batnas,
        "surplus": [p - b for p, b in zip(payoffs, batnas, strict=True)],
        **extra,
    }


def test_welfare_formulas() -> None:
    metrics = match_metrics(row("company_car", ["a", "b"], [5.0, 3.0], [1.0, 1.0]))
    assert metrics["utilitarian_welfare"] == 8.0
    assert metrics["nash_welfare"] == 8.0  # (5 − 1)(3 − 1)
    assert metrics["worst_off"] == 3.0
    assert metrics["rounds_to_agreement"] == 2
    assert metrics["pareto_distance"] is None  # company_car's price space is continuous: not enumerated
    assert metrics["ef"] is None
    assert nash_welfare([2.0, -1.0]) == 0.0
    assert nash_welfare([2.0, 0.0]) == 0.0


def test_frontier_distance_by_hand() -> None:
    assert distance_to_frontier(np.array([0.0, 0.0]), np.array([[0.0, 10.0], [10.0, 0.0]])) == 10.0


def test_split_100_distances_and_envy() -> None:
    space = outcome_space("split_100", None)
    assert space is not None
    on_frontier = match_metrics(row("split_100", ["a", "b"], [60.0, 40.0], [0.0, 0.0]), space)
    assert on_frontier["pareto_distance"] == pytest.approx(0.0)
    assert on_frontier["nash_distance"] == pytest.approx(math.sqrt(200))  # Nash point (50, 50)
    assert (on_frontier["ef"], on_frontier["ef1"]) == (False, False)
    no_deal = match_metrics({**row("split_100", ["a", "b"], [0.0, 0.0], [0.0, 0.0]), "agreement": False}, space)
    assert no_deal["pareto_distance"] == pytest.approx(math.sqrt(5000))  # to (50, 50)
    assert no_deal["rounds_to_agreement"] is None
    # 51/49: removing one coin from the larger bundle still leaves 50 > 49, so not even EF1.
    assert match_metrics(row("split_100", ["a", "b"], [51.0, 49.0], [0.0, 0.0]))["ef1"] is False
    odd = row("split_100", ["a", "b"], [51.0, 50.0], [0.0, 0.0], config={"total": 101})
    assert (match_metrics(odd)["ef"], match_metrics(odd)["ef1"]) == (False, True)
    even = match_metrics(row("split_100", ["a", "b"], [50.0, 50.0], [0.0, 0.0]), space)
    assert (even["ef"], even["ef1"]) == (True, True)


def test_roles_put_seats_in_role_order() -> None:
    space = outcome_space("integrative_negotiation", None)
    assert space is not None
    # (IT, Marketing) = (45, 45) is the Nash point for BATNAs (27, 19); seat 0 drew Marketing.
    metrics = match_metrics(row("integrative_negotiation", ["a", "b"], [45.0, 45.0], [19.0, 27.0], roles=[1, 0]), space)
    assert metrics["nash_distance"] == pytest.approx(0.0)
    assert metrics["pareto_distance"] == pytest.approx(0.0)


def test_envy_definitions() -> None:
    assert envy([[3, 4], [1, 2]], [1, 1]) == (False, True)
    assert envy([[3, 5], [1, 2]], [1, 1]) == (False, False)


def test_aggregate_per_agent_and_game() -> None:
    rows = [
        row("split_100", ["a", "b"], [60.0, 40.0], [0.0, 0.0]),
        {**row("split_100", ["b", "a"], [0.0, 0.0], [0.0, 0.0]), "agreement": False},
    ]
    table = {(r["game"], r["agent"]): r for r in aggregate([{**r, "metrics": match_metrics(r)} for r in rows])}
    assert table[("split_100", "a")]["agreement_rate"] == 0.5
    assert table[("split_100", "a")]["utility"] == 30.0
    assert table[("split_100", "b")]["rounds_to_agreement"] == 2.0
    assert table[("split_100", "a")]["ef_rate"] == 0.0


def test_elo_by_hand() -> None:
    with pytest.warns(DeprecationWarning, match="use bradley_terry"):
        assert elo([("a", "b", 1.0)]) == {"a": 1508.0, "b": 1492.0}
    with pytest.warns(DeprecationWarning):
        second = elo([("a", "b", 1.0), ("a", "b", 1.0)])
    expected = 1 / (1 + 10 ** (-16 / 400))
    assert second["a"] == pytest.approx(1508 + 16 * (1 - expected))


def test_bradley_terry_three_to_one() -> None:
    strengths = bradley_terry([("a", "b", 1.0)] * 3 + [("a", "b", 0.0)])
    assert strengths["a"] - strengths["b"] == pytest.approx(400 * math.log10(3))
    assert strengths["a"] + strengths["b"] == pytest.approx(3000)


def test_bradley_terry_transitive_order_and_intervals() -> None:
    comparisons = [("a", "b", 1.0)] * 6 + [("b", "c", 1.0)] * 6 + [("a", "c", 1.0)] * 6 + [("c", "a", 1.0)]
    strengths = bradley_terry(comparisons)
    assert strengths["a"] > strengths["b"] > strengths["c"]
    intervals = ratings_with_intervals(comparisons, samples=50)
    for agent in "abc":
        assert intervals[agent]["low"] <= intervals[agent]["rating"] <= intervals[agent]["high"]
    assert intervals["b"]["low"] < intervals["b"]["high"]


def test_pairwise_outcomes_by_surplus_and_skip_self_play() -> None:
    rows = [row("x", ["a", "b"], [2.0, 1.0], [0.0, 0.0]), row("x", ["a", "a"], [1.0, 2.0], [0.0, 0.0])]
    with pytest.warns(DeprecationWarning, match="use paired_comparisons"):
        assert pairwise_outcomes(rows) == [("a", "b", 1.0)]
        assert pairwise_outcomes([row("x", ["a", "b"], [1.0, 1.0], [0.0, 0.0])]) == [("a", "b", 0.5)]


def test_matching_pennies() -> None:
    mixture, value = zero_sum_nash(np.array([[1.0, -1.0], [-1.0, 1.0]]))
    assert mixture == pytest.approx([0.5, 0.5])
    assert value == pytest.approx(0.0)


def test_dominance() -> None:
    mixture, value = zero_sum_nash(np.array([[3.0, 2.0], [1.0, 0.0]]))
    assert mixture == pytest.approx([1.0, 0.0])
    assert value == pytest.approx(2.0)
    assert symmetric_nash(np.array([[1.0, 2.0], [0.0, 1.0]])) == pytest.approx([1.0, 0.0])


def test_rock_paper_scissors_meta_game() -> None:
    beats = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    assert symmetric_nash(beats) == pytest.approx([1 / 3] * 3, abs=1e-6)


def test_metagame_means_over_seats() -> None:
    rows = [
        row("x", ["a", "b"], [4.0, 1.0], [0.0, 0.0]),
        row("x", ["b", "a"], [3.0, 2.0], [0.0, 0.0]),
        row("x", ["a", "a"], [5.0, 7.0], [0.0, 0.0]),
    ]
    agents, matrix = metagame(rows)
    assert agents == ["a", "b"]
    assert (matrix[0, 0], matrix[0, 1]) == (6.0, 3.0)  # a vs a: (5 + 7) / 2; a vs b: (4 + 2) / 2
    assert matrix[1, 0] == 2.0  # b vs a: (1 + 3) / 2
    assert math.isnan(matrix[1, 1])


def test_analyze_puts_it_together() -> None:
    rows = [
        row("split_100", ["a", "b"], [60.0, 40.0], [0.0, 0.0]),
        row("split_100", ["b", "a"], [50.0, 50.0], [0.0, 0.0]),
    ]
    report = analyze(rows, samples=20)
    assert report["matches"][0]["metrics"]["pareto_distance"] == pytest.approx(0.0)
    assert set(report["ratings"]) == {"split_100", "overall"}
    assert report["metagame"]["split_100"]["agents"] == ["a", "b"]
    assert sum(report["metagame"]["split_100"]["nash"]) == pytest.approx(1.0)
