"""Research analysis of tournament results: per-match outcome metrics, ratings and the empirical meta-game.

Everything works on tournament rows (plain dicts, one per match, as `negotiation_platform.research.tournament`
writes them to matches.jsonl), so a notebook can analyse a results file without the CLI.
"""

from negotiation_platform.research.analysis.intervals import agent_intervals, mean_interval
from negotiation_platform.research.analysis.metagame import metagame, symmetric_nash, zero_sum_nash
from negotiation_platform.research.analysis.metrics import aggregate, match_metrics
from negotiation_platform.research.analysis.pairwise import holm, paired_payoffs, paired_tests
from negotiation_platform.research.analysis.ratings import (
    bradley_terry,
    elo,
    paired_comparisons,
    pairwise_outcomes,
    ratings_with_intervals,
)
from negotiation_platform.research.analysis.summary import analyze
from negotiation_platform.research.analysis.usage import failure_summary, usage_by_agent

__all__ = [
    "agent_intervals",
    "aggregate",
    "analyze",
    "bradley_terry",
    "elo",
    "failure_summary",
    "holm",
    "match_metrics",
    "mean_interval",
    "metagame",
    "paired_comparisons",
    "paired_payoffs",
    "paired_tests",
    "pairwise_outcomes",
    "ratings_with_intervals",
    "symmetric_nash",
    "usage_by_agent",
    "zero_sum_nash",
]
