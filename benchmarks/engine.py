"""Engine overhead: split_100 matches played through `Match` versus the same game methods called directly.

Both sides play the identical script (alternating proposals for nine rounds, an accept in the
tenth) and are timed in the same run, so the printed ratio means something on a noisy machine.

    python benchmarks/engine.py [--matches N] [--repeats R]
"""

from __future__ import annotations

import argparse
import random
import time

from negotiation_platform.engine import Match
from negotiation_platform.games import PlayerAction, Split100Game

PLAYERS = ["a", "b"]


def script(seed: int) -> list[tuple[str, str, dict[str, int]]]:
    rng = random.Random(seed)
    moves = [(PLAYERS[i % 2], "propose", {"mine": rng.randint(40, 90)}) for i in range(19)]
    return [*moves, ("b", "accept", {})]


def through_engine(scripts: list[list[tuple[str, str, dict[str, int]]]]) -> int:
    actions = 0
    for seed, moves in enumerate(scripts):
        match = Match(Split100Game, PLAYERS, seed=seed)
        for player, action, payload in moves:
            match.submit(player, action, payload)
            actions += 1
        assert match.finished
    return actions


def direct(scripts: list[list[tuple[str, str, dict[str, int]]]]) -> int:
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
    return actions


def best_time(fn, scripts, repeats: int) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    best, count = float("inf"), 0
    for _ in range(repeats):
        start = time.perf_counter()
        count = fn(scripts)
        best = min(best, time.perf_counter() - start)
    return best, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    scripts = [script(seed) for seed in range(args.matches)]
    engine_s, actions = best_time(through_engine, scripts, args.repeats)
    direct_s, direct_actions = best_time(direct, scripts, args.repeats)
    assert actions == direct_actions
    print(f"matches: {args.matches}, actions: {actions} (best of {args.repeats})")
    print(f"through Match : {actions / engine_s:12,.0f} actions/s  ({engine_s * 1e3:.1f} ms)")
    print(f"direct game   : {actions / direct_s:12,.0f} actions/s  ({direct_s * 1e3:.1f} ms)")
    print(f"engine overhead ratio (Match time / direct time): {engine_s / direct_s:.1f}x")


if __name__ == "__main__":
    main()
