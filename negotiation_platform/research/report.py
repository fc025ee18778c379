"""`write_report(dir)`: report.md, report.html and PNG figures for a tournament folder (needs the `report` extra).

Figures: per two-seat game the outcome scatter (role-ordered utilities) with the exact Pareto
frontier and Nash point where the game's outcome space is enumerable, concession curves (median
offer position per round per agent: robust to random agents' wild offers), the agent × agent
payoff heatmap, and rating bars with bootstrap intervals. Matplotlib runs on the Agg backend: no display needed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from negotiation_platform.agents.llm_failures import MarkedMatch, counted, marked_matches
from negotiation_platform.agents.llm_usage import Usage
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.research.analysis import analyze, failure_summary
from negotiation_platform.research.analysis.metrics import role_point
from negotiation_platform.research.analysis.outcomes import outcome_space
from negotiation_platform.research.report_format import (
    Cell,
    Column,
    Section,
    Unit,
    axis_amount,
    html_page,
    markdown_page,
)
from negotiation_platform.research.rows import Analysis, FailureGroup, MatchRow
from negotiation_platform.research.social_evaluation import SOCIAL, SocialReport, social_sections
from negotiation_platform.research.tournament import RESULTS, failure_rows, finished_rows

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TITLE = "Tournament report"


Progress = Callable[[int, int, str], None]
"""Told `(steps done, steps in all, what comes next)` before each step of a report (e.g. to draw a bar)."""


def write_report(
    directory: str | Path,
    *,
    samples: int = 200,
    registry: Registry | None = None,
    progress: Progress | None = None,
    keep_failed_llm: bool = False,
) -> list[Path]:
    """Analyse out/matches.jsonl and write the report and its figures next to it; returns the files written.

    Matches in which a seat lost moves to its LLM endpoint are listed apart and left out of the
    outcome tables, figures and ratings unless `keep_failed_llm`."""
    import matplotlib

    matplotlib.use("Agg")
    out = Path(directory)
    # Seed-major order, whatever order workers finished in: Elo depends on order, and the report must not.
    rows = sorted(finished_rows(out).values(), key=lambda row: (row["seed"], row["game"], row["agents"]))
    if not rows:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"No matches in {out / RESULTS}; run a tournament first.")
    kept = counted(rows, keep_failed_llm)
    if not kept:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"Every match in {out / RESULTS} had LLM endpoint failures: nothing is left to compare "
            "(--keep-failed-llm reports them as they were played).",
        )
    registry = registry or Registry()
    tell = progress or _untold
    steps = len({row["game"] for row in kept}) + 3  # the analysis, a section per game, the ratings, the pages
    tell(0, steps, f"analysing {len(rows)} matches ({samples} bootstrap samples)")
    analysis = analyze(rows, registry=registry, samples=samples, keep_failed_llm=keep_failed_llm)
    figures = out / "figures"
    figures.mkdir(exist_ok=True)
    sections = [_summary(analysis)]
    for done, game in enumerate(sorted(analysis["metagame"]), start=1):
        tell(done, steps, f"figures of {game}")
        sections.append(_game_section(game, analysis, figures, registry))
    tell(steps - 2, steps, "ratings")
    sections.append(_ratings_section(analysis, figures))
    if analysis["usage"]:
        sections.append(_usage_section(analysis["usage"]))
    marked = marked_matches(rows)
    if marked:
        sections.append(_endpoint_section(marked, keep_failed_llm))
    social = out / SOCIAL
    if social.exists():  # `eval-social --out` wrote this folder: its tables join the report
        sections.extend(social_sections(SocialReport.model_validate_json(social.read_text())))
    failures = failure_summary(failure_rows(out))
    if failures:
        sections.append(_failures_section(failures))
    tell(steps - 1, steps, "writing the pages")
    written = [figures / name for section in sections for name in section.figures]
    (out / "report.md").write_text(markdown_page(TITLE, sections))
    (out / "report.html").write_text(html_page(TITLE, sections))
    (out / "analysis.json").write_text(json.dumps({k: v for k, v in analysis.items() if k != "matches"}, indent=1))
    tell(steps, steps, "written")
    return [out / "report.md", out / "report.html", out / "analysis.json", *written]


def _untold(done: int, total: int, what: str) -> None:
    """No one asked to follow the report's progress."""


def _summary(analysis: Analysis) -> Section:
    columns = [
        Column("game", Unit.TEXT),
        Column("agent", Unit.TEXT),
        Column("matches", Unit.COUNT),
        Column("agreement", Unit.SHARE),
        Column("rounds to deal", Unit.ROUNDS),
        Column("utility"),
        Column("surplus"),
        Column("Nash welfare"),
        Column("Pareto distance"),
    ]
    keys = ["game", "agent", "matches", "agreement_rate", "rounds_to_agreement", "utility", "surplus"]
    rows = [[a[k] for k in [*keys, "nash_welfare", "pareto_distance"]] for a in analysis["aggregate"]]
    note = "Means over each agent's matches; utilities and surplus (payoff minus BATNA) in the game's own units."
    return Section("Outcomes per game and agent", columns, rows, note=note)


def _game_section(game: str, analysis: Analysis, figures: Path, registry: Registry) -> Section:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    matches = [m for m in analysis["matches"] if m["game"] == game]
    names: list[str] = []
    if all(len(m["payoffs"]) == 2 for m in matches):
        names.append(_scatter(game, matches, figures, registry))
    if any(m["offers"] for m in matches):
        names.append(_concession(game, matches, figures))
    meta = analysis["metagame"][game]
    agents, matrix = meta["agents"], np.array(meta["matrix"], dtype=float)
    figure, axes = plt.subplots(figsize=(1.2 * len(agents) + 3, 1.0 * len(agents) + 2))
    image = axes.imshow(matrix, cmap="viridis")
    axes.set_xticks(range(len(agents)), agents, rotation=30)
    axes.set_yticks(range(len(agents)), agents)
    axes.set_xlabel("opponent")
    axes.set_ylabel("agent")
    for (i, j), value in np.ndenumerate(matrix):
        axes.text(j, i, "–" if np.isnan(value) else axis_amount(value), ha="center", va="center", color="white")
    figure.colorbar(image, label="mean payoff", format=FuncFormatter(axis_amount))
    axes.set_title(f"{game}: agent × opponent mean payoff")
    names.append(_save(figure, figures / f"{game}_payoffs.png"))
    rows = [[agent, *matrix[i].tolist(), meta["nash"][i]] for i, agent in enumerate(agents)]
    columns = [Column("agent", Unit.TEXT), *(Column(f"vs {a}") for a in agents), Column("Nash mixture", Unit.SHARE)]
    title = f"{game}: meta-game (mean payoff vs opponent) and its Nash mixture"
    return Section(title, columns, rows, names)


def role_names(game: str, registry: Registry) -> list[str]:
    """The party names of a two-seat game's roles, as its spec gives them (seats when it names none)."""
    names = list(registry.game(game).spec.roles.names)
    return names if len(names) == 2 else ["player 1", "player 2"]


def _scatter(game: str, matches: list[MatchRow], figures: Path, registry: Registry) -> str:
    return _save(outcome_figure(game, matches, registry), figures / f"{game}_outcomes.png")


def outcome_figure(game: str, matches: Sequence[MatchRow], registry: Registry) -> Figure:
    """The outcomes of a two-seat game in role order, with its Pareto frontier and Nash point where known."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    figure, axes = plt.subplots(figsize=(6, 5))
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
    axes.legend(fontsize="small")
    return figure


def _concession(game: str, matches: list[MatchRow], figures: Path) -> str:
    return _save(concession_figure(game, matches), figures / f"{game}_concession.png")


def concession_figure(game: str, matches: Sequence[MatchRow]) -> Figure:
    """Each agent's median offer position per round: how fast it gives ground."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    curves: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for match in matches:
        for seat, round_number, value in match["offers"]:
            curves[match["agents"][int(seat)]][int(round_number)].append(value)
    figure, axes = plt.subplots(figsize=(6, 4))
    for agent, by_round in sorted(curves.items()):
        rounds = sorted(by_round)
        axes.plot(rounds, [float(np.median(by_round[r])) for r in rounds], marker="o", label=agent)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds are whole numbers
    axes.set_xlabel("round")
    axes.set_ylabel("median offer position (1 = own best, 0 = reservation)")
    axes.set_title(f"{game}: concession curves")
    axes.legend(fontsize="small")
    return figure


def _ratings_section(analysis: Analysis, figures: Path) -> Section:
    import matplotlib.pyplot as plt

    overall = analysis["ratings"]["overall"]
    figure, panels = plt.subplots(1, 2, figsize=(10, 4))
    for axes, method in zip(panels, ("bradley_terry", "elo"), strict=True):
        table = overall[method]
        agents = list(table)
        values = np.array([table[a]["rating"] for a in agents])
        errors = np.array([[v - table[a]["low"], table[a]["high"] - v] for a, v in zip(agents, values, strict=True)])
        axes.bar(agents, values - 1500, bottom=1500, yerr=errors.T.clip(min=0), capsize=4)
        axes.set_title(f"{method.replace('_', '–').title()} (95% bootstrap interval)")
        axes.set_xlabel("agent")
        axes.set_ylabel("rating")
        axes.tick_params(axis="x", rotation=30)
    name = _save(figure, figures / "ratings.png")
    rows: list[list[Cell]] = [
        [scope, method.replace("_", "–").title(), agent, v["rating"], v["low"], v["high"]]
        for scope, methods in analysis["ratings"].items()
        for method, table in methods.items()
        for agent, v in table.items()
    ]
    columns = [Column("scope", Unit.TEXT), Column("method", Unit.TEXT), Column("agent", Unit.TEXT)]
    columns += [Column("rating", Unit.RATING), Column("low", Unit.RATING), Column("high", Unit.RATING)]
    return Section("Ratings (pairwise wins by surplus)", columns, rows, [name])


USAGE_COLUMNS = [
    ("seats", Unit.COUNT),
    ("forfeits", Unit.COUNT),
    ("calls", Unit.COUNT),
    ("cache_hits", Unit.COUNT),
    ("failed_calls", Unit.COUNT),
    ("failed_tries", Unit.COUNT),
    ("moves_lost", Unit.COUNT),
    ("prompt_tokens", Unit.COUNT),
    ("cached_tokens", Unit.COUNT),
    ("completion_tokens", Unit.COUNT),
    ("seconds", Unit.SECONDS),
]


def _usage_section(usage: dict[str, Usage]) -> Section:
    """What the LLM seats used: calls, tokens and time per agent, and their cost where prices were given."""
    priced = any(entry.get("cost_usd") is not None for entry in usage.values())
    columns = [Column("agent", Unit.TEXT), *(Column(key.replace("_", " "), unit) for key, unit in USAGE_COLUMNS)]
    rows = [[agent, *(entry.get(key) for key, _ in USAGE_COLUMNS)] for agent, entry in usage.items()]
    if priced:
        columns.append(Column("cost", Unit.USD))
        for row, entry in zip(rows, usage.values(), strict=True):
            row.append(entry.get("cost_usd"))
    note = "Model calls answered from the response cache cost nothing and are counted apart (cache hits)."
    return Section("LLM usage" + (" and cost" if priced else ""), columns, rows, note=note)


def _endpoint_section(matches: list[MarkedMatch], kept: bool) -> Section:
    """Matches in which seats lost moves to their LLM endpoints, seat by seat."""
    columns = [Column("match", Unit.TEXT), Column("seat", Unit.COUNT), Column("agent", Unit.TEXT)]
    columns += [Column(name, Unit.COUNT) for name in ("moves lost", "moves", "failed calls", "failed tries")]
    rows: list[list[Cell]] = [
        [match.key, seat.seat, seat.agent, seat.moves_lost, seat.moves, seat.failed_calls, seat.failed_tries]
        for match in matches
        for seat in match.seats
    ]
    note = (
        "Kept in the tables above, as asked (--keep-failed-llm): their outcomes say more about the endpoint."
        if kept
        else "Left out of every outcome table, figure and rating above (report --keep-failed-llm keeps them); "
        "their calls are in the LLM usage table."
    )
    return Section("Matches with LLM endpoint failures", columns, rows, note=note)


def _failures_section(failures: Sequence[FailureGroup]) -> Section:
    """Matches that failed (failures.jsonl), grouped by reason: they are missing from every table above."""
    rows: list[list[Cell]] = [[failure["error"], failure["count"]] for failure in failures]
    note = "These matches are in no table above; a re-run of the same tournament plays them again."
    return Section("Failed matches", [Column("reason", Unit.TEXT), Column("matches", Unit.COUNT)], rows, note=note)


def _save(figure: Figure, path: Path) -> str:
    import matplotlib.pyplot as plt

    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path.name
