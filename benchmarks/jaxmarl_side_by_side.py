"""Kernels beside JaxMARL's own environments, through one harness (needs `jaxmarl`, the `rl` extra).

Every environment runs as a JaxMARL `MultiAgentEnv` (ours through `kernels.marl.make`): uniformly
random action codes for every agent, JaxMARL's `step` with its reset inside, vmapped over the batch
and fused with `lax.scan`; compilation excluded, median of a few timed scans. The baseline in each
row is JaxMARL's Overcooked (a grid game of AdaSociety's size) at the same batch, measured in the
same run on the same device, so the ratio is the only figure to compare across machines.

    python benchmarks/jaxmarl_side_by_side.py [--device gpu] [--batches 4096 65536]
    python benchmarks/kernels.py --device gpu      # prints this table after its own
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import jax

OURS = ("adasociety", "trust_and_split", "deal_or_no_deal")
THEIRS = ("overcooked", "coin_game")
BASELINE = "overcooked"


def environment(name: str) -> Any:
    if name in THEIRS:
        import jaxmarl

        return jaxmarl.make(name)
    from negotiation_platform.kernels import marl

    return marl.make(name)


def env_steps_per_second(env: Any, batch: int, repeats: int = 3) -> float:
    """Median env-steps/s of `steps` random steps of `batch` matches (compiled before timing)."""
    steps = max(20, min(500, 4_000_000 // batch))

    def body(state: Any, key: jax.Array) -> tuple[Any, None]:
        act_key, step_key = jax.random.split(key)
        keys = jax.random.split(act_key, env.num_agents)
        actions = {
            agent: jax.random.randint(k, (batch,), 0, env.action_space(agent).n)
            for agent, k in zip(env.agents, keys, strict=True)
        }
        _, state, _, _, _ = jax.vmap(env.step)(jax.random.split(step_key, batch), state, actions)
        return state, None

    run = jax.jit(lambda state, key: jax.lax.scan(body, state, jax.random.split(key, steps))[0])
    _, state = jax.vmap(env.reset)(jax.random.split(jax.random.key(0), batch))
    jax.block_until_ready(run(state, jax.random.key(1)))
    timings = []
    for repeat in range(repeats):
        started = time.perf_counter()
        jax.block_until_ready(run(state, jax.random.key(2 + repeat)))
        timings.append(time.perf_counter() - started)
    return batch * steps / statistics.median(timings)


def side_by_side(batches: list[int]) -> None:
    print(f"\nbeside JaxMARL on {jax.devices()[0].device_kind} (random actions, step with reset, env-steps/s)")
    names = [*OURS, *THEIRS]
    print(f"{'batch':>9} " + " ".join(f"{name:>16}" for name in names) + f" {'adasociety/' + BASELINE:>22}")
    for batch in batches:
        rates = {name: env_steps_per_second(environment(name), batch) for name in names}
        cells = " ".join(f"{rates[name]:>16,.0f}" for name in names)
        print(f"{batch:>9,} {cells} {rates['adasociety'] / rates[BASELINE]:>21.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", choices=["cpu", "gpu"], default=None, help="where to run (default: JAX's)")
    parser.add_argument("--batches", type=int, nargs="*", default=[4096, 65536])
    args = parser.parse_args()
    with jax.default_device(jax.devices(args.device)[0] if args.device else None):
        side_by_side(args.batches)


if __name__ == "__main__":
    main()
