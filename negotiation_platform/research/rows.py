"""The rows a tournament writes (out/results.jsonl, out/failures.jsonl), as the analysis and reports read them.

A row is JSON on disk; these shapes say which keys it has, so each reader is checked against what
`play_plan` writes. A row read back from a file is taken as written (the tournament wrote it).
"""

from __future__ import annotations

from typing import Required, TypedDict

from pydantic import JsonValue

from negotiation_platform.agents.llm_usage import Usage


class Metrics(TypedDict):
    """A match's metrics (`analysis.metrics.match_metrics`); None where a metric does not apply."""

    agreement: bool
    rounds_to_agreement: int | None
    utilitarian_welfare: float
    nash_welfare: float
    worst_off: float
    pareto_distance: float | None
    nash_distance: float | None
    ef: bool | None
    ef1: bool | None


class MatchRow(TypedDict, total=False):
    """One played match, seat-ordered (`tournament.play_plan`); `metrics` once `with_metrics` added them."""

    key: Required[str]
    game: Required[str]
    config: dict[str, JsonValue] | None
    seed: int
    agents: Required[list[str]]
    roles: list[int] | None
    agreement: bool
    rounds: int
    terms: JsonValue
    payoffs: list[float]
    batnas: list[float]
    surplus: list[float]
    offers: list[list[float]]
    """[seat, round, value] per offer a seat made, in the terms of its game's bargaining field."""
    seconds: float
    transcripts: list[list[dict[str, object]] | None]
    """Per seat, an LLM seat's transcript (None for other seats)."""
    forfeits: list[int]
    usage: list[Usage | None]
    usage_total: Usage
    endpoint_failures: list[dict[str, JsonValue]]
    metrics: Metrics


class FailureRow(TypedDict):
    """A match that failed (out/failures.jsonl): its key and why."""

    key: str
    error: str


class FailureGroup(TypedDict):
    """Failed matches grouped by reason (`analysis.usage.failure_summary`)."""

    error: str
    count: int
    keys: list[str]


AgentMeans = dict[str, str | float | None]
"""One (game, agent) line of `analysis.metrics.aggregate`: its game and agent, match count and mean metrics."""


class Interval(TypedDict):
    """A mean and its bootstrap interval (`analysis.intervals`); `low`, `high` None under two values."""

    mean: float
    low: float | None
    high: float | None


class PairedTest(TypedDict):
    """Agent a against agent b on one game over the positions both played (`analysis.pairwise`):
    the mean payoff difference a − b with its interval, how often each did better, the permutation
    test's p-value and the Holm-corrected one."""

    game: str
    agent_a: str
    agent_b: str
    positions: int
    mean_difference: float
    low: float | None
    high: float | None
    a_better: int
    ties: int
    b_better: int
    p_value: float
    p_holm: float


class Metagame(TypedDict):
    """A game's meta-game: agents, the agent × opponent mean payoff matrix with each mean's bootstrap
    interval (`low`, `high`; None where fewer than two matches), and its Nash mixture."""

    agents: list[str]
    matrix: list[list[float]]
    low: list[list[float | None]]
    high: list[list[float | None]]
    nash: list[float]


class Analysis(TypedDict):
    """What `analysis.analyze` returns: the rows with metrics, the per-agent means and their intervals
    ({game: {agent: {metric: Interval}}}), the paired tests between agents, the ratings by scope and
    method ({agent: {rating, low, high}}), the meta-games, usage per agent and the marked matches."""

    matches: list[MatchRow]
    aggregate: list[AgentMeans]
    intervals: dict[str, dict[str, dict[str, Interval]]]
    pairwise: list[PairedTest]
    ratings: dict[str, dict[str, dict[str, dict[str, float]]]]
    metagame: dict[str, Metagame]
    usage: dict[str, Usage]
    endpoint_failures: list[dict[str, JsonValue]]


class Seating(TypedDict, total=False):
    """The part of a row that puts its seats in role order (`roles`: seat → role; None: seat order)."""

    roles: list[int] | None
