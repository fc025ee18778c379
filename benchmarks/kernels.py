"""JAX kernel throughput against the engine, for the same game and the same random policy, in one run.

For batches of 1, 64, 4,096 and 65,536 matches it times `rollout` (jit + vmap + lax.scan, finished
matches reset in place, compilation excluded) and prints env-steps per second next to the engine's
steps per second (Match.submit with uniformly random legal moves, in Python, measured in this run),
and their ratio.

    python benchmarks/kernels.py [--game split_100|company_car] [--engine-seconds 2]
"""

from __future__ import annotations

import argparse
import random
import time

import jax

from negotiation_platform.engine import Match
from negotiation_platform.kernels import kernel_for
from negotiation_platform.kernels.rollout import reset_batch, rollout
from negotiation_platform.registry import Registry

BATCHES = (1, 64, 4096, 65536)


def random_payload(name: str, rng: random.Random) -> dict[str, float]:
    if name == "propose":
        return {"mine": rng.randint(0, 100)}
    if name == "offer":
        return {"price": rng.uniform(10000, 100000)}
    return {}


def engine_steps_per_second(registry: Registry, game_id: str, seconds: float) -> float:
    game = registry.game(game_id).cls
    rng = random.Random(0)
    steps, started, seed = 0, time.perf_counter(), 0
    while time.perf_counter() - started < seconds:
        match = Match(game, ["a", "b"], seed=seed)
        seed += 1
        while not match.finished:
            player = match.acting()[0]
            name = rng.choice([a.name for a in match.allowed_actions(player)])
            match.submit(player, name, random_payload(name, rng))
            steps += 1
    return steps / (time.perf_counter() - started)


def kernel_steps_per_second(registry: Registry, game_id: str, batch: int) -> float:
    env, params = kernel_for(registry, game_id)
    steps = max(50, min(2000, 2_000_000 // batch))
    _, state = reset_batch(env, jax.random.key(0), params, batch)
    jax.block_until_ready(rollout(env, params, jax.random.key(1), state, steps))  # compile
    best = float("inf")
    for repeat in range(3):
        started = time.perf_counter()
        jax.block_until_ready(rollout(env, params, jax.random.key(2 + repeat), state, steps))
        best = min(best, time.perf_counter() - started)
    return batch * steps / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="split_100")
    parser.add_argument("--engine-seconds", type=float, default=2.0)
    args = parser.parse_args()
    registry = Registry()
    engine = engine_steps_per_second(registry, args.game, args.engine_seconds)
    print(f"{args.game} on {jax.devices()}; engine (Match, Python): {engine:,.0f} steps/s")
    print(f"{'batch':>7} {'kernel env-steps/s':>20} {'engine steps/s':>16} {'ratio':>9}")
    for batch in BATCHES:
        kernel = kernel_steps_per_second(registry, args.game, batch)
        print(f"{batch:>7,} {kernel:>20,.0f} {engine:>16,.0f} {kernel / engine:>8,.0f}x")


if __name__ == "__main__":
    main()
