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

The engine and the kernel are timed in interleaved rounds (a slice of engine time, then one
rollout at each batch), and each ratio is the median of the rounds' ratios, so both sides of a
ratio are measured under the same load on a shared machine.

    python benchmarks/kernels.py [--games split_100 company_car …] [--engine-seconds 2] [--batches 1 64 4096]
                                 [--rounds 5] [--device cpu|gpu] [--formulation cpu|accelerator]
                                 [--footprint-only]

First it prints each kernel's footprint in every formulation it has (`kernels.footprint`): the `while`
loops of its compiled one-step rollout, and the bytes of one match's state and observations, each with
whether it holds the accelerator target (`STATE_TARGET`, `OBSERVATION_TARGET`).

With `jaxmarl` installed (the `rl` extra) it then prints AdaSociety and two coin games beside
JaxMARL's Overcooked and coin_game at the batches of 4,096 and more (`jaxmarl_side_by_side.py`).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import time
from typing import Any

import jax

from negotiation_platform.agents.payloads import sample_payload
from negotiation_platform.engine import Match
from negotiation_platform.errors import NegotiationError
from negotiation_platform.kernels import kernel_for, kernel_games
from negotiation_platform.kernels.footprint import OBSERVATION_TARGET, STATE_TARGET, match_bytes, step_loops
from negotiation_platform.kernels.rollout import reset_batch, rollout
from negotiation_platform.registry import FORMULATIONS, FormulatedKernelFactory, Registry

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


class Engine:
    """The engine under random legal play, timed in slices between the kernel's timings."""

    def __init__(self, registry: Registry, game_id: str) -> None:
        self.game = registry.game(game_id).cls
        self.players = [f"p{i}" for i in range(self.game.spec.roles.min_players)]
        self.rng = random.Random(0)
        self.matches = self.actions = 0

    def run(self, seconds: float) -> tuple[int, int, float]:
        """Play whole matches for about `seconds`; (matches, actions, seconds taken)."""
        matches = actions = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            match = Match(self.game, self.players, seed=self.matches + matches)
            while not match.finished:
                for player in match.acting():
                    if not match.finished:
                        random_move(match, player, self.rng)
                        actions += 1
            matches += 1
        self.matches, self.actions = self.matches + matches, self.actions + actions
        return matches, actions, time.perf_counter() - started


class Kernel:
    """The kernel's random rollout at one batch size, compiled once, timed one rollout at a time."""

    def __init__(self, registry: Registry, game_id: str, batch: int, formulation: str | None) -> None:
        self.env, self.params = kernel_for(registry, game_id, formulation=formulation)
        self.batch = batch
        self.steps = max(100, min(2000, 2_000_000 // batch))
        _, self.state = reset_batch(self.env, jax.random.key(0), self.params, batch)
        jax.block_until_ready(self._rollout(jax.random.key(1)))  # compile

    def _rollout(self, key: jax.Array) -> tuple[Any, jax.Array, jax.Array]:
        return rollout(self.env, self.params, key, self.state, self.steps)

    def run(self, seed: int) -> tuple[int, int, float]:
        """One timed rollout; (episodes finished, env-steps, seconds)."""
        started = time.perf_counter()
        _, _, episodes = jax.block_until_ready(self._rollout(jax.random.key(seed)))
        return int(episodes), self.batch * self.steps, time.perf_counter() - started


def moves_per_match(env: object, kernel_steps_per_match: float, engine_moves_per_match: float) -> float:
    """Engine moves that one of the kernel's matches stands for (see the module's docstring)."""
    return kernel_steps_per_match if hasattr(env, "current_player") else engine_moves_per_match


def footprints(registry: Registry, games: list[str]) -> None:
    """Print each game's kernel footprint in each of its formulations (one, for a kernel that has one)."""
    state_target, observation_target = f"<= {STATE_TARGET:,}", f"<= {OBSERVATION_TARGET:,}"
    print(
        f"{'kernel':>16} {'formulation':>12} {'while loops':>12} {'state B':>8} {state_target:>8} "
        f"{'observation B':>14} {observation_target:>8}"
    )
    for game_id in games:
        factory = kernel_games(registry)[game_id]
        for formulation in FORMULATIONS if isinstance(factory, FormulatedKernelFactory) else ("(one)",):
            env, params = kernel_for(registry, game_id, formulation=None if formulation == "(one)" else formulation)
            state, observation = match_bytes(env, params)
            loops = step_loops(env, params)
            print(
                f"{game_id:>16} {formulation:>12} {loops:>12} {state:>8,} {_holds(state, STATE_TARGET):>8} "
                f"{observation:>14,} {_holds(observation, OBSERVATION_TARGET):>8}"
            )


def _holds(value: int, target: int) -> str:
    return "yes" if value <= target else "no"


def compare(
    registry: Registry, game_id: str, batches: list[int], engine_seconds: float, rounds: int, formulation: str | None
) -> None:
    """Time the engine and the kernel at every batch in `rounds` interleaved rounds, and print each
    batch's medians and its median ratio over the rounds (a ratio of two timings taken side by side)."""
    engine = Engine(registry, game_id)
    kernels = [Kernel(registry, game_id, batch, formulation) for batch in batches]
    samples: list[tuple[tuple[int, int, float], list[tuple[int, int, float]]]] = []
    for round_index in range(rounds):
        engine_sample = engine.run(engine_seconds / rounds)
        samples.append((engine_sample, [kernel.run(2 + round_index) for kernel in kernels]))
    engine_moves = engine.actions / engine.matches
    print(
        f"\n{game_id}: engine {statistics.median(m / s for (m, _, s), _ in samples):,.0f} matches/s "
        f"({statistics.median(a / s for (_, a, s), _ in samples):,.0f} moves/s, {engine_moves:.1f} moves/match)"
    )
    print(f"{'batch':>7} {'kernel matches/s':>17} {'env-steps/s':>14} {'moves/match':>12} {'x engine':>10}")
    for index, kernel in enumerate(kernels):
        runs = [(engine_sample, kernel_samples[index]) for engine_sample, kernel_samples in samples]
        episodes = sum(e for _, (e, _, _) in runs)
        steps = sum(n for _, (_, n, _) in runs)
        moves = moves_per_match(kernel.env, steps / max(episodes, 1), engine_moves)
        ratios = [(e / k_s) / (a / e_s / moves) for (_, a, e_s), (e, _, k_s) in runs]
        matches_s = statistics.median(e / k_s for _, (e, _, k_s) in runs)
        steps_s = statistics.median(n / k_s for _, (_, n, k_s) in runs)
        ratio = statistics.median(ratios)
        print(f"{kernel.batch:>7,} {matches_s:>17,.0f} {steps_s:>14,.0f} {moves:>12.1f} {ratio:>9,.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    registry = Registry()
    parser.add_argument("--games", nargs="*", default=sorted(kernel_games(registry)))
    parser.add_argument("--engine-seconds", type=float, default=2.0, help="engine time per game, over all rounds")
    parser.add_argument("--batches", type=int, nargs="*", default=list(BATCHES))
    parser.add_argument("--rounds", type=int, default=5, help="interleaved engine/kernel rounds per game")
    parser.add_argument("--device", choices=["cpu", "gpu"], default=None, help="where kernels run (default: JAX's)")
    parser.add_argument(
        "--formulation", choices=FORMULATIONS, default=None, help="the kernels' formulation (default: by backend)"
    )
    parser.add_argument("--footprint-only", action="store_true", help="print the footprints, time nothing")
    args = parser.parse_args()
    with jax.default_device(jax.devices(args.device)[0] if args.device else None):
        print(f"devices: {jax.devices(args.device)}")
        footprints(registry, args.games)
        if args.footprint_only:
            return
        for game_id in args.games:
            compare(registry, game_id, args.batches, args.engine_seconds, args.rounds, args.formulation)
        if importlib.util.find_spec("jaxmarl") is not None:
            from jaxmarl_side_by_side import side_by_side

            side_by_side([batch for batch in args.batches if batch >= 4096] or [4096])


if __name__ == "__main__":
    main()
