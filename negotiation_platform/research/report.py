"""`write_report(dir)`: report.md, report.html and PNG figures for a tournament folder (needs the `report` extra).

Tables: each agent's means per game with 95% bootstrap intervals, each game's meta-game, paired
tests between agents (same seed, seat and opponents; Holm-corrected p-values), Bradley–Terry
ratings with intervals. Figures (`report_figures`): per two-seat game the outcome scatter with the
exact Pareto frontier and Nash point where the outcome space is enumerable, concession curves, mean
utilities with error bars, the agent × agent payoff heatmap, and the ratings. Matplotlib runs on the
Agg backend: no display needed. What each number means: docs/reports.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from negotiation_platform.agents.llm_failures import MarkedMatch, counted, marked_matches
from negotiation_platform.agents.llm_usage import Usage
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.research.analysis import analyze, failure_summary
from negotiation_platform.research.analysis.pairwise import ALPHA
from negotiation_platform.research.report_figures import concession_figure as concession_figure
from negotiation_platform.research.report_figures import means_figure, payoff_heatmap, ratings_figure, save
from negotiation_platform.research.report_figures import outcome_figure as outcome_figure
from negotiation_platform.research.report_figures import role_names as role_names
from negotiation_platform.research.report_format import Cell, Column, Estimate, Section, Unit, html_page, markdown_page
from negotiation_platform.research.rows import Analysis, FailureGroup, Interval
from negotiation_platform.research.social_evaluation import SOCIAL, SocialReport, social_sections
from negotiation_platform.research.tournament import RESULTS, failure_rows, finished_rows

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
    sections.append(_pairwise_section(analysis))
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


SUMMARY = [
    ("agreement", "agreement_rate", Unit.SHARE),
    ("rounds to deal", "rounds_to_agreement", Unit.ROUNDS),
    ("utility", "utility", Unit.AMOUNT),
    ("surplus", "surplus", Unit.AMOUNT),
    ("Nash welfare", "nash_welfare", Unit.AMOUNT),
    ("Pareto distance", "pareto_distance", Unit.AMOUNT),
]
"""The outcome table's columns of means: title, metric, unit."""

INTERVALS = "Each mean comes with its 95% bootstrap interval [low, high] (percentile, 2,000 resamples, seeded)."


def _summary(analysis: Analysis) -> Section:
    columns = [Column("game", Unit.TEXT), Column("agent", Unit.TEXT), Column("seats", Unit.COUNT)]
    columns += [Column(title, unit) for title, _, unit in SUMMARY]
    rows: list[list[Cell]] = []
    for means in analysis["aggregate"]:
        game, agent = str(means["game"]), str(means["agent"])
        known = analysis["intervals"].get(game, {}).get(agent, {})
        rows.append([game, agent, means["matches"], *(_estimate(known.get(metric)) for _, metric, _ in SUMMARY)])
    note = (
        "Means over the seats each agent held (a match against itself counts both seats); utilities and "
        f"surplus (payoff minus BATNA) in the game's own units. {INTERVALS}"
    )
    return Section("Outcomes per game and agent", columns, rows, note=note)


def _estimate(interval: Interval | None) -> Estimate | None:
    return None if interval is None else Estimate(interval["mean"], interval["low"], interval["high"])


def _game_section(game: str, analysis: Analysis, figures: Path, registry: Registry) -> Section:
    matches = [m for m in analysis["matches"] if m["game"] == game]
    names: list[str] = []
    if all(len(m["payoffs"]) == 2 for m in matches):
        names.append(save(outcome_figure(game, matches, registry), figures / f"{game}_outcomes.png"))
    if any(m["offers"] for m in matches):
        names.append(save(concession_figure(game, matches), figures / f"{game}_concession.png"))
    names.append(save(means_figure(game, analysis["intervals"][game]), figures / f"{game}_means.png"))
    meta = analysis["metagame"][game]
    names.append(save(payoff_heatmap(game, meta), figures / f"{game}_payoffs.png"))
    agents = meta["agents"]
    rows: list[list[Cell]] = [
        [
            agent,
            *(
                Estimate(mean, low, high)
                for mean, low, high in zip(meta["matrix"][i], meta["low"][i], meta["high"][i], strict=True)
            ),
            meta["nash"][i],
        ]
        for i, agent in enumerate(agents)
    ]
    columns = [Column("agent", Unit.TEXT), *(Column(f"vs {a}") for a in agents), Column("Nash mixture", Unit.SHARE)]
    title = f"{game}: meta-game (mean payoff vs opponent) and its Nash mixture"
    return Section(title, columns, rows, names, note=INTERVALS)


def _pairwise_section(analysis: Analysis) -> Section:
    """Agent a against agent b from the same positions: the difference, the test, the corrected p-value."""
    columns = [Column("game", Unit.TEXT), Column("agent a", Unit.TEXT), Column("agent b", Unit.TEXT)]
    columns += [Column("positions", Unit.COUNT), Column("mean payoff a − b")]
    columns += [Column(name, Unit.COUNT) for name in ("a better", "tie", "b better")]
    columns += [Column("p", Unit.P_VALUE), Column("p (Holm)", Unit.P_VALUE), Column("differ", Unit.TEXT)]
    rows: list[list[Cell]] = [
        [
            t["game"],
            t["agent_a"],
            t["agent_b"],
            t["positions"],
            Estimate(t["mean_difference"], t["low"], t["high"]),
            t["a_better"],
            t["ties"],
            t["b_better"],
            t["p_value"],
            t["p_holm"],
            "yes" if t["p_holm"] < ALPHA else "no",
        ]
        for t in analysis["pairwise"]
    ]
    note = (
        "A position is a game, seed, seat and the agents in the other seats; each row compares the payoffs "
        "agents a and b earned from the positions both played, so seat and opponent cancel out. p: a paired "
        "permutation test (sign flips) of the mean difference; p (Holm): corrected for every comparison in this "
        f"table; differ: Holm's p below {ALPHA:g}."
    )
    return Section("Pairwise comparisons (paired by seed, seat and opponents)", columns, rows, note=note)


def _ratings_section(analysis: Analysis, figures: Path) -> Section:
    name = save(ratings_figure(analysis["ratings"]["overall"]["bradley_terry"]), figures / "ratings.png")
    rows: list[list[Cell]] = [
        [scope, agent, Estimate(v["rating"], v["low"], v["high"])]
        for scope, methods in analysis["ratings"].items()
        for agent, v in methods["bradley_terry"].items()
    ]
    columns = [Column("scope", Unit.TEXT), Column("agent", Unit.TEXT), Column("rating [95% interval]", Unit.RATING)]
    note = (
        "Bradley–Terry on the Elo scale (1,500 = average; 400 points = 10:1 odds), from the paired comparisons: "
        "agent a beats agent b on a position when it earned more there, a tie when both earned the same (so a "
        "no-deal is a draw only when both got the same payoff). Intervals: percentile bootstrap over comparisons."
    )
    return Section("Ratings (Bradley–Terry from paired payoffs)", columns, rows, [name], note=note)


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
    rows: list[list[Cell]] = [[agent, *(entry.get(key) for key, _ in USAGE_COLUMNS)] for agent, entry in usage.items()]
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
