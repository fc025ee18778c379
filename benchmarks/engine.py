"""Engine overhead: split_100 matches played through `Match`, through the in-process arena
(`play_match`, which plays an in-process arena's seats through their typed `LocalSeat`s, and the
same arena reached through its JSON operations only, as a transport's client reaches it), and by
calling the game's methods directly; memory held by a finished match; and, when they are
installed (the `bench` extra), OpenSpiel's `bargaining` and TextArena's `SimpleNegotiation-v0` in
the same run. It ends with each target of the engine and whether it holds in this run:
`play_match` at most 4× `Match`'s time per action, `Match` at most 3× the direct calls' time per
action, and `Match`'s actions/s at least 0.5× OpenSpiel `bargaining`'s and at least 6× TextArena
`SimpleNegotiation-v0`'s (a target whose side is not installed is said to be not measured).

Every side plays fixed work (split_100: the same script of alternating proposals for nine rounds
and an accept in the tenth; OpenSpiel: uniformly random legal actions, the uniform instance draw
taken from a list fetched once rather than from `chance_outcomes()` every match, which would add
a 1,000-entry list per match to its time; TextArena: scripted valid offers and an accept, in a
fresh environment per match). The
sides are timed in interleaved rounds, each round by the wall clock and by the process's CPU time
(what the process itself spent: other processes on a shared machine do not add to it). Each
side's figure is its best round, the one least disturbed by load; the targets compare best CPU
times, and the wall-clock ratios of the best rounds are printed beside them. The Python calls each
side makes per action are counted too (a profile hook over 20 matches): a figure no load moves.

    python benchmarks/engine.py [--matches N] [--repeats R]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from negotiation_platform.agents.base import Decision
from negotiation_platform.agents.driver import play_match
from negotiation_platform.arena import Arena
from negotiation_platform.engine import Match
from negotiation_platform.games import PlayerAction, Split100Game
from negotiation_platform.registry import Registry

PLAYERS = ["a", "b"]
Move = tuple[str, str, dict[str, int]]


@dataclass
class Work:
    """What one timed call did: actions taken and matches played."""

    actions: int
    matches: int


def script(seed: int) -> list[Move]:
    rng = random.Random(seed)
    moves = [(PLAYERS[i % 2], "propose", {"mine": rng.randint(40, 90)}) for i in range(19)]
    return [*moves, ("b", "accept", {})]


def play_through_match(moves: list[Move], seed: int) -> Match:
    match = Match(Split100Game, PLAYERS, seed=seed)
    for player, action, payload in moves:
        match.submit(player, action, payload)
    assert match.finished
    return match


def through_match(scripts: list[list[Move]]) -> Work:
    for seed, moves in enumerate(scripts):
        play_through_match(moves, seed)
    return Work(sum(map(len, scripts)), len(scripts))


def direct(scripts: list[list[Move]]) -> Work:
    actions = 0
    for seed, moves in enumerate(scripts):
        game = Split100Game(game_id="bench", rng=random.Random(seed))
        game.initialize_game(PLAYERS)
        for turn, (player, action, payload) in enumerate(moves):
            if turn % 2 == 0:
                game.begin_round(turn // 2 + 1)
            game.process_action(PlayerAction(player, action, dict(payload), float(turn), game.current_round))
            actions += 1
            if game.check_end_conditions():
                break
        game.calculate_scores()
    return Work(actions, len(scripts))


class ScriptedSeat:
    """Hands out its seat's moves of a script in order, reading nothing but whose turn it is: the decisions
    are made once, before timing, as `Match`'s side gets its script's moves made."""

    reads_prompt = False
    reads_turn_in_place = True

    def __init__(self, name: str, decisions: list[Decision]) -> None:
        self.name = name
        self._next = iter(decisions).__next__

    def decide(self, turn: dict[str, Any]) -> Decision:
        return self._next()


def decisions(moves: list[Move]) -> dict[str, list[Decision]]:
    """Each seat's decisions of a script, in order."""
    return {name: [Decision(action=a, payload=p) for player, a, p in moves if player == name] for name in PLAYERS}


class JsonOperations:
    """An in-process arena reached through its JSON operations only (not an `Arena`, so `play_match` plays
    its seats by their operations, as it plays a transport client's)."""

    def __init__(self, arena: Arena) -> None:
        for name in ("start_game", "join_game", "get_turn_state", "perform_action", "play_default", "get_result"):
            setattr(self, name, getattr(arena, name))


def through_arena(
    scripts: list[list[Move]], seats: list[dict[str, list[Decision]]], registry: Registry, *, typed: bool = True
) -> Work:
    async def play_all() -> None:
        arena = Arena(registry)
        api: Any = arena if typed else JsonOperations(arena)
        for seed, decided in enumerate(seats):
            result = await play_match(api, "split_100", [ScriptedSeat(p, decided[p]) for p in PLAYERS], seed=seed)
            assert result["status"] == "finished"

    asyncio.run(play_all())
    return Work(sum(map(len, scripts)), len(scripts))


def openspiel_bargaining(matches: int) -> Work:
    """OpenSpiel's C++ `bargaining`, driven from Python with uniformly random legal actions."""
    import pyspiel

    game = pyspiel.load_game("bargaining")
    outcomes = game.new_initial_state().chance_outcomes()
    assert len({p for _, p in outcomes}) == 1, "the instance draw is uniform, so it is sampled from a fixed list"
    instances = [a for a, _ in outcomes]
    rng = random.Random(0)
    actions = 0
    for _ in range(matches):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(instances))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                actions += 1
    return Work(actions, matches)


def textarena_negotiation(matches: int) -> Work:
    """TextArena's `SimpleNegotiation-v0`, a fresh environment per match, scripted valid moves.

    Fresh, as `Match` is: one environment reset again and again slows down as it is reused (6.5k
    actions/s over its first 25 matches, 1.1k over matches 75 to 100, on this machine), which would
    flatter the engine."""
    import textarena

    actions = 0
    for seed in range(matches):
        env = textarena.make("SimpleNegotiation-v0")
        env.reset(num_players=2, seed=seed)
        done, turn = False, 0
        while not done:
            env.get_observation()
            done, _ = env.step("[Accept]" if turn % 4 == 3 else "[Offer: 1 Wheat -> 1 Wood]")
            turn += 1
        actions += turn
        env.close()
    return Work(actions, matches)


def importable(module: str) -> bool:
    try:
        __import__(module)
    except Exception:  # a broken optional install counts as absent
        return False
    return True


@dataclass
class Timing:
    """A side's best round: its actions/s and matches/s by wall clock, its actions/s by CPU time, and
    its wall-clock seconds."""

    actions_s: float
    matches_s: float
    cpu_actions_s: float
    seconds: float


def best_rates(sides: dict[str, Callable[[], Work]], repeats: int) -> dict[str, Timing]:
    """Per side, its best of `repeats` interleaved rounds by wall clock and (separately) by CPU time."""
    samples: dict[str, list[tuple[float, float, Work]]] = {name: [] for name in sides}
    for _ in range(repeats):
        for name, run in sides.items():
            gc.collect()
            start, cpu = time.perf_counter(), time.process_time()
            work = run()
            samples[name].append((time.perf_counter() - start, time.process_time() - cpu, work))
    timings = {}
    for name, runs in samples.items():
        wall, _, work = min(runs, key=lambda r: r[0])
        _, cpu_seconds, cpu_work = min(runs, key=lambda r: r[1])
        timings[name] = Timing(work.actions / wall, work.matches / wall, cpu_work.actions / cpu_seconds, wall)
    return timings


def calls_per_action(run: Callable[[], Work]) -> float:
    """Python function calls (coroutine resumptions included) per action of one run, counted by a profile
    hook: the same in every run, however loaded the machine, where times are not."""
    calls = 0

    def hook(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(hook)
    try:
        work = run()
    finally:
        sys.setprofile(None)
    return calls / work.actions


def deep_size(root: object) -> int:
    """Bytes of `root` and everything it reaches through containers and instance attributes (each once)."""
    seen: set[int] = set()
    stack = [root]
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            stack.extend(obj)
        else:
            stack.extend(getattr(obj, "__dict__", {}).values())
            stack.extend(getattr(obj, slot) for slot in getattr(type(obj), "__slots__", ()) if hasattr(obj, slot))
    return total


def held_per_match(scripts: list[list[Move]]) -> tuple[float, float]:
    """Bytes a finished match keeps alive (tracemalloc, caches already warm), and the share of its event log."""
    play_through_match(scripts[0], 0)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [play_through_match(moves, seed) for seed, moves in enumerate(scripts)]
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    events = statistics.mean(deep_size(match.events) for match in kept)
    return held / len(kept), events


@dataclass
class Target:
    """One target of the engine: a ratio of two sides' actions/s in this run, and its bound."""

    text: str
    bound: float
    at_most: bool
    """Whether the ratio must stay at or under the bound (else at or over it)."""
    cpu: float | None
    """The ratio by CPU time (None: a side not installed)."""
    wall: float | None
    """The ratio by wall clock."""

    def holds(self) -> bool | None:
        if self.cpu is None:
            return None
        return self.cpu <= self.bound if self.at_most else self.cpu >= self.bound


def targets(rates: dict[str, Timing]) -> list[Target]:
    """The engine's four targets, each as a ratio of two sides' actions/s in this run."""

    def ratio(over: str, under: str) -> tuple[float | None, float | None]:
        if over not in rates or under not in rates:
            return None, None
        return (
            rates[over].cpu_actions_s / rates[under].cpu_actions_s,
            rates[over].actions_s / rates[under].actions_s,
        )

    return [
        Target(
            "play_match time per action <= 4x Match's", 4.0, True, *ratio("through Match", "through Arena (play_match)")
        ),
        Target("Match time per action <= 3x the direct calls'", 3.0, True, *ratio("direct game", "through Match")),
        Target(
            "Match actions/s >= 0.5x OpenSpiel bargaining's",
            0.5,
            False,
            *ratio("through Match", "OpenSpiel bargaining"),
        ),
        Target(
            "Match actions/s >= 6x TextArena SimpleNegotiation's",
            6.0,
            False,
            *ratio("through Match", "TextArena SimpleNegotiation"),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    scripts = [script(seed) for seed in range(args.matches)]
    seats = [decisions(moves) for moves in scripts]
    registry = Registry()  # found once: discovering the installed games is no part of playing
    sides: dict[str, Callable[[], Work]] = {
        "through Match": lambda: through_match(scripts),
        "direct game": lambda: direct(scripts),
        "through Arena (play_match)": lambda: through_arena(scripts, seats, registry),
        "through Arena, JSON ops": lambda: through_arena(scripts, seats, registry, typed=False),
    }
    few, decided = scripts[:20], seats[:20]
    counting: dict[str, Callable[[], Work]] = {
        "direct game": lambda: direct(few),
        "through Match": lambda: through_match(few),
        "through Arena (play_match)": lambda: through_arena(few, decided, registry),
    }
    skipped = []
    for label, module, run in [
        ("OpenSpiel bargaining", "pyspiel", lambda: openspiel_bargaining(args.matches)),
        ("TextArena SimpleNegotiation", "textarena", lambda: textarena_negotiation(args.matches)),
    ]:
        if importable(module):
            sides[label] = run
        else:
            skipped.append(f"{label} skipped: {module} not importable (pip install -e '.[bench]')")
    rates = best_rates(sides, args.repeats)
    print(
        f"split_100: {args.matches} matches of {len(scripts[0])} actions; best of {args.repeats} interleaved rounds "
        "(by CPU time, and by wall clock)"
    )
    for name, t in rates.items():
        print(
            f"{name:<28}: {t.cpu_actions_s:12,.0f} actions/s CPU {t.actions_s:12,.0f} actions/s wall "
            f"{t.matches_s:10,.0f} matches/s  ({t.seconds * 1e3:.1f} ms)"
        )
    for line in skipped:
        print(line)
    json_ops = rates["through Match"].cpu_actions_s / rates["through Arena, JSON ops"].cpu_actions_s
    print(f"arena overhead, JSON operations (play_match over them: time / Match time per action, CPU): {json_ops:.2f}x")
    counted = {name: calls_per_action(run) for name, run in counting.items()}
    print(
        "Python calls per action (counted, the same in every run): "
        + ", ".join(f"{name} {calls:.1f}" for name, calls in counted.items())
        + f"; play_match/Match {counted['through Arena (play_match)'] / counted['through Match']:.2f}x"
    )
    for target in targets(rates):
        if target.cpu is None:
            print(f"target {target.text}: not measured (its side is skipped, above)")
            continue
        verdict = "holds" if target.holds() else "MISSED"
        print(f"target {target.text}: {target.cpu:.2f}x by CPU time (wall clock {target.wall:.2f}x), {verdict}")
    held, events = held_per_match(scripts[: min(200, len(scripts))])
    print(f"memory held by a finished match: {held / 1024:.1f} KB (its event log: {events / 1024:.1f} KB)")


if __name__ == "__main__":
    main()
