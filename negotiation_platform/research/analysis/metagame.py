"""The empirical meta-game (agent × agent mean payoff) and its Nash mixture, as in empirical game theory.

`M[a][b]` is agent a's mean payoff over the seats it held in matches with agent b in another seat.
The meta-game's equilibrium is the Nash-averaging mixture (Balduzzi et al. 2018): the maximin
strategy of the symmetric zero-sum game A = M − Mᵀ (what a beats b by), found by a small LP
with scipy (installed with the `jax` or the `report` extra).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Literal

import numpy as np

from negotiation_platform.research.rows import MatchRow


def metagame(
    rows: Sequence[MatchRow], value: Literal["payoffs", "batnas", "surplus"] = "payoffs"
) -> tuple[list[str], np.ndarray]:
    """(agents, M) with `M[a, b]` = mean of `row[value][seat of a]` over matches where b held another seat.

    Self-play fills the diagonal. Pairs that never met are NaN.
    """
    totals = metagame_values(rows, value)
    names = sorted({a for a, _ in totals} | {b for _, b in totals})
    matrix = np.full((len(names), len(names)), np.nan)
    for (a, b), values in totals.items():
        matrix[names.index(a), names.index(b)] = float(np.mean(values))
    return names, matrix


def metagame_values(
    rows: Sequence[MatchRow], value: Literal["payoffs", "batnas", "surplus"] = "payoffs"
) -> dict[tuple[str, str], list[float]]:
    """{(a, b): a's `row[value]` in every seat it held against b}: what `metagame` averages."""
    totals: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in rows:
        agents = row["agents"]
        for i, a in enumerate(agents):
            for j, b in enumerate(agents):
                if i != j:
                    totals[(a, b)].append(float(row[value][i]))
    return totals


def zero_sum_nash(payoff: np.ndarray) -> tuple[np.ndarray, float]:
    """The row player's maximin mixture x and the value v of the zero-sum game with row payoffs P.

    LP: maximise v subject to (xᵀP)_j ≥ v for every column j, Σx = 1, x ≥ 0 (scipy's HiGHS).
    """
    from scipy.optimize import linprog  # type: ignore[import-untyped]

    rows, columns = payoff.shape
    objective = np.zeros(rows + 1)
    objective[-1] = -1.0
    upper = np.hstack([-payoff.T, np.ones((columns, 1))])
    equality = np.hstack([np.ones((1, rows)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * rows + [(None, None)]
    solved = linprog(objective, A_ub=upper, b_ub=np.zeros(columns), A_eq=equality, b_eq=[1.0], bounds=bounds)
    mixture = np.clip(solved.x[:rows], 0.0, None)
    return mixture / mixture.sum(), float(solved.x[-1])


def symmetric_nash(matrix: np.ndarray) -> np.ndarray:
    """The meta-game's Nash mixture: maximin of A = M − Mᵀ (value 0); unmet pairs count as even."""
    filled = np.nan_to_num(matrix, nan=0.0)
    advantage = filled - filled.T
    advantage[np.isnan(matrix) | np.isnan(matrix.T)] = 0.0
    mixture, _ = zero_sum_nash(advantage)
    return mixture
