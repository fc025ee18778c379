"""The report's figures, drawn for print: 7 inches wide at 200 dpi (1,400 px), legends outside the axes.

Every mean is drawn with its 95% bootstrap interval as an error bar (`analysis.intervals`). Each
figure is built with matplotlib's constrained layout, which makes room for a legend placed outside
the axes ("outside right upper"), so no legend covers a point, a curve or a baseline.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from negotiation_platform.registry import Registry
from negotiation_platform.research.analysis.intervals import mean_interval
from negotiation_platform.research.analysis.metrics import role_point
from negotiation_platform.research.analysis.outcomes import outcome_space
from negotiation_platform.research.report_format import axis_amount
from negotiation_platform.research.rows import Interval, MatchRow, Metagame

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

WIDTH = 7.0
"""Inches; at `DPI` a figure is 1,400 px wide."""
DPI = 200


def role_names(game: str, registry: Registry) -> list[str]:
    """The party names of a two-seat game's roles, as its spec gives them (seats when it names none)."""
    names = list(registry.game(game).spec.roles.names)
    return names if len(names) == 2 else ["player 1", "player 2"]


def _figure(height: float = 4.5) -> tuple[Figure, Axes]:
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(WIDTH, height), layout="constrained")


def _legend(figure: Figure) -> None:
    """The legend to the right of the axes, in the space constrained layout keeps for it."""
    figure.legend(loc="outside right upper", fontsize="small")


def outcome_figure(game: str, matches: Sequence[MatchRow], registry: Registry) -> Figure:
    """The outcomes of a two-seat game in role order, with its Pareto frontier and Nash point where known."""
    from matplotlib.ticker import FuncFormatter

    figure, axes = _figure(5.0)
    points = np.array([role_point(m, m["payoffs"]) for m in matches])
    agreed = np.array([m["agreement"] for m in matches])
    axes.scatter(points[agreed, 0], points[agreed, 1], s=14, alpha=0.6, label="agreement")
    axes.scatter(points[~agreed, 0], points[~agreed, 1], s=14, alpha=0.6, marker="x", label="no deal")
    space = outcome_space(game, matches[0].get("config"), registry)
    if space is not None:
        axes.plot(*space.frontier.T, color="black", linewidth=1, label="Pareto frontier")
        batnas = np.median([role_point(m, m["batnas"]) for m in matches], axis=0)
        nash = space.nash_point((float(batnas[0]), float(batnas[1])))
        if nash is not None:
            axes.scatter([nash[0]], [nash[1]], marker="*", s=200, color="red", label="Nash point (median BATNAs)")
    first, second = role_names(game, registry)
    axes.set_xlabel(f"utility of {first}")
    axes.set_ylabel(f"utility of {second}")
    axes.xaxis.set_major_formatter(FuncFormatter(axis_amount))
    axes.yaxis.set_major_formatter(FuncFormatter(axis_amount))
    axes.set_title(f"{game}: outcomes")
    _legend(figure)
    return figure


def concession_figure(game: str, matches: Sequence[MatchRow]) -> Figure:
    """Each agent's mean offer position per round, with its 95% interval: how fast it gives ground.

    A position is where an offer sits between the offerer's reservation (0) and its best outcome (1);
    an offer beyond either end (a random agent's bid above its best, or below walking away) counts as
    that end, so the curve stays on the [0, 1] axis it is drawn on."""
    from matplotlib.ticker import MaxNLocator

    curves: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for match in matches:
        for seat, round_number, value in match["offers"]:
            curves[match["agents"][int(seat)]][int(round_number)].append(min(1.0, max(0.0, value)))
    figure, axes = _figure()
    for agent, by_round in sorted(curves.items()):
        rounds = sorted(by_round)
        _error_line(axes, rounds, [mean_interval(by_round[r]) for r in rounds], agent)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds are whole numbers
    axes.set_ylim(-0.05, 1.05)
    axes.set_xlabel("round")
    axes.set_ylabel("offer position (1 = own best, 0 = reservation)")
    axes.set_title(f"{game}: concession curves (mean, 95% interval)")
    _legend(figure)
    return figure


def _error_line(axes: Axes, xs: Sequence[float], intervals: Sequence[Interval | None], label: str) -> None:
    known = [(x, i) for x, i in zip(xs, intervals, strict=True) if i is not None]
    means = [i["mean"] for _, i in known]
    axes.errorbar([x for x, _ in known], means, yerr=_spread([i for _, i in known]), marker="o", capsize=3,
                  label=label)  # fmt: skip


def _spread(intervals: Sequence[Interval]) -> np.ndarray:
    """matplotlib's yerr (2 × n: below, above each mean); no bar where an interval has no bounds."""
    low = [i["low"] if i["low"] is not None else i["mean"] for i in intervals]
    high = [i["high"] if i["high"] is not None else i["mean"] for i in intervals]
    means = np.array([i["mean"] for i in intervals])
    return np.vstack([means - np.array(low), np.array(high) - means]).reshape(2, -1).clip(min=0)


def means_figure(game: str, intervals: dict[str, dict[str, Interval]]) -> Figure:
    """Each agent's mean utility on one game with its 95% interval."""
    from matplotlib.ticker import FuncFormatter

    figure, axes = _figure(4.0)
    agents = sorted(a for a in intervals if "utility" in intervals[a])
    _bars(axes, agents, [intervals[a]["utility"] for a in agents], bottom=0.0)
    axes.yaxis.set_major_formatter(FuncFormatter(axis_amount))
    axes.set_ylabel("mean utility (95% interval)")
    axes.set_title(f"{game}: mean utility per agent")
    return figure


def ratings_figure(ratings: dict[str, dict[str, float]]) -> Figure:
    """Bradley–Terry ratings (all games) as bars from 1,500 with their 95% intervals."""
    figure, axes = _figure(4.0)
    agents = list(ratings)
    _bars(axes, agents, [{"mean": v["rating"], "low": v["low"], "high": v["high"]} for v in ratings.values()], 1500.0)
    axes.axhline(1500.0, color="grey", linewidth=0.8)
    axes.set_ylabel("rating (Elo scale, 95% interval)")
    axes.set_title("Bradley–Terry ratings, all games")
    return figure


def _bars(axes: Axes, labels: list[str], intervals: Sequence[Interval], bottom: float) -> None:
    means = np.array([i["mean"] for i in intervals])
    axes.bar(labels, means - bottom, bottom=bottom, yerr=_spread(intervals), capsize=5)
    axes.set_xlabel("agent")
    axes.tick_params(axis="x", rotation=30)


def payoff_heatmap(game: str, meta: Metagame) -> Figure:
    """The agent × opponent mean payoff matrix, each cell written in the game's unit."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    agents, matrix = meta["agents"], np.array(meta["matrix"], dtype=float)
    figure, axes = plt.subplots(figsize=(max(WIDTH, 1.2 * len(agents) + 3), 1.0 * len(agents) + 2.5),
                                layout="constrained")  # fmt: skip
    image = axes.imshow(matrix, cmap="viridis")
    axes.set_xticks(range(len(agents)), agents, rotation=30)
    axes.set_yticks(range(len(agents)), agents)
    axes.set_xlabel("opponent")
    axes.set_ylabel("agent")
    for (i, j), value in np.ndenumerate(matrix):
        axes.text(j, i, "–" if np.isnan(value) else axis_amount(value), ha="center", va="center", color="white")
    figure.colorbar(image, label="mean payoff", format=FuncFormatter(axis_amount))
    axes.set_title(f"{game}: agent × opponent mean payoff")
    return figure


def save(figure: Figure, path: Path) -> str:
    """Write the figure at print resolution and close it; returns its file name."""
    import matplotlib.pyplot as plt

    figure.savefig(path, dpi=DPI)
    plt.close(figure)
    return path.name
