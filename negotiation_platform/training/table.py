"""A trained policy at an engine table: the kernel observation rebuilt from the seat's turn state.

A game's kernel that can sit at a table defines `table_observation(turn)` (this seat's row of its
`observe`, or None for a turn the kernel does not model, such as free talk, which the policy
passes with the first of `SKIPS` the turn allows) and
`table_action(action, turn)` (the engine move of one kernel action row). The policy then runs
exactly as in training: the same flat features, legal codes and network, sampling its code from a
generator seeded by the agent's seed, so a match replays exactly.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, Protocol, runtime_checkable

import jax
import numpy as np
from pydantic import JsonValue

from negotiation_platform.agents.base import Decision
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.kernels.action_codes import with_placeholder
from negotiation_platform.kernels.env import KernelState
from negotiation_platform.kernels.marl import MarlEnv
from negotiation_platform.kernels.table_features import table_features
from negotiation_platform.training.artifacts import load_policy
from negotiation_platform.training.network import forward

SKIPS = ("pass", "done")
"""Moves that pass a turn the kernel does not model (a coin game's talk, an auction's discussion)."""


@runtime_checkable
class TableKernel(Protocol):
    """A kernel that can sit at an engine table (see the module's docstring)."""

    def table_observation(self, turn: Mapping[str, object]) -> dict[str, np.ndarray] | None: ...

    def table_action(self, action: np.ndarray, turn: Mapping[str, object]) -> tuple[str, dict[str, JsonValue]]: ...


class Compiled(NamedTuple):
    env: MarlEnv[KernelState, object]
    kernel: TableKernel
    logits: Callable[[np.ndarray, np.ndarray], jax.Array]
    """Masked logits [1, n] of one seat's flat features [1, D] and kernel legal mask (leading axis of 1)."""
    decode: Callable[[int], jax.Array]


@functools.lru_cache(maxsize=8)
def compiled(directory: Path) -> Compiled:
    """A trained policy loaded and jitted once per process (a tournament makes an agent per match)."""
    trained = load_policy(directory)
    env, network, params = trained.env, trained.network, trained.params
    kernel = env.kernel
    if not isinstance(kernel, TableKernel):
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"A {env.name} policy cannot sit at a table: its kernel has no table_observation.",
        )

    def logits(features: jax.Array, legal: jax.Array) -> jax.Array:
        avail = with_placeholder(env.codes.mask(legal, env.params))
        return forward(network, params, features, avail)[0]

    return Compiled(env, kernel, jax.jit(logits), jax.jit(lambda code: env.codes.decode(code[None], env.params)[0]))


class TablePolicy:
    def __init__(self, directory: Path, seed: int) -> None:
        self._compiled = compiled(directory.resolve())
        self.env = self._compiled.env
        self.kernel = self._compiled.kernel
        self._rng = np.random.default_rng(seed)

    def decide(self, turn: dict[str, Any]) -> Decision:
        if turn.get("game_id") != self.env.name:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT, f"This policy plays {self.env.name}, not {turn.get('game_id')!r}."
            )
        allowed = {action["name"] for action in turn.get("allowed_actions", [])}
        if not turn.get("your_turn") or not allowed:
            return Decision()
        observation = self.kernel.table_observation(turn)
        if observation is None:
            return Decision(action=next((skip for skip in SKIPS if skip in allowed), None))
        features = table_features(observation)[None]
        legal = np.asarray(observation["legal_action_mask"])[None]
        logits = np.asarray(self._compiled.logits(features, legal)[0], np.float64)
        probabilities = np.exp(logits - logits.max())
        code = int(self._rng.choice(len(probabilities), p=probabilities / probabilities.sum()))
        action = np.asarray(self._compiled.decode(code))
        name, payload = self.kernel.table_action(action, turn)
        return Decision(action=name, payload=payload)
