"""AdaSociety: the engine game and its JAX kernel, with random legal actions, measured in one run.

One env-step is every player acting once. The engine is stepped through `Match.submit` (the
path every agent takes), choosing uniformly among each player's legal actions; the kernel is
`rollout` (jit + vmap + lax.scan, finished matches reset in place, compilation excluded) at
batches of 1, 64, 4,096 and 65,536. Ratios are against the engine measured in the same run, and
against the original AdaSociety environment's 491 env-steps/s (its own RL-style loop with random
masked actions, measured on a 2-core machine like the CI's).

    python benchmarks/adasociety.py [--game adasociety|adasociety_hard] [--engine-seconds 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import jax

from negotiation_adasociety import AdaSocietyGame
from negotiation_platform.engine import Match
from negotiation_platform.kernels import kernel_for
from negotiation_platform.kernels.rollout import reset_batch, rollout
from negotiation_platform.registry import Registry

BATCHES = (1, 64, 4096, 65536)
ORIGINAL_STEPS_PER_SECOND = 491.0


def engine_steps_per_second(game: type[AdaSocietyGame], seconds: float) -> float:
    rng = random.Random(0)
    players = [f"p{i}" for i in range(game.Config().num_players)]
    steps, seed, started = 0, 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        seed += 1
        match = Match(game, players, seed=seed)
        legal = match.game.legal_actions  # type: ignore[attr-defined]
        while not match.finished:
            for player in match.acting():
                action = dict(rng.choice(legal(player)))
                match.submit(player, action.pop("type"), action)
            steps += 1
    return steps / (time.perf_counter() - started)


def kernel_steps_per_second(registry: Registry, game_id: str, batch: int, repeats: int) -> float:
    env, params = kernel_for(registry, game_id)
    steps = max(120, min(1200, 4_000_000 // batch))
    _, state = reset_batch(env, jax.random.key(0), params, batch)
    jax.block_until_ready(rollout(env, params, jax.random.key(1), state, steps))  # compile
    times = []
    for repeat in range(repeats):
        started = time.perf_counter()
        jax.block_until_ready(rollout(env, params, jax.random.key(2 + repeat), state, steps))
        times.append(time.perf_counter() - started)
    return batch * steps / statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="adasociety", choices=["adasociety", "adasociety_hard"])
    parser.add_argument("--engine-seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batches", type=int, nargs="*", default=list(BATCHES))
    args = parser.parse_args()
    registry = Registry()
    engine = engine_steps_per_second(registry.game(args.game).cls, args.engine_seconds)
    print(f"{args.game} on {jax.devices()}")
    print(f"engine (Match.submit, random legal actions): {engine:,.0f} env-steps/s")
    print(f"  vs the original AdaSociety environment's {ORIGINAL_STEPS_PER_SECOND:,.0f}/s: ", end="")
    print(f"{engine / ORIGINAL_STEPS_PER_SECOND:.1f}x")
    print(f"{'batch':>7} {'kernel env-steps/s':>20} {'x engine':>10} {'x original':>11}")
    for batch in args.batches:
        kernel = kernel_steps_per_second(registry, args.game, batch, args.repeats)
        print(f"{batch:>7,} {kernel:>20,.0f} {kernel / engine:>9,.0f}x {kernel / ORIGINAL_STEPS_PER_SECOND:>10,.0f}x")


if __name__ == "__main__":
    main()
