"""Per-match outcome metrics and their aggregation per agent and game.

A row is one match as the tournament writes it: `agents`, `payoffs`, `batnas` and `surplus` are
lists in seat order, `roles` the role index each seat drew (None: seat i plays role i).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Final

import numpy as np

from negotiation_platform.registry import Registry
from negotiation_platform.research.analysis.outcomes import OutcomeSpace, outcome_space
from negotiation_platform.research.rows import AgentMeans, MatchRow, Metrics, Seating

SPLIT_GOODS_GAMES = {"split_100"}
"""Games whose agreement splits goods that both sides value alike, so EF/EF1 apply.

split_100 splits `total` identical coins; every seat values each coin the same (times the
discount), so seat i's value of seat j's bundle is seat j's payoff. Other games do not split
goods (company_car sets a price, integrative_negotiation and resource_allocation choose one joint
plan, the auction sells one item) or their results do not expose bundles and valuations (the coin
games, AdaSociety): EF/EF1 are None there.
"""


def utilitarian_welfare(payoffs: list[float]) -> float:
    """W_u = Σ_i u_i."""
    return float(sum(payoffs))


def nash_welfare(surplus: list[float]) -> float:
    """W_N = Π_i (u_i − batna_i), defined as 0 when any seat's surplus is ≤ 0 (no one gains from a bad deal)."""
    return float(math.prod(surplus)) if all(s > 0 for s in surplus) else 0.0


def worst_off(payoffs: list[float]) -> float:
    """Egalitarian welfare: min_i u_i."""
    return float(min(payoffs))


def distance_to_frontier(point: np.ndarray, frontier: np.ndarray) -> float:
    """min over Pareto-optimal outcomes f of ‖f − u‖₂ (0 when the outcome is on the frontier)."""
    return float(np.min(np.linalg.norm(frontier - point[None, :], axis=1)))


def envy(values: list[list[float]], largest_item: list[float]) -> tuple[bool, bool]:
    """(EF, EF1) from `V[i][j]`, seat i's value of seat j's bundle, and the largest item value in each bundle.

    EF:  `V[i][i] ≥ V[i][j]` for all i, j.
    EF1: `V[i][i] ≥ V[i][j] − max_{g ∈ bundle j} v_i(g)` for all i, j (envy goes once one item is removed).
    """
    seats = range(len(values))
    ef = all(values[i][i] >= values[i][j] for i in seats for j in seats)
    ef1 = all(values[i][i] >= values[i][j] - largest_item[j] for i in seats for j in seats)
    return ef, ef1


def split_envy(row: MatchRow) -> tuple[bool, bool] | None:
    """EF/EF1 of a split of identical coins: values are the payoffs, one coin is worth Σu / total."""
    if row["game"] not in SPLIT_GOODS_GAMES or not row["agreement"]:
        return None
    payoffs = row["payoffs"]
    total = (row.get("config") or {}).get("total", 100)
    coin = sum(payoffs) / float(total if isinstance(total, int | float) else 100)
    return envy([list(payoffs) for _ in payoffs], [coin if p > 0 else 0.0 for p in payoffs])


def role_point(row: Seating, values: list[float]) -> np.ndarray:
    """Seat-ordered values rearranged into role order, to compare with an outcome space."""
    roles = row.get("roles") or list(range(len(values)))
    point = np.zeros(len(values))
    for seat, role in enumerate(roles):
        point[role] = values[seat]
    return point


def match_metrics(row: MatchRow, space: OutcomeSpace | None = None) -> Metrics:
    """Every metric of one match; the frontier and Nash distances need the game's exact outcome space."""
    payoffs, surplus = list(row["payoffs"]), list(row["surplus"])
    metrics: Metrics = {
        "agreement": bool(row["agreement"]),
        "rounds_to_agreement": row["rounds"] if row["agreement"] else None,
        "utilitarian_welfare": utilitarian_welfare(payoffs),
        "nash_welfare": nash_welfare(surplus),
        "worst_off": worst_off(payoffs),
        "pareto_distance": None,
        "nash_distance": None,
        "ef": None,
        "ef1": None,
    }
    if space is not None and len(payoffs) == 2:
        point = role_point(row, payoffs)
        metrics["pareto_distance"] = distance_to_frontier(point, space.frontier)
        nash = space.nash_point(tuple(role_point(row, list(row["batnas"]))))  # type: ignore[arg-type]
        metrics["nash_distance"] = None if nash is None else float(np.linalg.norm(nash - point))
    fairness = split_envy(row)
    if fairness is not None:
        metrics["ef"], metrics["ef1"] = fairness
    return metrics


def with_metrics(rows: Sequence[MatchRow], registry: Registry | None = None) -> list[MatchRow]:
    """Each row with its `metrics`, enumerating each (game, config) outcome space once."""
    registry = registry or Registry()
    return [
        {**row, "metrics": match_metrics(row, outcome_space(row["game"], row.get("config"), registry))} for row in rows
    ]


def aggregate(rows: Sequence[MatchRow]) -> list[AgentMeans]:
    """Means per (game, agent) over every seat the agent held, from rows that carry `metrics`.

    agreement_rate = agreements / matches; rounds_to_agreement is averaged over agreed matches only;
    match-level metrics (welfare, distances) count once per seat the agent held.
    """
    table: list[AgentMeans] = []
    for (game, agent), values in seat_values(rows).items():
        means: AgentMeans = {"game": game, "agent": agent, "matches": len(values["agreement_rate"])}
        table.append(means | {name: _mean(column) for name, column in values.items()})
    return table


def seat_values(rows: Sequence[MatchRow]) -> dict[tuple[str, str], dict[str, list[float | None]]]:
    """Per (game, agent), sorted, each metric's value for every seat the agent held (None: does not apply).

    What `aggregate` averages and `analysis.intervals` bootstraps: one value per seat, so both agree."""
    groups: dict[tuple[str, str], list[tuple[MatchRow, int]]] = defaultdict(list)
    for row in rows:
        for seat, agent in enumerate(row["agents"]):
            groups[(row["game"], agent)].append((row, seat))
    return {
        key: {
            "agreement_rate": [float(r["agreement"]) for r, _ in seats],
            "rounds_to_agreement": [_float(r["metrics"]["rounds_to_agreement"]) for r, _ in seats],
            "utility": [r["payoffs"][s] for r, s in seats],
            "surplus": [r["surplus"][s] for r, s in seats],
            **{name: [_float(r["metrics"][name]) for r, _ in seats] for name in WELFARE},
            "ef_rate": [_float(r["metrics"]["ef"]) for r, _ in seats],
            "ef1_rate": [_float(r["metrics"]["ef1"]) for r, _ in seats],
        }
        for key, seats in sorted(groups.items())
    }


WELFARE: Final = ("utilitarian_welfare", "nash_welfare", "worst_off", "pareto_distance", "nash_distance")
"""The match-level metrics `aggregate` averages over the seats an agent held."""


def _float(value: float | bool | None) -> float | None:
    return None if value is None else float(value)


def _mean(values: Sequence[float | None]) -> float | None:
    """Mean of the values that are not None; None when there are none."""
    known = [float(v) for v in values if v is not None]
    return sum(known) / len(known) if known else None
