"""Forms of kernel code that XLA on a CPU runs at very different speeds, each against its plain form.

Each line times a kernel's jitted, vmapped step with one helper swapped for its plain equivalent, in
interleaved rounds (the two variants alternate, so both see the same load), and prints the median
ratio of plain time to helper time (above 1: the helper pays):

- `sampling.computed_once` in AdaSociety's step (read back through an argmax for its 27 moves,
  divided for the hard preset's 37) against using the values as they are;
- `sampling.uniform_order` (one draw, read from a table of every order) against a sort
  (`threefry.permutation`), in the hard preset's step (8 players);
- `selects.entry` (a chain of selects) against a gather, in company_car's step.

    python benchmarks/kernel_forms.py [--batch 4096] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any
from unittest import mock

import jax
import jax.numpy as jnp

from negotiation_platform.kernels import kernel_for, threefry
from negotiation_platform.kernels.rollout import match_keys, reset_batch
from negotiation_platform.registry import Registry


def step_timer(game_id: str, batch: int) -> Callable[[], float]:
    """Compiles the game's step under whatever is patched now; returns a timer of one batched step."""
    env, params = kernel_for(Registry(), game_id)
    _, state = reset_batch(env, jax.random.key(0), params, batch)
    sample = jax.jit(jax.vmap(env.sample_actions, in_axes=(0, 0, None)))
    actions = sample(match_keys(jax.random.key(1), batch), state, params)
    keys = match_keys(jax.random.key(2), batch)
    step = jax.jit(jax.vmap(env.step_env, in_axes=(0, 0, 0, None)))
    jax.block_until_ready(step(keys, state, actions, params))

    def timed() -> float:
        started = time.perf_counter()
        jax.block_until_ready(step(keys, state, actions, params))
        return time.perf_counter() - started

    return timed


def ratio(game_id: str, plain: AbstractContextManager[Any], batch: int, rounds: int) -> float:
    """Median over interleaved rounds of (step time in the plain form) / (step time with the helper)."""
    helper = step_timer(game_id, batch)
    with plain:
        without = step_timer(game_id, batch)  # compiled while the plain form is patched in
    samples = []
    for _ in range(rounds):
        with_times = [helper() for _ in range(5)]
        plain_times = [without() for _ in range(5)]
        samples.append(statistics.median(plain_times) / statistics.median(with_times))
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ada = "negotiation_adasociety.kernels"
    forms = [
        ("computed_once", "adasociety", mock.patch(f"{ada}.computed_once", lambda values, bound: values)),
        ("computed_once", "adasociety_hard", mock.patch(f"{ada}.computed_once", lambda values, bound: values)),
        (
            "uniform_order",
            "adasociety_hard",
            mock.patch(f"{ada}.uniform_order", lambda key, n: threefry.permutation(key, n).astype(jnp.int32)),
        ),
        ("entry", "company_car", mock.patch("negotiation_platform.kernels.company_car.entry", lambda v, i: v[i])),
    ]
    print(f"batch {args.batch}; plain-form step time / helper step time (above 1: the helper is faster)")
    for helper, game_id, plain in forms:
        print(f"{helper:>14} in {game_id:<16} {ratio(game_id, plain, args.batch, args.rounds):6.2f}x")


if __name__ == "__main__":
    main()
