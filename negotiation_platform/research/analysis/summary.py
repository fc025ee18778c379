"""`analyze(rows)`: every metric, rating and meta-game of a tournament, as plain data for reports and notebooks."""

from __future__ import annotations

from negotiation_platform.agents.llm_failures import counted, marked_matches
from negotiation_platform.registry import Registry
from negotiation_platform.research.analysis.intervals import RESAMPLES, agent_intervals, mean_interval
from negotiation_platform.research.analysis.metagame import metagame, metagame_values, symmetric_nash
from negotiation_platform.research.analysis.metrics import aggregate, with_metrics
from negotiation_platform.research.analysis.pairwise import paired_tests
from negotiation_platform.research.analysis.ratings import paired_comparisons, ratings_with_intervals
from negotiation_platform.research.analysis.usage import usage_by_agent
from negotiation_platform.research.rows import Analysis, MatchRow, Metagame


def analyze(
    rows: list[MatchRow],
    *,
    registry: Registry | None = None,
    samples: int = 200,
    resamples: int = RESAMPLES,
    keep_failed_llm: bool = False,
) -> Analysis:
    """Per-match metrics, per (game, agent) means with bootstrap intervals, paired tests between agents,
    Bradley–Terry ratings per game and overall, and each game's meta-game.

    Ratings compare payoffs from the same position (`pairwise`), so they are scale-free across games;
    each game's meta-game uses mean payoffs. `samples` bootstrap resamples go into each rating
    interval (each refits the ratings), `resamples` into each mean's interval and each test.
    Matches in which a seat lost moves to its LLM endpoint (`endpoint_failures`) are in none of
    these unless `keep_failed_llm`; `endpoint_failures` lists them either way ({key, seats}).
    `usage` is what LLM seats used and cost per agent over every match (`usage_by_agent`; empty
    without LLM seats).
    """
    kept = counted(rows, keep_failed_llm)
    scored = with_metrics(kept, registry)
    games = sorted({row["game"] for row in kept})
    scopes = {**{game: [r for r in scored if r["game"] == game] for game in games}, "overall": scored}
    ratings = {
        scope: {"bradley_terry": ratings_with_intervals(paired_comparisons(subset), samples=samples)}
        for scope, subset in scopes.items()
    }
    return {
        "matches": scored,
        "aggregate": aggregate(scored),
        "intervals": agent_intervals(scored, resamples=resamples),
        "pairwise": paired_tests(scored, resamples=resamples),
        "ratings": ratings,
        "metagame": {game: _metagame(scopes[game], resamples) for game in games},
        "usage": usage_by_agent(rows),
        "endpoint_failures": [match.model_dump() for match in marked_matches(rows)],
    }


def _metagame(rows: list[MatchRow], resamples: int) -> Metagame:
    """A game's meta-game, each mean payoff with its bootstrap interval."""
    agents, matrix = metagame(rows)
    values = metagame_values(rows)
    bounds = {
        key: interval
        for key, payoffs in values.items()
        if (interval := mean_interval(payoffs, resamples=resamples)) is not None
    }
    low = [[bounds[(a, b)]["low"] if (a, b) in bounds else None for b in agents] for a in agents]
    high = [[bounds[(a, b)]["high"] if (a, b) in bounds else None for b in agents] for a in agents]
    nash = symmetric_nash(matrix).tolist()
    return {"agents": agents, "matrix": matrix.tolist(), "low": low, "high": high, "nash": nash}
