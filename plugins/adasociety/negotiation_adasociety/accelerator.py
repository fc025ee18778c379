"""The accelerator formulation of the AdaSociety kernel: the CPU formulation's rules, with fixed work in
place of its data-dependent loops and the state kept in compact dtypes.

On a GPU each pass of a `while` loop waits on the device for its condition, so nothing here loops:
both phases' work is done on every step and selected (`_only_if`), the moves' fixed point takes N
passes (each pass that changes anything turns a mover away, and at most N players move), the
accepted pairs merge in one pass per player that may open one, and the map is drawn by an unrolled
Lehmer decode (`sampling.distinct_indices_unrolled`, the CPU's draws from the same key). Integers are
stored in the narrowest dtype the rules bound them to (`Widths`) and widened to int32 for the
arithmetic, so both formulations compute alike and a key gives the same match on either. The
observation a match holds is `seen` (each thing once, in those dtypes: the visible recipe by number,
not its net output per resource; no always-zero layer, no second copy of the legal mask);
`network_observation` spreads it into the CPU formulation's, which a policy reads and a table
rebuilds. Chosen by `make("adasociety", formulation=...)`; the default follows `jax.default_backend()`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from negotiation_adasociety.config import AdaSocietyConfig
from negotiation_adasociety.kernels import AdaSocietyEnv, Groups, Params, State, T
from negotiation_platform.kernels.autoreset import tree_where
from negotiation_platform.kernels.base import Moved
from negotiation_platform.kernels.sampling import distinct_indices_unrolled


def narrowest(bound: int) -> np.dtype[Any]:
    """The smallest signed integer dtype that holds every value in −1..`bound`."""
    for dtype in (np.int8, np.int16):
        if bound <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int32)


class Widths(NamedTuple):
    """The largest value each stored integer can take under a config (the rules bound them all)."""

    units: int
    """Units of one resource anywhere: all the piles' units, plus what crafting can add over a match."""
    held: int
    """Units of one resource a player holds (its cap, and no more than exist)."""
    groups: int
    """Group ids: at most one new group per accepted pair, N/2 pairs per bargaining step."""
    grid: int
    """A value of an observed grid layer: an occupant id, a recipe's number (1..K), a pile's units."""

    @classmethod
    def of(cls, config: AdaSocietyConfig) -> Widths:
        piles = sum(pile.count * pile.amount for pile in config.piles)
        gain = max([sum(r.outputs.values()) - sum(r.inputs.values()) for r in config.recipes] + [0])
        units = piles + config.num_players * config.max_length * gain
        held = min(units, max(cap for job in config.jobs for cap in [0, *job.caps.values()]))
        groups = config.negotiation_steps * (config.num_players // 2)
        return cls(units, held, groups, max(units, config.num_players, len(config.recipes)))


class AcceleratorAdaSocietyEnv(AdaSocietyEnv):
    """`AdaSocietyEnv` without data-dependent loops, over compact arrays (see the module docstring)."""

    formulation = "accelerator"

    def __init__(self, config: AdaSocietyConfig, game_id: str = "adasociety") -> None:
        super().__init__(config, game_id)
        widths, n = Widths.of(config), self.num_agents
        self.stored = {
            "time": narrowest(self.max_length),
            "position": narrowest(self.size * self.size - 1),
            "inventory": narrowest(widths.held),
            "piles": narrowest(widths.units),
            "event": narrowest(len(config.recipes) - 1),
            "partner": narrowest(n - 1),
            "parity": np.dtype(np.int8),
            "group": narrowest(widths.groups),
            "next_group": narrowest(widths.groups),
        }
        """The dtype of each integer field of `State` (the others are float32 and bool, as on a CPU)."""
        flag = np.dtype(np.bool_)
        self.observed = {
            "grid_observation": narrowest(widths.grid),
            "inventory": narrowest(widths.held),
            "available_player": flag,
            "final_split": np.dtype(np.float32),
            "time": narrowest(self.max_length),
            "player_id": flag,
            "legal_action_mask": flag,
            "proposal": np.dtype(np.float32),
            "social_state": flag,
        }
        """The dtype of each field of the observation a match holds (`seen`: each thing once)."""

    # --- compact storage, int32 arithmetic -----------------------------------------------------

    def _stored(self, state: State) -> State:
        return state._replace(**{name: getattr(state, name).astype(dtype) for name, dtype in self.stored.items()})

    def _wide(self, state: State) -> State:
        return state._replace(**{name: getattr(state, name).astype(jnp.int32) for name in self.stored})

    def init_state(self, params: Params, draws: Any) -> State:
        return self._stored(super().init_state(params, draws))

    def legal_bits(self, state: State, params: Params) -> jax.Array:
        return super().legal_bits(self._wide(state), params)

    def transition(self, state: State, actions: jax.Array, priority: jax.Array, params: Params) -> Moved[State]:
        moved = super().transition(self._wide(state), actions, priority, params)
        return moved._replace(state=self._stored(moved.state))

    def observe(self, state: State, params: Params) -> dict[str, jax.Array]:
        seen = self.seen(self._wide(state), params)
        return {name: value.astype(self.observed[name]) for name, value in seen.items()}

    def network_observation(self, observation: Mapping[str, jax.Array], params: Params) -> dict[str, jax.Array]:
        """The CPU formulation's observation of the same state, array for array (what a table rebuilds)."""
        return self.engine_layout(observation, params)

    # --- the loops, as fixed work --------------------------------------------------------------

    def _only_if(self, needed: jax.Array, compute: Callable[[], T], otherwise: T) -> T:
        """Both, selected: a branch of a batch costs a pass on a device whatever the matches need."""
        return tree_where(needed, compute(), otherwise)

    def _fixed_point(self, step: Callable[[jax.Array], jax.Array], start: jax.Array) -> jax.Array:
        """N passes: `step` only clears bits of N movers, so after N passes nothing changes any more."""
        for _ in range(self.num_agents):
            start = step(start)
        return start

    def _each_pair(self, opens: jax.Array, join: Callable[[jax.Array, Groups], Groups], groups: Groups) -> Groups:
        """One pass per player who may open a pair (all but the last id), in id order: a pass for a
        player who opens none changes nothing."""
        for first in range(self.num_agents - 1):
            groups = join(jnp.int32(first), groups)
        return groups

    def _distinct(self, key: jax.Array, count: int, n: int) -> jax.Array:
        return distinct_indices_unrolled(key, count, n)
