"""Round-robin tournaments: every agent over every seat, N seeds each, resumable, one JSON row per match.

`run_tournament` schedules (game, agents-by-seat, seed) matches, skips those already in
`out/matches.jsonl`, plays the rest (a process pool for scripted agents; concurrent coroutines in
this process for seats that wait on someone remote, such as `llm:` and `a2a:` agents) and appends
one small row per finished match. Rows keep per-round offer positions for concession curves,
not the event log. Match seeds are 0..N−1 for every pairing (common random numbers), and each
agent is seeded from the match seed and its seat exactly as `negotiation-platform play` does.

A match that fails (an endpoint that cannot serve, a crash) is written to `out/failures.jsonl`
with its reason and played again by the next run, which drops the rows of the matches it has
now played. Rows of matches with LLM seats carry each seat's transcript, its token usage and,
given a price table, its cost (see `agents.llm_usage`); a match in which a seat lost moves to its
endpoint is marked with `endpoint_failures` (see `agents.llm_failures`), and outcome tables leave it out.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
import multiprocessing
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from negotiation_platform.agents.base import Agent, Decision, reads_prompt, reads_turn_in_place
from negotiation_platform.agents.catalog import check_agent_options, known_agent, make_agent
from negotiation_platform.agents.driver import play_match
from negotiation_platform.agents.llm_failures import FIELD as ENDPOINT_FAILURES
from negotiation_platform.agents.llm_failures import seat_failures, tally_of
from negotiation_platform.agents.llm_usage import Prices, Usage, add_usage, cost_usd, usage_totals
from negotiation_platform.agents.offers import menu_utility
from negotiation_platform.agents.seating import SeatedBy
from negotiation_platform.agents.turns import bargaining
from negotiation_platform.arena import Arena
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games.bargaining import BargainingPosition
from negotiation_platform.registry import Registry
from negotiation_platform.registry.registry import installed_registry
from negotiation_platform.research.rows import FailureRow, MatchRow

REMOTE_KINDS = {"llm", "a2a", "mcp-llm", "hf"}
"""Agent kinds that take `--agent-config` options and whose matches run as coroutines here, not in worker
processes: they wait on someone else, or (`hf`) on a model best loaded once in this process."""
RESULTS = "matches.jsonl"
FAILURES = "failures.jsonl"
CHUNK = 32
"""Most matches a worker plays per task: fewer round trips, while the progress bar still moves."""


@dataclass(frozen=True)
class MatchPlan:
    """One scheduled match; `key` names it in matches.jsonl so a re-run can skip it."""

    game: str
    agents: tuple[str, ...]
    seed: int
    config: dict[str, JsonValue] | None = field(default=None, compare=False)

    @property
    def key(self) -> str:
        return f"{self.game}|{','.join(self.agents)}|{self.seed}"

    @property
    def remote(self) -> bool:
        return any(spec.partition(":")[0] in REMOTE_KINDS for spec in self.agents)


def schedule(
    registry: Registry,
    games: list[str],
    agents: list[str],
    *,
    seeds: int = 1,
    swap_roles: bool = False,
    configs: dict[str, dict[str, JsonValue]] | None = None,
) -> list[MatchPlan]:
    """Every assignment of agents to a game's seats, `seeds` times.

    Without `swap_roles` each multiset of agents plays once per seed, in the order given; with it
    every ordered assignment plays, so every agent holds every seat against every opponent.
    """
    configs = configs or {}
    if seeds < 1:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "seeds must be at least 1.")
    if not games or not agents:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "a tournament needs at least one game and one agent.")
    for spec in agents:
        if not known_agent(registry, spec):
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT, f"Unknown agent {spec!r}; agents: {sorted(registry.agents())}."
            )
    stray = sorted(set(configs) - set(games))
    if stray:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"--config names games not in the tournament: {stray}.")
    plans: list[MatchPlan] = []
    for game in games:
        entry = registry.game(game)
        seats = entry.cls.spec_for(entry.cls.parse_config(configs.get(game))).roles.min_players
        line_ups: Iterator[tuple[str, ...]] = (
            itertools.product(agents, repeat=seats)
            if swap_roles
            else itertools.combinations_with_replacement(agents, seats)
        )
        for line_up in line_ups:
            plans.extend(MatchPlan(game, line_up, seed, configs.get(game)) for seed in range(seeds))
    return plans


def finished_rows(out: Path) -> dict[str, MatchRow]:
    """The rows already in out/matches.jsonl by key (a torn last line from an interrupted run is ignored)."""
    rows: dict[str, MatchRow] = {}
    path = out / RESULTS
    if path.exists():
        for line in path.read_text().splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                row: MatchRow = json.loads(line)
                rows[row["key"]] = row
    return rows


def failure_rows(out: Path) -> list[FailureRow]:
    """The rows of out/failures.jsonl ({key, error}), the latest per match, in the order written."""
    latest: dict[str, FailureRow] = {}
    path = out / FAILURES
    for line in path.read_text().splitlines() if path.exists() else []:
        with contextlib.suppress(json.JSONDecodeError):
            row: FailureRow = json.loads(line)
            latest.pop(row["key"], None)
            latest[row["key"]] = row
    return list(latest.values())


def _rewrite_failures(out: Path, done: dict[str, MatchRow]) -> None:
    """Keep in out/failures.jsonl only the latest row of each match still not played."""
    path = out / FAILURES
    kept = [row for row in failure_rows(out) if row["key"] not in done]
    staged = path.with_suffix(".jsonl.tmp")
    staged.write_text("".join(json.dumps(row) + "\n" for row in kept))
    staged.replace(path)


def run_tournament(
    games: list[str],
    agents: list[str],
    *,
    seeds: int = 1,
    swap_roles: bool = False,
    workers: int = 1,
    out: str | Path = "tournament",
    configs: dict[str, dict[str, JsonValue]] | None = None,
    agent_options: Mapping[str, object] | None = None,
    prices: Prices | None = None,
    registry: Registry | None = None,
    on_schedule: Callable[[int, int], None] | None = None,
    progress: Callable[[MatchRow], None] | None = None,
    on_failure: Callable[[FailureRow], None] | None = None,
) -> list[MatchRow]:
    """Play every scheduled match not yet in `out`; returns all rows of the schedule, in schedule order.

    `agent_options` go to every remote-kind agent (e.g. an `llm` agent's base_url or temperature) and
    are checked against what those kinds take before anything is played; `prices` (USD per million
    tokens by model) add costs to the rows. `on_schedule(scheduled, to_play)` is called once before
    play, `progress` with each new row as it lands, `on_failure` with each failure row
    ({key, error}) of this run.
    """
    if workers < 1:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "workers must be at least 1.")
    registry = registry or Registry()
    plans = schedule(registry, games, agents, seeds=seeds, swap_roles=swap_roles, configs=configs)
    kinds = {spec.partition(":")[0] for spec in agents}
    if agent_options:
        check_agent_options(registry, kinds & REMOTE_KINDS, agent_options)
    if prices is not None:
        _check_prices(registry, agents, prices)
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    done = finished_rows(directory)
    todo = [plan for plan in plans if plan.key not in done]
    if on_schedule is not None:
        on_schedule(len(plans), len(todo))
    with (directory / RESULTS).open("a") as results, (directory / FAILURES).open("a") as failures:

        def land(plan: MatchPlan, row: MatchRow | None, error: str | None) -> None:
            if row is None:
                failure: FailureRow = {"key": plan.key, "error": error or ""}
                failures.write(json.dumps(failure) + "\n")
                failures.flush()
                if on_failure is not None:
                    on_failure(failure)
                return
            done[plan.key] = row
            results.write(json.dumps(row, sort_keys=True) + "\n")
            results.flush()
            if progress is not None:
                progress(row)

        _run_local([p for p in todo if not p.remote], workers, agent_options, land)
        remote = [p for p in todo if p.remote]
        if remote:
            asyncio.run(_run_remote(remote, workers, agent_options, registry, land, prices))
    _rewrite_failures(directory, done)
    return [done[plan.key] for plan in plans if plan.key in done]


def _check_prices(registry: Registry, agents: list[str], prices: Prices) -> None:
    """A price table must price every model that an agent billing tokens plays (`bills_tokens`)."""
    billed = {
        spec.partition(":")[2]
        for spec in agents
        if getattr(registry.agents()[spec.partition(":")[0]], "bills_tokens", False)
    }
    missing = sorted(billed - set(prices))
    if missing:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"the price table has no prices for models {missing}.")


def _run_local(
    plans: list[MatchPlan],
    workers: int,
    options: Mapping[str, object] | None,
    land: Callable[[MatchPlan, MatchRow | None, str | None], None],
) -> None:
    """Scripted matches in chunks (one event loop per chunk): inline with one worker, else on spawned processes."""
    size = max(1, min(CHUNK, len(plans) // (workers * 4) or 1))
    chunks = [plans[i : i + size] for i in range(0, len(plans), size)]
    if workers == 1 or len(chunks) <= 1:
        for chunk in chunks:
            for plan, outcome in zip(chunk, _play_chunk(chunk, options), strict=True):
                land(plan, *outcome)
        return
    context = multiprocessing.get_context("spawn")  # fork is unsafe once threads (or JAX) run in this process
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(_play_chunk, chunk, options): chunk for chunk in chunks}
        for future in as_completed(futures):
            for plan, outcome in zip(futures[future], future.result(), strict=True):
                land(plan, *outcome)


async def _run_remote(
    plans: list[MatchPlan],
    concurrency: int,
    options: Mapping[str, object] | None,
    registry: Registry,
    land: Callable[[MatchPlan, MatchRow | None, str | None], None],
    prices: Prices | None = None,
) -> None:
    """Matches with remote seats, `concurrency` at a time, each in its own in-process arena."""
    gate = asyncio.Semaphore(concurrency)

    async def one(plan: MatchPlan) -> None:
        async with gate:
            try:
                row = await play_plan(plan, registry, options, prices)
            except Exception as exc:  # a remote seat fails however its client library does: log it, retry next run
                land(plan, None, f"{type(exc).__name__}: {exc}")
            else:
                land(plan, row, None)

    await asyncio.gather(*(one(plan) for plan in plans))


Outcome = tuple[MatchRow | None, str | None]


def _play_chunk(plans: list[MatchPlan], options: Mapping[str, object] | None) -> list[Outcome]:
    """Play matches one after another in one event loop (one registry per process); failures become error lines."""
    registry = installed_registry()

    async def play_all() -> list[Outcome]:
        outcomes: list[Outcome] = []
        for plan in plans:
            try:
                outcomes.append((await play_plan(plan, registry, options), None))
            except (NegotiationError, RuntimeError, ValueError) as exc:
                outcomes.append((None, f"{type(exc).__name__}: {exc}"))
        return outcomes

    return asyncio.run(play_all())


async def play_recorded(
    plan: MatchPlan, registry: Registry, options: Mapping[str, object] | None = None
) -> tuple[dict[str, Any], list[Recorder]]:
    """Play one scheduled match, each seat's agent in a `Recorder`: `play_match`'s result and the recorders.

    The match is the one `negotiation-platform play GAME --seed S --agents ...` plays: the same agents,
    seeded from the match seed and their seats, shown the same turn states.
    """
    recorders = [
        Recorder(_agent(registry, spec, random.Random(f"{plan.seed}:{seat}").getrandbits(32), options))
        for seat, spec in enumerate(plan.agents)
    ]
    arena = Arena(registry, new_match_id=lambda: "match")
    result = await play_match(arena, plan.game, list(recorders), config=plan.config, seed=plan.seed)
    return result, recorders


async def play_plan(
    plan: MatchPlan, registry: Registry, options: Mapping[str, object] | None = None, prices: Prices | None = None
) -> MatchRow:
    """Play one scheduled match and reduce it to a row: seat-ordered payoffs, BATNAs, surplus, roles and
    offers; for seats that keep a transcript (LLM seats), the transcripts, forfeits and usage too, and
    the seats that lost moves to their endpoints (`endpoint_failures`, only when some did)."""
    started = time.perf_counter()
    result, recorders = await play_recorded(plan, registry, options)
    seconds = time.perf_counter() - started
    seat_ids = list(result["players"])
    data = result["result"]["game_data"]
    names = list(_role_names(registry, plan.game, plan.config) or [])
    labels = [r.label or "" for r in recorders]
    roles = [names.index(label) for label in labels] if names and all(label in names for label in labels) else None
    row: MatchRow = {
        "key": plan.key,
        "game": plan.game,
        "config": plan.config,
        "seed": plan.seed,
        "agents": list(plan.agents),
        "roles": roles,
        "agreement": bool(result["agreement"]),
        "rounds": result["rounds"],
        "terms": result["terms"],
        "payoffs": [float(result["payoffs"][s]) for s in seat_ids],
        "batnas": [float(data["batnas"].get(s, 0.0)) for s in seat_ids],
        "surplus": [float(data["surplus"].get(s, result["payoffs"][s])) for s in seat_ids],
        "offers": [[seat, rnd, value] for seat, r in enumerate(recorders) for rnd, value in sorted(r.offers.items())],
        "seconds": round(seconds, 6),
    }
    transcripts = [getattr(r.agent, "transcript", None) for r in recorders]
    if any(t is not None for t in transcripts):
        row["transcripts"] = transcripts  # per seat, an llm seat's raw replies: the only large part of a row
        row["forfeits"] = forfeits(result["events"], seat_ids)
        row["usage"] = [seat_usage(r.agent, t, prices) for r, t in zip(recorders, transcripts, strict=True)]
        totals: Usage = {}
        for usage in row["usage"]:
            totals = add_usage(totals, usage) if usage is not None else totals
        row["usage_total"] = totals
    lost = seat_failures([r.agent for r in recorders], plan.agents)
    if lost:
        row[ENDPOINT_FAILURES] = [failure.model_dump() for failure in lost]
    return row


def forfeits(events: list[dict[str, Any]], seat_ids: list[str]) -> list[int]:
    """Per seat, how many of its moves its agent forfeited (the engine played the default for it)."""
    counts = dict.fromkeys(seat_ids, 0)
    for event in events:
        if event["kind"] == "timeout" and event["data"].get("forfeit"):
            for seat in event["data"]["players"]:
                counts[seat] += 1
    return [counts[seat] for seat in seat_ids]


def seat_usage(agent: object, transcript: Sequence[Mapping[str, object]] | None, prices: Prices | None) -> Usage | None:
    """A seat's calls, failed calls and tries, moves lost, tokens and seconds (None for seats without a
    transcript); priced when a table is given."""
    if transcript is None:
        return None
    usage = usage_totals(transcript)
    tally = tally_of(agent)
    if tally is not None:  # what the calls themselves counted, retries included
        usage.update(failed_calls=tally.failed_calls, failed_tries=tally.failed_tries, moves_lost=tally.moves_lost)
    model = getattr(agent, "model", None)
    if prices is not None and isinstance(model, str):
        usage["cost_usd"] = cost_usd(prices, model, usage)
    return usage


def _role_names(registry: Registry, game: str, config: dict[str, JsonValue] | None) -> tuple[str, ...]:
    """The game's role labels in role order (None for games without named roles), cached per game and config."""
    key = (game, json.dumps(config, sort_keys=True))
    if key not in _ROLE_NAMES:
        entry = registry.game(game)
        _ROLE_NAMES[key] = entry.cls.spec_for(entry.cls.parse_config(config)).roles.names
    return _ROLE_NAMES[key]


_ROLE_NAMES: dict[tuple[str, str], tuple[str, ...]] = {}


def _agent(registry: Registry, spec: str, seed: int, options: Mapping[str, object] | None) -> Agent:
    """`make_agent`, with the tournament's agent options for remote kinds (they take keyword options)."""
    options = options if spec.partition(":")[0] in REMOTE_KINDS else None
    return make_agent(registry, spec, seed, options, by=SeatedBy.OPERATOR)


class Recorder:
    """Wraps an agent to note, per round, how much of its bargaining range each of its offers keeps.

    position = (offer − reservation) / (best − reservation): 1 at its best outcome, 0 at walking away;
    for menu games the offer's utility to it against its BATNA and its best menu utility. It also
    notes the role label the seat was shown (`view.your_label`), to put seats in role order. Everything
    else is the agent's own (`observe` included), so the wrapped seat plays as the bare agent would.
    """

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.label: str | None = None
        self.offers: dict[int, float] = {}
        self.reads_prompt = reads_prompt(agent)
        self.reads_turn_in_place = reads_turn_in_place(agent)
        """As the agent it wraps (it reads the turn state in place, and passes it on)."""
        seen = getattr(agent, "observe", None)
        if seen is not None:  # the turns that are not its move: an agent that counts them must see them all
            self.observe: Callable[[dict[str, Any]], None] = seen

    def decide(self, turn: dict[str, Any]) -> Decision | Awaitable[Decision]:
        view = turn.get("view")
        if self.label is None and isinstance(view, dict) and isinstance(view.get("your_label"), str):
            self.label = view["your_label"]
        decided = self.agent.decide(turn)
        if inspect.isawaitable(decided):
            return self._noted(turn, decided)
        self._note(turn, decided)
        return decided

    async def _noted(self, turn: Mapping[str, object], decided: Awaitable[Decision]) -> Decision:
        decision = await decided
        self._note(turn, decision)
        return decision

    def _note(self, turn: Mapping[str, object], decision: Decision) -> None:
        position = bargaining(turn)
        if not position or decision.action != position.get("action"):
            return
        value = offer_position(position, decision.payload)
        played = turn.get("round", 0)
        if value is not None and isinstance(played, int | float):
            self.offers[int(played)] = round(value, 4)


def offer_position(position: BargainingPosition, payload: Mapping[str, JsonValue]) -> float | None:
    """Where an offer sits in the offerer's own range: 1 = its best outcome, 0 = its reservation/BATNA."""
    if "menu" in position:
        utility: JsonValue = menu_utility(position["menu"], payload)
        best, floor = max(item["utility"] for item in position["menu"]), position["batna"]
    else:
        utility = payload.get(position["field"])
        best, floor = position["best"], position["reservation"]
    if not isinstance(utility, int | float) or best == floor:
        return None
    return float((utility - floor) / (best - floor))
