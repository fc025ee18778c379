"""`analyze(rows)`: every metric, rating and meta-game of a tournament, as plain data for reports and notebooks."""

from __future__ import annotations

from negotiation_platform.agents.llm_failures import counted, marked_matches
from negotiation_platform.registry import Registry
from negotiation_platform.research.analysis.metagame import metagame, symmetric_nash
from negotiation_platform.research.analysis.metrics import aggregate, with_metrics
from negotiation_platform.research.analysis.ratings import pairwise_outcomes, ratings_with_intervals
from negotiation_platform.research.analysis.usage import usage_by_agent
from negotiation_platform.research.rows import Analysis, MatchRow, Metagame


def analyze(
    rows: list[MatchRow],
    *,
    registry: Registry | None = None,
    samples: int = 200,
    keep_failed_llm: bool = False,
) -> Analysis:
    """Per-match metrics, per (game, agent) means, ratings per game and overall, and each game's meta-game.

    Ratings compare surplus (scale-free across games); each game's meta-game uses mean payoffs.
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
        scope: {
            method: ratings_with_intervals(pairwise_outcomes(subset), method, samples=samples)
            for method in ("elo", "bradley_terry")
        }
        for scope, subset in scopes.items()
    }
    metagames: dict[str, Metagame] = {}
    for game in games:
        agents, matrix = metagame(scopes[game])
        metagames[game] = {"agents": agents, "matrix": matrix.tolist(), "nash": symmetric_nash(matrix).tolist()}
    return {
        "matches": scored,
        "aggregate": aggregate(scored),
        "ratings": ratings,
        "metagame": metagames,
        "usage": usage_by_agent(rows),
        "endpoint_failures": [match.model_dump() for match in marked_matches(rows)],
    }
