"""Ratings from pairwise results: Elo and Bradley–Terry, with bootstrap confidence intervals.

A comparison is (agent_a, agent_b, score_a) with score_a 1 (a won), 0 (b won) or ½ (a tie). In a
match every pair of seats held by different agents is one comparison, won by the seat with the
larger surplus over its BATNA (equal surplus, a tie), so ratings are comparable across games.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from negotiation_platform.research.rows import MatchRow

Comparison = tuple[str, str, float]


def pairwise_outcomes(rows: Sequence[MatchRow]) -> list[Comparison]:
    """Every pair of seats held by different agents in every row, scored by surplus."""
    comparisons: list[Comparison] = []
    for row in rows:
        agents, surplus = row["agents"], row["surplus"]
        for i in range(len(agents)):
            for j in range(i + 1, len(agents)):
                if agents[i] != agents[j]:
                    score = 0.5 if surplus[i] == surplus[j] else float(surplus[i] > surplus[j])
                    comparisons.append((agents[i], agents[j], score))
    return comparisons


def elo(comparisons: list[Comparison], k: float = 16.0, initial: float = 1500.0) -> dict[str, float]:
    """Sequential Elo: E_a = 1 / (1 + 10^((R_b − R_a)/400)); R_a += k (S_a − E_a), R_b −= k (S_a − E_a)."""
    ratings: dict[str, float] = {}
    for a, b, score in comparisons:
        ra, rb = ratings.setdefault(a, initial), ratings.setdefault(b, initial)
        expected = 1.0 / (1.0 + 10 ** ((rb - ra) / 400.0))
        ratings[a], ratings[b] = ra + k * (score - expected), rb - k * (score - expected)
    return ratings


def bradley_terry(
    comparisons: list[Comparison], *, prior: float = 0.0, iterations: int = 1000, tolerance: float = 1e-10
) -> dict[str, float]:
    """Bradley–Terry strengths by maximum likelihood, P(a beats b) = p_a / (p_a + p_b), on the Elo scale.

    Minorisation–maximisation (Hunter 2004): p_i ← W_i / Σ_j n_ij / (p_i + p_j), where W_i counts
    i's wins (a tie is half a win for each) and n_ij the comparisons of i and j; then normalised
    to geometric mean 1. Returned as 400·log10(p_i) + 1500. `prior` adds that many virtual ties
    between every pair, which keeps an agent that never won finite (its MLE is −∞).
    """
    agents = sorted({a for a, _, _ in comparisons} | {b for _, b, _ in comparisons})
    if not agents:  # no match was decided between two agents: nobody to rate
        return {}
    index = {agent: i for i, agent in enumerate(agents)}
    n = len(agents)
    wins = np.zeros(n)
    games = np.full((n, n), 2 * prior) - np.diag(np.full(n, 2 * prior))
    wins += prior * (n - 1)
    for a, b, score in comparisons:
        i, j = index[a], index[b]
        wins[i] += score
        wins[j] += 1.0 - score
        games[i, j] += 1
        games[j, i] += 1
    strength = np.ones(n)
    for _ in range(iterations):
        denominator = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = np.where(denominator > 0, wins / np.where(denominator > 0, denominator, 1.0), strength)
        positive = updated[updated > 0]
        updated /= math.exp(float(np.mean(np.log(positive)))) if positive.size else 1.0
        done = float(np.max(np.abs(updated - strength))) < tolerance
        strength = updated
        if done:
            break
    return {
        agent: (1500.0 + 400.0 * math.log10(strength[i])) if strength[i] > 0 else -math.inf
        for agent, i in index.items()
    }


def ratings_with_intervals(
    comparisons: list[Comparison],
    method: str = "bradley_terry",
    *,
    samples: int = 200,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """{agent: {rating, low, high}}: the rating and a percentile bootstrap interval over resampled comparisons.

    Bradley–Terry runs with prior=0.5 here so that a resample in which an agent never wins stays finite.
    """
    rate: Callable[[list[Comparison]], dict[str, float]] = (
        elo if method == "elo" else (lambda c: bradley_terry(c, prior=0.5))
    )
    point = rate(comparisons)
    rng = np.random.default_rng(seed)
    draws: dict[str, list[float]] = {agent: [] for agent in point}
    for _ in range(samples if comparisons else 0):
        resampled = [comparisons[i] for i in rng.integers(0, len(comparisons), len(comparisons))]
        for agent, value in rate(resampled).items():
            draws[agent].append(value)
    tail = (1.0 - confidence) / 2 * 100
    return {
        agent: {
            "rating": value,
            "low": float(np.percentile(draws[agent], tail)) if draws[agent] else value,
            "high": float(np.percentile(draws[agent], 100 - tail)) if draws[agent] else value,
        }
        for agent, value in sorted(point.items())
    }
