"""Bootstrap 95% intervals for means, so a reader can tell a difference between agents from noise.

Percentile intervals from `scipy.stats.bootstrap`, seeded (the same data give the same interval).
Percentile rather than BCa: tournament means are often of constant data (an agent that never
agrees scores 0 every match), where BCa's acceleration is 0/0 and scipy answers NaN, while the
percentile interval is the honest [0, 0]; and with a few dozen matches BCa's jackknife adds little.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from negotiation_platform.research.analysis.metrics import seat_values
from negotiation_platform.research.rows import Interval, MatchRow

CONFIDENCE = 0.95
RESAMPLES = 2000
"""Bootstrap resamples per interval: enough for stable 2.5% and 97.5% percentiles."""


def mean_interval(
    values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = 0, confidence: float = CONFIDENCE
) -> Interval | None:
    """The mean of `values` with its percentile bootstrap interval (None for no values)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return None
    mean = float(data.mean())
    if data.size < 2 or resamples < 1:
        return {"mean": mean, "low": None, "high": None}
    from scipy.stats import bootstrap  # type: ignore[import-untyped]

    result = bootstrap(
        (data,),
        np.mean,
        confidence_level=confidence,
        n_resamples=resamples,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return {"mean": mean, "low": float(result.confidence_interval.low), "high": float(result.confidence_interval.high)}


def agent_intervals(
    rows: Sequence[MatchRow], *, resamples: int = RESAMPLES, seed: int = 0
) -> dict[str, dict[str, dict[str, Interval]]]:
    """{game: {agent: {metric: Interval}}} for every mean of `metrics.aggregate`, over the same seats
    (a metric that applies to none of an agent's seats has no entry)."""
    table: dict[str, dict[str, dict[str, Interval]]] = {}
    for (game, agent), metrics in seat_values(rows).items():
        known = {name: [v for v in values if v is not None] for name, values in metrics.items()}
        table.setdefault(game, {})[agent] = {
            name: interval
            for name, values in known.items()
            if (interval := mean_interval(values, resamples=resamples, seed=seed)) is not None
        }
    return table
