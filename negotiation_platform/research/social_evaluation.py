"""Social evaluation as in the Advantage Alignment paper: a round-robin with self-play, scored for society.

`evaluate_social` plays every ordered pair of the agents, (A, A) included, `matches` times through
`tournament.run_tournament` (match seeds 0..N−1 for every pair: common random numbers), then reports
- collective payoff: both seats' payoffs summed per match, averaged;
- split efficiency: collective payoff over the most the game allows under its config
  (`max_collective_payoff`: the pot of a split game; None where values are drawn per match);
- robustness: each agent's payoff against `greedy` (which joins the round-robin when not named),
  the paper's measure of how exploitable an agent is;
- each agent's mean payoff over all its seats.
Every figure has a 95% percentile-bootstrap interval over matches (2,000 resamples of the matches from a
numpy Generator seeded with `seed`), so the same inputs and seed give the same report.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, JsonValue

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.research.report_format import Column, Section, Unit, cell
from negotiation_platform.research.rows import MatchRow

GREEDY = "greedy"
SOCIAL = "social.json"
"""What `eval-social --out DIR` writes beside DIR/matches.jsonl; `report DIR` adds its tables."""
RESAMPLES = 2000
LEVEL = 0.95
METHOD = f"{LEVEL:.0%} percentile bootstrap over matches, {RESAMPLES} resamples"


class Interval(BaseModel):
    """A mean over matches and its interval (low ≤ mean ≤ high)."""

    model_config = ConfigDict(frozen=True)
    mean: float
    low: float
    high: float
    n: int


class PairScore(BaseModel):
    """One ordered line-up (seat 0, seat 1) over its matches."""

    model_config = ConfigDict(frozen=True)
    agents: tuple[str, str]
    self_play: bool
    payoffs: tuple[Interval, Interval]
    collective: Interval
    efficiency: Interval | None


class AgentScore(BaseModel):
    """One agent over the whole round-robin."""

    model_config = ConfigDict(frozen=True)
    agent: str
    payoff: Interval
    """Its payoff over every seat it held in every match."""
    vs_greedy: Interval
    """Its payoff in the matches against `greedy`, either seat (greedy's own: its self-play)."""
    self_play_collective: Interval
    self_play_efficiency: Interval | None


class SocialReport(BaseModel):
    """What `eval-social` prints (`--json`) and writes to social.json, where `report` finds it."""

    model_config = ConfigDict(frozen=True)
    game: str
    config: dict[str, JsonValue] | None
    matches: int
    seed: int
    interval: str
    max_collective_payoff: float | None
    agents: list[AgentScore]
    pairs: list[PairScore]


def evaluate_social(
    game: str,
    agents: Sequence[str],
    *,
    matches: int = 10,
    seed: int = 0,
    config: dict[str, JsonValue] | None = None,
    out: str | Path | None = None,
    workers: int = 1,
    registry: Registry | None = None,
) -> SocialReport:
    """Play the round-robin (into `out`, resumable; a temporary folder when None) and score it."""
    from negotiation_platform.research.tournament import run_tournament

    registry = registry or Registry()
    pool = list(dict.fromkeys([*agents, GREEDY]))
    if game not in registry.games():
        raise NegotiationError(ErrorCode.UNKNOWN_GAME, f"Unknown game {game!r}; games: {sorted(registry.games())}.")
    cls = registry.game(game).cls
    if cls.spec_for(cls.parse_config(config)).roles.min_players != 2:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"eval-social pairs agents: {game!r} is not a two-seat game."
        )
    best = cls.max_collective_payoff(cls.parse_config(config))
    with tempfile.TemporaryDirectory(prefix="eval-social-") as scratch:
        rows = run_tournament(
            [game],
            pool,
            seeds=matches,
            swap_roles=True,
            workers=workers,
            out=out if out is not None else scratch,
            configs={game: config} if config else None,
            registry=registry,
        )
    if len(rows) < len(pool) ** 2 * matches:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"only {len(rows)} of {len(pool) ** 2 * matches} matches could be played."
        )
    rng = np.random.default_rng(seed)
    pairs = [_pair(rows, (a, b), best, rng) for a in pool for b in pool]
    scores = [_agent(rows, agent, best, rng) for agent in pool]
    return SocialReport(
        game=game,
        config=config,
        matches=matches,
        seed=seed,
        interval=METHOD,
        max_collective_payoff=best,
        agents=scores,
        pairs=pairs,
    )


def interval(values: Sequence[float], rng: np.random.Generator) -> Interval:
    """The mean of `values` with its percentile-bootstrap interval (one draw of `rng` per call)."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "an interval needs at least one match.")
    means = data[rng.integers(0, data.size, size=(RESAMPLES, data.size))].mean(axis=1)
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    mean = float(data.mean())
    return Interval(mean=mean, low=min(float(low), mean), high=max(float(high), mean), n=int(data.size))


def _pair(
    rows: Sequence[MatchRow], line_up: tuple[str, str], best: float | None, rng: np.random.Generator
) -> PairScore:
    played = [row["payoffs"] for row in rows if tuple(row["agents"]) == line_up]
    collective = [sum(payoffs) for payoffs in played]
    return PairScore(
        agents=line_up,
        self_play=line_up[0] == line_up[1],
        payoffs=(interval([p[0] for p in played], rng), interval([p[1] for p in played], rng)),
        collective=interval(collective, rng),
        efficiency=interval([c / best for c in collective], rng) if best else None,
    )


def _agent(rows: Sequence[MatchRow], agent: str, best: float | None, rng: np.random.Generator) -> AgentScore:
    mine = [(row["agents"], row["payoffs"]) for row in rows if agent in row["agents"]]
    seats = [pay for names, payoffs in mine for name, pay in zip(names, payoffs, strict=True) if name == agent]
    against = [
        payoffs[seat]
        for names, payoffs in mine
        if GREEDY in names
        for seat in range(2)
        if names[seat] == agent and names[1 - seat] == GREEDY
    ]
    own = [sum(payoffs) for names, payoffs in mine if names[0] == names[1] == agent]
    return AgentScore(
        agent=agent,
        payoff=interval(seats, rng),
        vs_greedy=interval(against, rng),
        self_play_collective=interval(own, rng),
        self_play_efficiency=interval([c / best for c in own], rng) if best else None,
    )


def social_sections(report: SocialReport) -> list[Section]:
    """The report as two tables, the agents and every line-up (for `eval-social` and the `report` pages)."""
    note = f"{report.game}: {report.matches} matches per line-up; {report.interval}."
    agents = Section(
        f"Social evaluation of {report.game}: agents",
        [
            Column(title, Unit.TEXT)
            for title in ("agent", "payoff", "vs greedy", "self-play collective", "self-play efficiency")
        ],
        [
            [
                score.agent,
                _shown(score.payoff, Unit.AMOUNT),
                _shown(score.vs_greedy, Unit.AMOUNT),
                _shown(score.self_play_collective, Unit.AMOUNT),
                _shown(score.self_play_efficiency, Unit.SHARE),
            ]
            for score in report.agents
        ],
        note=note,
    )
    best = (
        "not fixed by the config"
        if report.max_collective_payoff is None
        else cell(report.max_collective_payoff, Unit.AMOUNT)
    )
    pairs = Section(
        f"Social evaluation of {report.game}: line-ups",
        [
            Column(title, Unit.TEXT)
            for title in ("seat 0", "seat 1", "payoff 0", "payoff 1", "collective", "efficiency")
        ],
        [
            [
                *pair.agents,
                *(_shown(p, Unit.AMOUNT) for p in pair.payoffs),
                _shown(pair.collective, Unit.AMOUNT),
                _shown(pair.efficiency, Unit.SHARE),
            ]
            for pair in report.pairs
        ],
        note=f"Collective payoff is both seats' payoffs summed; efficiency divides it by the maximum ({best}).",
    )
    return [agents, pairs]


def _shown(value: Interval | None, unit: Unit) -> str:
    if value is None:
        return cell(None, unit)
    return f"{cell(value.mean, unit)} [{cell(value.low, unit)}, {cell(value.high, unit)}]"
