"""Bradley–Terry ratings from paired payoffs, with bootstrap intervals (scipy's optimiser and bootstrap).

A comparison is (agent_a, agent_b, score_a): score_a 1 when a earned more than b from the same
position (same game, seed, seat and opponents: `pairwise.paired_payoffs`), 0 when less, ½ when
the same. So a no-deal is a draw only where both agents got the same payoff from that position:
an agent that never agrees (0 everywhere) loses to one that earns 45 where it earned 0. (Rating
the two seats of one match against each other instead, as `pairwise_outcomes` did, scored
`random`'s 0–0 no-deals as draws against everyone and put it above `concession`, whose only
"losses" were the first seat's smaller share.)

Ratings are on the Elo scale: P(a beats b) = 1 / (1 + 10^((R_b − R_a)/400)), centred on 1,500.
Sequential Elo is gone from the reports: its value depends on the order comparisons are fed in,
and a tournament's comparisons have no order.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from negotiation_platform.research.analysis.pairwise import paired_payoffs
from negotiation_platform.research.rows import MatchRow

Comparison = tuple[str, str, float]
SCALE = 400.0 / math.log(10.0)
"""Natural-log strengths to Elo points."""
PRIOR = 0.5
"""Virtual ties between every pair of agents in `ratings_with_intervals`: an agent that never wins
(its maximum-likelihood rating is −∞) gets a finite rating below the others."""


def paired_comparisons(rows: Sequence[MatchRow]) -> list[Comparison]:
    """One comparison per pair of agents per position both played, scored by their payoffs there."""
    return [
        (a, b, 0.5 if x == y else float(x > y)) for (_, a, b), pairs in paired_payoffs(rows).items() for x, y in pairs
    ]


def pairwise_outcomes(rows: Sequence[MatchRow]) -> list[Comparison]:
    """Deprecated: the seats of one match rated against each other by surplus (biased by seat; see
    the module's docstring). Use `paired_comparisons`; removed in the next release."""
    warnings.warn("pairwise_outcomes is deprecated: use paired_comparisons", DeprecationWarning, stacklevel=2)
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
    """Deprecated (its value depends on the comparisons' order): use `bradley_terry`; removed in the next release."""
    warnings.warn("elo is deprecated: use bradley_terry", DeprecationWarning, stacklevel=2)
    ratings: dict[str, float] = {}
    for a, b, score in comparisons:
        ra, rb = ratings.setdefault(a, initial), ratings.setdefault(b, initial)
        expected = 1.0 / (1.0 + 10 ** ((rb - ra) / 400.0))
        ratings[a], ratings[b] = ra + k * (score - expected), rb - k * (score - expected)
    return ratings


def bradley_terry(comparisons: Sequence[Comparison], *, prior: float = 0.0) -> dict[str, float]:
    """Bradley–Terry ratings by maximum likelihood (scipy's BFGS), on the Elo scale, mean 1,500.

    A tie counts half a win for each side; `prior` adds that many virtual ties between every pair,
    which keeps an agent that never won finite."""
    agents = sorted({a for a, _, _ in comparisons} | {b for _, b, _ in comparisons})
    if not agents:  # no comparison: nobody to rate
        return {}
    strengths = _fit(_wins(comparisons, agents, prior))
    return {agent: 1500.0 + SCALE * float(strengths[i]) for i, agent in enumerate(agents)}


def _wins(comparisons: Sequence[Comparison], agents: list[str], prior: float) -> np.ndarray:
    """wins[i, j]: what agent i scored against agent j, plus `prior` virtual ties between every pair."""
    index = {agent: i for i, agent in enumerate(agents)}
    wins = np.full((len(agents), len(agents)), prior / 2)
    np.fill_diagonal(wins, 0.0)
    for a, b, score in comparisons:
        wins[index[a], index[b]] += score
        wins[index[b], index[a]] += 1.0 - score
    return wins


def _fit(wins: np.ndarray) -> np.ndarray:
    """Natural-log strengths s maximising Σ wins[i, j]·log σ(s_i − s_j), centred on 0."""
    from scipy.optimize import minimize  # type: ignore[import-untyped]
    from scipy.special import expit, log_expit  # type: ignore[import-untyped]

    def loss(strengths: np.ndarray) -> tuple[float, np.ndarray]:
        gap = strengths[:, None] - strengths[None, :]
        residual = wins * expit(-gap)  # d/ds_i of wins[i, j]·log σ(s_i − s_j)
        gradient = residual.sum(axis=1) - residual.sum(axis=0)
        return -float((wins * log_expit(gap)).sum()), -gradient

    solved = minimize(loss, np.zeros(len(wins)), jac=True, method="BFGS", options={"gtol": 1e-8})
    strengths: np.ndarray = solved.x - solved.x.mean()
    return strengths


def ratings_with_intervals(
    comparisons: list[Comparison],
    method: str = "bradley_terry",
    *,
    samples: int = 200,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """{agent: {rating, low, high}}: Bradley–Terry (prior `PRIOR`) and its percentile bootstrap interval
    over resampled comparisons (`scipy.stats.bootstrap`, seeded). `method="elo"` is deprecated."""
    agents = sorted({a for a, _, _ in comparisons} | {b for _, b, _ in comparisons})
    if not agents:  # no two agents played the same position: nobody to rate
        return {}
    if method == "elo":
        warnings.warn("ratings by sequential Elo are deprecated: use bradley_terry", DeprecationWarning, stacklevel=2)

    def rate(chosen: Sequence[Comparison]) -> np.ndarray:
        if method == "elo":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                table = elo(list(chosen))
            return np.array([table.get(agent, 1500.0) for agent in agents])
        return 1500.0 + SCALE * _fit(_wins(chosen, agents, PRIOR))

    point = rate(comparisons)
    low, high = point, point
    if len(comparisons) >= 2 and samples >= 1:
        from scipy.stats import bootstrap  # type: ignore[import-untyped]

        interval = bootstrap(
            (np.arange(len(comparisons)),),
            lambda picked: rate([comparisons[i] for i in picked]),
            vectorized=False,
            n_resamples=samples,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        ).confidence_interval
        low, high = np.asarray(interval.low), np.asarray(interval.high)
    return {
        agent: {"rating": float(point[i]), "low": float(low[i]), "high": float(high[i])}
        for i, agent in enumerate(agents)
    }
