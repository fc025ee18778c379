"""Reusable pure functions for negotiation games and scripted negotiators (the documented API).

Where an example in the source document disagrees with these formulas, the formulas win;
see docs/seed-contradictions.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def calculate_percentage_difference(a: float, b: float) -> float:
    """|a - b| / b * 100; 0.0 when b is 0."""
    if b == 0:
        return 0.0
    return abs(a - b) / abs(b) * 100.0


def is_offer_above_batna(offer: float, batna: float) -> bool:
    """Whether the offer is at least the BATNA (offer >= batna)."""
    return offer >= batna


def is_offer_below_batna(offer: float, batna: float) -> bool:
    """Whether the offer is at most the BATNA (offer <= batna)."""
    return offer <= batna


def suggest_next_offer(current_offer: float, batna: float, last_rejected: bool, step: float = 0.05) -> float:
    """After a rejection, move `step` of the gap from the current offer toward the BATNA; else stay."""
    if not last_rejected:
        return current_offer
    return current_offer + (batna - current_offer) * step


def check_constraints(
    offer: Mapping[str, object], constraints: Mapping[str, Callable[[Mapping[str, Any]], bool]]
) -> bool:
    """True if every constraint function accepts the offer; a constraint that raises counts as failed."""
    for check in constraints.values():
        try:
            if not check(offer):
                return False
        except Exception:
            return False
    return True


def calculate_utility(
    offer: Mapping[str, object], weights: Mapping[str, float], points: Mapping[str, Mapping[Any, float]]
) -> float:
    """Σ weight[issue] × points[issue][option]; an issue missing anywhere contributes 0."""
    total = 0.0
    for issue, option in offer.items():
        if issue in weights and issue in points:
            total += weights[issue] * points[issue].get(option, 0.0)
    return total
