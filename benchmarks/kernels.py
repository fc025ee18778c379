"""Every game's JAX kernel against the engine, with uniformly random legal play, in one run.

The engine plays whole matches through `Match` (random legal actions with random payloads that
satisfy each action's schema, a short message where a turn is talk only); the kernel runs
`rollout` (jit + vmap + lax.scan, finished matches restart, compilation excluded) at batches of
1, 64, 4,096 and 65,536. Both are compared in whole matches per second, with the engine's matches
taken at the length of the kernel's: where turns alternate (the kernel has `current_player`) one
env step is one move, and the two random players end matches after different numbers of moves
(uniform over action codes proposes far more often than uniform over action types), so the
engine's rate is its moves/s divided by the kernel's moves per match; elsewhere a match has the
same shape on both sides (fixed rounds, one sealed round, 120 steps) and is compared as it is.

    python benchmarks/kernels.py [--games split_100 company_car …] [--engine-seconds 2] [--batches 1 64 4096]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import jax

from negotiation_platform.agents.payloads import sample_payload
from negotiation_platform.engine import Match
from negotiation_platform.errors import NegotiationError
from negotiation_platform.kernels import kernel_for, kernel_games
from negotiation_platform.kernels.rollout import reset_batch, rollout
from negotiation_platform.registry import Registry

BATCHES = (1, 64, 4096, 65536)
TRIES = 20


def random_move(match: Match, player: str, rng: random.Random) -> None:
    """One random legal move (or a message where only talk is open); a forfeit after repeated refusals."""
    allowed = match.allowed_actions(player)
    if not allowed:
        match.send_message(player, "ok")
        return
    for _ in range(TRIES):
        action = rng.choice(allowed)
        try:
            match.submit(player, action.name, sample_payload(match.game.action_payload_schema(player, action), rng))
            return
        except NegotiationError:
            continue
    match.play_default(player, "benchmark: no legal payload found")


def engine_matches_per_second(registry: Registry, game_id: str, seconds: float) -> tuple[float, float]:
    """(matches/s, actions/s) of the engine under random legal play."""
    game = registry.game(game_id).cls
    players = [f"p{i}" for i in range(game.spec.roles.min_players)]
    rng = random.Random(0)
    matches = actions = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        match = Match(game, players, seed=matches)
        while not match.finished:
            for player in match.acting():
                if not match.finished:
                    random_move(match, player, rng)
                    actions += 1
        matches += 1
    elapsed = time.perf_counter() - started
    return matches / elapsed, actions / elapsed


def kernel_rates(registry: Registry, game_id: str, batch: int, repeats: int = 3) -> tuple[float, float]:
    """(matches/s, env-steps/s) of the kernel's random rollout at `batch` (median of `repeats`)."""
    env, params = kernel_for(registry, game_id)
    steps = max(100, min(2000, 2_000_000 // batch))
    _, state = reset_batch(env, jax.random.key(0), params, batch)
    jax.block_until_ready(rollout(env, params, jax.random.key(1), state, steps))  # compile
    timings = []
    for repeat in range(repeats):
        started = time.perf_counter()
        _, _, episodes = jax.block_until_ready(rollout(env, params, jax.random.key(2 + repeat), state, steps))
        timings.append((time.perf_counter() - started, int(episodes)))
    seconds, episodes = statistics.median(t for t, _ in timings), statistics.median(e for _, e in timings)
    return episodes / seconds, batch * steps / seconds


def moves_per_match(env: object, kernel_steps_per_match: float, engine_moves_per_match: float) -> float:
    """Engine moves that one of the kernel's matches stands for (see the module's docstring)."""
    return kernel_steps_per_match if hasattr(env, "current_player") else engine_moves_per_match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    registry = Registry()
    parser.add_argument("--games", nargs="*", default=sorted(kernel_games(registry)))
    parser.add_argument("--engine-seconds", type=float, default=2.0)
    parser.add_argument("--batches", type=int, nargs="*", default=list(BATCHES))
    args = parser.parse_args()
    print(f"devices: {jax.devices()}")
    for game_id in args.games:
        engine_matches, engine_actions = engine_matches_per_second(registry, game_id, args.engine_seconds)
        env, _ = kernel_for(registry, game_id)
        print(
            f"\n{game_id}: engine {engine_matches:,.0f} matches/s ({engine_actions:,.0f} moves/s, "
            f"{engine_actions / engine_matches:.1f} moves/match)"
        )
        print(f"{'batch':>7} {'kernel matches/s':>17} {'env-steps/s':>14} {'moves/match':>12} {'x engine':>10}")
        for batch in args.batches:
            matches, steps = kernel_rates(registry, game_id, batch)
            moves = moves_per_match(env, steps / matches, engine_actions / engine_matches)
            ratio = matches / (engine_actions / moves)
            print(f"{batch:>7,} {matches:>17,.0f} {steps:>14,.0f} {moves:>12.1f} {ratio:>9,.0f}x")


if __name__ == "__main__":
    main()
