"""Agents compared as duplicate bridge compares pairs: the same seed, seat and field, played by each.

A *position* is (game, config, seed, seat, the agents in the other seats). Two agents that both
played a position met the same deal, the same role and the same opponents, so the difference of
their payoffs there is the difference the agents make, free of seat and opponent effects. These
paired payoffs feed both the pairwise test table and the ratings (`ratings.paired_comparisons`).

The test is a paired permutation test (sign flips of the differences, `scipy.stats.permutation_test`)
of the mean difference: it tests the very number the table shows, is exact while 2^n sign flips fit
in the resamples, and takes the many zero differences of no-deals as they are (Wilcoxon's signed-rank
test drops or splits zeros and its normal approximation suffers from ties). p-values are corrected
with Holm's step-down method over every comparison of the table: it bounds the chance of any false
"significant" (family-wise error) under any dependence between tests, which matters because every
comparison shares matches with others; Benjamini–Hochberg (`scipy.stats.false_discovery_control`)
controls only the expected share of false discoveries and assumes positive dependence.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from negotiation_platform.research.analysis.intervals import RESAMPLES, mean_interval
from negotiation_platform.research.rows import MatchRow, PairedTest

Position = tuple[str, str, int, int, tuple[str, ...]]
"""(game, config as JSON, seed, seat, the agents in the seats, this seat written as "")."""

PERMUTATIONS = 9999
"""Sign flips drawn per test when there are more than that many (else all, and the test is exact):
the smallest p-value a test can give is then 1/10,000."""
ALPHA = 0.05
"""The family-wise error rate the table's "significant" column holds to (after Holm)."""


def position_payoffs(rows: Sequence[MatchRow]) -> dict[Position, dict[str, float]]:
    """Each position's payoff per agent that played it."""
    table: dict[Position, dict[str, float]] = defaultdict(dict)
    for row in rows:
        agents = row["agents"]
        config = json.dumps(row.get("config"), sort_keys=True)
        for seat, agent in enumerate(agents):
            field = (*agents[:seat], "", *agents[seat + 1 :])
            table[(row["game"], config, row.get("seed", 0), seat, field)][agent] = row["payoffs"][seat]
    return table


def paired_payoffs(rows: Sequence[MatchRow]) -> dict[tuple[str, str, str], list[tuple[float, float]]]:
    """{(game, a, b): [(a's payoff, b's payoff) per position both played]}, a < b, sorted."""
    pairs: dict[tuple[str, str, str], list[tuple[float, float]]] = defaultdict(list)
    for position, payoffs in sorted(position_payoffs(rows).items()):
        for a, b in itertools.combinations(sorted(payoffs), 2):
            pairs[(position[0], a, b)].append((payoffs[a], payoffs[b]))
    return dict(sorted(pairs.items()))


def paired_tests(rows: Sequence[MatchRow], *, resamples: int = RESAMPLES, seed: int = 0) -> list[PairedTest]:
    """Every pair of agents on every game: mean payoff difference with its interval (`resamples`), the
    sign-flip permutation test's two-sided p-value and the Holm-corrected one (over the whole list)."""
    tests: list[PairedTest] = []
    for (game, a, b), pairs in paired_payoffs(rows).items():
        differences = np.array([x - y for x, y in pairs])
        interval = mean_interval(differences.tolist(), resamples=resamples, seed=seed)
        assert interval is not None  # a listed pair played at least one position
        tests.append(
            {
                "game": game,
                "agent_a": a,
                "agent_b": b,
                "positions": len(pairs),
                "mean_difference": interval["mean"],
                "low": interval["low"],
                "high": interval["high"],
                "a_better": int((differences > 0).sum()),
                "ties": int((differences == 0).sum()),
                "b_better": int((differences < 0).sum()),
                "p_value": sign_flip_p(differences, seed=seed),
                "p_holm": 1.0,
            }
        )
    for test, corrected in zip(tests, holm([t["p_value"] for t in tests]), strict=True):
        test["p_holm"] = corrected
    return tests


def sign_flip_p(differences: np.ndarray, *, resamples: int = PERMUTATIONS, seed: int = 0) -> float:
    """Two-sided p-value of "the mean difference is 0" by flipping the signs of paired differences."""
    if not differences.any():  # every flip gives 0: nothing tells the two apart
        return 1.0
    from scipy.stats import permutation_test  # type: ignore[import-untyped]

    result = permutation_test(
        (differences,),
        np.mean,
        permutation_type="samples",
        n_resamples=resamples,
        vectorized=True,
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return float(result.pvalue)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values: the k-th smallest times (m − k + 1), kept increasing, at most 1."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, np.maximum.accumulate((len(p) - np.arange(len(p))) * p[order]))
    adjusted = np.empty_like(p)
    adjusted[order] = scaled
    return [float(value) for value in adjusted]
