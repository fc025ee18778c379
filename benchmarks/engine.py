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
sides are timed in interleaved rounds and each figure is the median over the rounds, so a ratio
compares numbers taken under the same load on a shared machine.

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
    """Plays its seat's moves of a script in order, reading nothing but whose turn it is."""

    reads_prompt = False
    reads_turn_in_place = True

    def __init__(self, name: str, moves: list[Move]) -> None:
        self.name = name
        self._moves = iter([(action, payload) for player, action, payload in moves if player == name])

    def decide(self, turn: dict[str, Any]) -> Decision:
        action, payload = next(self._moves)
        return Decision(action=action, payload=dict(payload))


class JsonOperations:
    """An in-process arena reached through its JSON operations only (not an `Arena`, so `play_match` plays
    its seats by their operations, as it plays a transport client's)."""

    def __init__(self, arena: Arena) -> None:
        for name in ("start_game", "join_game", "get_turn_state", "perform_action", "play_default", "get_result"):
            setattr(self, name, getattr(arena, name))


def through_arena(scripts: list[list[Move]], registry: Registry, *, typed: bool = True) -> Work:
    async def play_all() -> None:
        arena = Arena(registry)
        api: Any = arena if typed else JsonOperations(arena)
        for seed, moves in enumerate(scripts):
            result = await play_match(api, "split_100", [ScriptedSeat(p, moves) for p in PLAYERS], seed=seed)
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


def median_rates(sides: dict[str, Callable[[], Work]], repeats: int) -> dict[str, tuple[float, float, float]]:
    """Per side: median actions/s, median matches/s and median seconds, over interleaved rounds."""
    samples: dict[str, list[tuple[float, Work]]] = {name: [] for name in sides}
    for _ in range(repeats):
        for name, run in sides.items():
            gc.collect()
            start = time.perf_counter()
            work = run()
            samples[name].append((time.perf_counter() - start, work))
    return {
        name: (
            statistics.median(w.actions / s for s, w in runs),
            statistics.median(w.matches / s for s, w in runs),
            statistics.median(s for s, _ in runs),
        )
        for name, runs in samples.items()
    }


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


Target = tuple[str, float | None, float, str]
"""What a target says, this run's ratio (None: a side not installed), its bound, and which side of it holds."""


def targets(rates: dict[str, tuple[float, float, float]]) -> list[Target]:
    """The engine's four targets, each as a ratio of two sides' actions/s in this run."""
    match_rate = rates["through Match"][0]

    def versus(label: str) -> float | None:
        return match_rate / rates[label][0] if label in rates else None

    return [
        ("play_match time per action <= 4x Match's", match_rate / rates["through Arena (play_match)"][0], 4.0, "<="),
        ("Match time per action <= 3x the direct calls'", rates["direct game"][0] / match_rate, 3.0, "<="),
        ("Match actions/s >= 0.5x OpenSpiel bargaining's", versus("OpenSpiel bargaining"), 0.5, ">="),
        ("Match actions/s >= 6x TextArena SimpleNegotiation's", versus("TextArena SimpleNegotiation"), 6.0, ">="),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    scripts = [script(seed) for seed in range(args.matches)]
    registry = Registry()  # found once: discovering the installed games is no part of playing
    sides: dict[str, Callable[[], Work]] = {
        "through Match": lambda: through_match(scripts),
        "direct game": lambda: direct(scripts),
        "through Arena (play_match)": lambda: through_arena(scripts, registry),
        "through Arena, JSON ops": lambda: through_arena(scripts, registry, typed=False),
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
    rates = median_rates(sides, args.repeats)
    print(
        f"split_100: {args.matches} matches of {len(scripts[0])} actions; median of {args.repeats} interleaved rounds"
    )
    for name, (actions_s, matches_s, seconds) in rates.items():
        print(f"{name:<28}: {actions_s:12,.0f} actions/s {matches_s:10,.0f} matches/s  ({seconds * 1e3:.1f} ms)")
    for line in skipped:
        print(line)
    match_rate = rates["through Match"][0]
    print(
        "arena overhead, JSON operations (play_match over them: time / Match time per action): "
        f"{match_rate / rates['through Arena, JSON ops'][0]:.2f}x"
    )
    for text, ratio, bound, sense in targets(rates):
        if ratio is None:
            print(f"target {text}: not measured (its side is skipped, above)")
            continue
        holds = ratio <= bound if sense == "<=" else ratio >= bound
        print(f"target {text}: {ratio:.2f}x, {'holds' if holds else 'MISSED'}")
    held, events = held_per_match(scripts[: min(200, len(scripts))])
    print(f"memory held by a finished match: {held / 1024:.1f} KB (its event log: {events / 1024:.1f} KB)")


if __name__ == "__main__":
    main()
