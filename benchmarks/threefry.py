"""The kernels' fused Threefry against `jax.random.bits`, the same words, in one run.

Each side draws a batch's words at every step of a `lax.scan`, as a rollout does, and is timed
in interleaved rounds (median); the ratio is jax.random's time over the fused one's.

    python benchmarks/threefry.py [--batch 4096] [--steps 200] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp

from negotiation_platform.kernels import threefry

Draw = Callable[[jax.Array, tuple[int, ...]], jax.Array]


def scanned(draw: Draw, batch: int, steps: int) -> Callable[[jax.Array], jax.Array]:
    """A jitted scan that draws `batch` words per step with `draw` and folds them together."""

    def body(carry: tuple[jax.Array, jax.Array], _: None) -> tuple[tuple[jax.Array, jax.Array], None]:
        key, folded = carry
        key, subkey = threefry.split(key)
        return (key, folded ^ draw(subkey, (batch,))), None

    return jax.jit(lambda key: jax.lax.scan(body, (key, jnp.zeros(batch, jnp.uint32)), None, length=steps)[0][1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    sides = {"jax.random.bits": jax.random.bits, "threefry.bits (fused)": threefry.bits}
    runs = {name: scanned(draw, args.batch, args.steps) for name, draw in sides.items()}
    words = [jax.block_until_ready(run(jax.random.key(0))) for run in runs.values()]
    assert all((w == words[0]).all() for w in words), "both sides must draw the same words"
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for round_index in range(args.rounds):
        for name, run in runs.items():
            started = time.perf_counter()
            jax.block_until_ready(run(jax.random.key(round_index + 1)))
            seconds[name].append(time.perf_counter() - started)
    print(f"devices: {jax.devices()}; {args.batch:,} words per step, {args.steps} steps, median of {args.rounds}")
    per_word = {name: statistics.median(s) / (args.batch * args.steps) * 1e9 for name, s in seconds.items()}
    for name, ns in per_word.items():
        print(f"{name:<24}: {ns:6.2f} ns per word")
    print(f"fused speed-up: {per_word['jax.random.bits'] / per_word['threefry.bits (fused)']:.2f}x")


if __name__ == "__main__":
    main()
