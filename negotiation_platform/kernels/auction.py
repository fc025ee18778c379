"""auction as a functional environment: every bidder submits one sealed bid in a single step.

Actions: int32[N], one bid per bidder (negative bids count as 0). The discussion phase is free
text and is not modelled. Draws: each bidder's private value, uniform on [value_low, value_high]
(the engine's draws can be fed to `init_state`). Ties go to the lowest seat, which is the
engine's earliest bid when bids are submitted in seat order. Rewards arrive on the only step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import JsonValue

from negotiation_platform.games.auction import AuctionConfig
from negotiation_platform.kernels import spaces
from negotiation_platform.kernels.base import BaseKernel, Moved
from negotiation_platform.kernels.sampling import uniform_indices
from negotiation_platform.kernels.utilities import auction_utilities

if TYPE_CHECKING:
    from negotiation_platform.engine.match import Match

BID = "bid"


class Params(NamedTuple):
    value_low: jax.Array
    value_high: jax.Array


class Draws(NamedTuple):
    values: jax.Array
    """int32[N]: each bidder's private value."""


class State(NamedTuple):
    values: jax.Array
    bids: jax.Array
    done: jax.Array


class AuctionEnv(BaseKernel[State, Params]):
    game_id = "auction"
    reset_when_any_done = True  # every match is exactly one step

    def __init__(self, bidders: int = 3, value_high: int = 100, second_price: bool = False, value_low: int = 0) -> None:
        self.num_agents = bidders
        self.second_price = second_price
        self.max_bid = value_high
        self._defaults = Params(jnp.int32(value_low), jnp.int32(value_high))

    @classmethod
    def from_config(cls, config: AuctionConfig) -> tuple[AuctionEnv, Params]:
        env = cls(config.bidders, config.value_high, config.pricing == "second", config.value_low)
        return env, env.default_params()

    def default_params(self) -> Params:
        return self._defaults

    @property
    def num_actions(self) -> int:
        return self.max_bid + 1

    def action_space(self, params: Params) -> spaces.Discrete:
        """A bid of 0..value_high, as the engine allows."""
        return spaces.Discrete(self.num_actions)

    def draws(self, key: jax.Array, params: Params) -> Draws:
        span = jnp.full(self.num_agents, params.value_high - params.value_low + 1, jnp.int32)
        return Draws(params.value_low + uniform_indices(key, span))

    def init_state(self, params: Params, draws: Draws) -> State:
        zeros = jnp.zeros(self.num_agents, jnp.int32)
        return State(jnp.asarray(draws.values, jnp.int32), zeros, jnp.bool_(False))

    def engine_draws(self, match: Match) -> Draws:
        """An engine match's draws in this form (`check_kernel`): each bidder's value, in seat order."""
        return Draws(jnp.array([match.game.game_data["values"][p] for p in match.players], jnp.int32))

    def observe(self, state: State, params: Params) -> dict[str, jax.Array]:
        """Each bidder sees only its own value (scaled to the value range) and which bids it may make."""
        span = jnp.maximum(params.value_high - params.value_low, 1)
        own = ((state.values - params.value_low) / span).astype(jnp.float32)[:, None]
        legal = jnp.broadcast_to(~state.done, (self.num_agents, self.num_actions))
        return {"features": own, "legal_action_mask": legal}

    def freeze(self, state: State, moved: State) -> State:
        """A finished match keeps its bids; every match is over after its one step, so `done` stays the
        constant True (which lets XLA drop work a data-dependent `done` would need in rollouts)."""
        return moved._replace(bids=jnp.where(state.done, state.bids, moved.bids))

    def move(self, key: jax.Array, state: State, actions: jax.Array, params: Params) -> Moved[State]:
        bids = jnp.maximum(actions.astype(jnp.int32), 0)
        payoff = auction_utilities(bids.astype(jnp.float32), state.values.astype(jnp.float32), self.second_price)
        return Moved(State(state.values, bids, jnp.bool_(True)), payoff, {"payoffs": payoff})

    def sample_actions(self, key: jax.Array, state: State, params: Params) -> jax.Array:
        return uniform_indices(key, jnp.full(self.num_agents, self.num_actions, jnp.int32))

    def table_observation(self, turn: Mapping[str, Any]) -> dict[str, np.ndarray] | None:
        """This seat's row of `observe`, rebuilt from its turn state at an engine table (None in the
        discussion, which is not modelled)."""
        view = turn["view"]
        if view["phase"] != BID:
            return None
        params = self.default_params()
        low, span = int(params.value_low), max(int(params.value_high) - int(params.value_low), 1)
        own = np.array([(view["your_value"] - low) / span], np.float32)
        return {"features": own, "legal_action_mask": np.full(self.num_actions, view["sale"] is None)}

    def table_action(self, action: np.ndarray, turn: Mapping[str, Any]) -> tuple[str, dict[str, JsonValue]]:
        """The engine move of a code: a sealed bid of that amount."""
        return BID, {"amount": int(action)}
