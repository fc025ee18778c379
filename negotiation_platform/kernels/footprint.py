"""What a kernel costs an accelerator, read on any backend: the data-dependent loops of its compiled step,
and the bytes one match holds.

Each pass of a compiled `while` loop evaluates its condition and, on a GPU, waits on the device for it;
a step without one runs as a fixed sequence of kernels. The state and the observations of a match are
what a batch of a million matches holds in device memory.
"""

from __future__ import annotations

import re

import jax
from jax.stages import Compiled

from negotiation_platform.kernels.env import Env, ParamsT, StateT
from negotiation_platform.kernels.rollout import reset_batch, rollout

STATE_TARGET = 1200
"""Most bytes of state one match should hold on an accelerator (a million matches in 1.2 GB)."""
OBSERVATION_TARGET = 1600
"""Most bytes of observation one match should hold on an accelerator (the default AdaSociety's
accelerator formulation meets both; its hard preset, 8 players on a 15×15 map, does not)."""


def while_loops(compiled: Compiled) -> int:
    """How many `while` instructions a compiled program (`jax.jit(f).lower(...).compile()`) holds."""
    text = compiled.as_text()
    if text is None:  # a backend that shows no program: nothing to count, and no count to claim
        raise RuntimeError(f"the {jax.default_backend()} backend shows no compiled program to count loops in")
    return len(re.findall(r"\swhile\(", text))


def step_loops(env: Env[StateT, ParamsT], params: ParamsT, batch: int = 2) -> int:
    """The `while` loops of one step of a random-play `rollout` (the sampled actions, the step, the
    reset of finished matches), as XLA compiles it for the default backend. A one-step scan compiles to
    no loop of its own, so each one counted is a loop of the kernel's step or reset."""
    _, state = reset_batch(env, jax.random.key(0), params, batch)
    return while_loops(rollout.lower(env, params, jax.random.key(1), state, 1).compile())


def match_bytes(env: Env[StateT, ParamsT], params: ParamsT) -> tuple[int, int]:
    """(state, observation) bytes of one match: the `nbytes` of their arrays, from shapes alone."""
    observation, state = jax.eval_shape(lambda key: env.reset(key, params), jax.random.key(0))
    return _nbytes(state), _nbytes(observation)


def _nbytes(tree: object) -> int:
    return sum(int(leaf.size) * leaf.dtype.itemsize for leaf in jax.tree.leaves(tree))
