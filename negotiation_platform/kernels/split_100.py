"""split_100 as a functional environment: alternating offers over a fixed sum.

Actions: int32[2], one code per seat (only the seat to move is read): 0..total proposes to keep
that many dollars, total+1 accepts the standing offer, total+2 walks away. An accept with no
standing offer from the other seat is not legal (the action mask excludes it) and counts as a
pass if played anyway. Rewards arrive when the match ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import JsonValue

from negotiation_platform.games.split_100 import Split100Config
from negotiation_platform.kernels import spaces, threefry
from negotiation_platform.kernels.base import BaseKernel, Moved
from negotiation_platform.kernels.utilities import split_100_utilities

if TYPE_CHECKING:
    from negotiation_platform.engine.match import Match


class Params(NamedTuple):
    rounds: jax.Array
    discount: jax.Array


class State(NamedTuple):
    turn: jax.Array
    standing_by: jax.Array
    standing_mine: jax.Array
    done: jax.Array
    agreed: jax.Array
    share0: jax.Array
    agree_round: jax.Array


class Split100Env(BaseKernel[State, Params]):
    game_id = "split_100"
    num_agents = 2
    reset_when_any_done = False  # matches end on agreement, at different steps

    def __init__(self, total: int = 100, rounds: int = 10, discount: float = 1.0) -> None:
        self.total = total
        self._defaults = Params(jnp.int32(rounds), jnp.float32(discount))

    @classmethod
    def from_config(cls, config: Split100Config) -> tuple[Split100Env, Params]:
        env = cls(config.total, config.rounds, config.discount)
        return env, env.default_params()

    def default_params(self) -> Params:
        return self._defaults

    @property
    def num_actions(self) -> int:
        return self.total + 3

    def action_space(self, params: Params) -> spaces.Discrete:
        """0..total propose to keep that much, total+1 accepts, total+2 walks away."""
        return spaces.Discrete(self.num_actions)

    def current_player(self, state: State) -> jax.Array:
        """The seat to move (turns alternate; only its row of the actions is read)."""
        return state.turn % 2

    def draws(self, key: jax.Array, params: Params) -> None:
        return None  # split_100 has no randomness

    def init_state(self, params: Params, draws: None = None) -> State:
        zero = jnp.int32(0)
        return State(zero, jnp.int32(-1), zero, jnp.bool_(False), jnp.bool_(False), jnp.float32(0), zero)

    def engine_draws(self, match: Match) -> None:
        """The draws of an engine match (`check_kernel`): split_100 has none."""
        return None

    def action_mask(self, state: State) -> jax.Array:
        """bool[2, total + 3]: legal codes per seat (all False for the seat not to move)."""
        codes = jnp.arange(self.total + 3)
        actor = state.turn % 2
        seats = jnp.arange(2)
        accept_ok = state.standing_by == 1 - seats
        legal = (codes[None, :] <= self.total) | (codes[None, :] == self.total + 2)
        legal = legal | ((codes[None, :] == self.total + 1) & accept_ok[:, None])
        return legal & (seats == actor)[:, None] & ~state.done

    def observe(self, state: State, params: Params) -> dict[str, jax.Array]:
        seats = jnp.arange(2)
        features = jnp.stack(
            [
                jnp.broadcast_to((state.turn // 2 + 1) / params.rounds, (2,)),
                (state.turn % 2 == seats).astype(jnp.float32),
                (state.standing_by == seats).astype(jnp.float32),
                (state.standing_by == 1 - seats).astype(jnp.float32),
                jnp.broadcast_to(state.standing_mine / self.total, (2,)),
            ],
            axis=-1,
        )
        return {"features": features, "legal_action_mask": self.action_mask(state)}

    def table_observation(self, turn: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """This seat's row of `observe`, rebuilt from its turn state at an engine table."""
        view, moving = turn["view"], bool(turn.get("your_turn"))
        offer = view["standing_offer"]
        by_me = offer is not None and offer["by"] == turn["agent_id"]
        by_other = offer is not None and not by_me
        standing = offer["mine"] / self.total if offer is not None else 0.0
        features = np.array([view["round"] / view["rounds"], moving, by_me, by_other, standing], np.float32)
        codes = np.arange(self.total + 3)
        legal = (codes <= self.total) | (codes == self.total + 2) | ((codes == self.total + 1) & by_other)
        return {"features": features, "legal_action_mask": legal & moving}

    def table_action(self, action: np.ndarray, turn: Mapping[str, Any]) -> tuple[str, dict[str, JsonValue]]:
        """The engine move of a code: propose to keep it, accept, or walk away."""
        code = int(action)
        if code <= self.total:
            return "propose", {"mine": code}
        return ("accept", {}) if code == self.total + 1 else ("walk_away", {})

    def move(self, key: jax.Array, state: State, actions: jax.Array, params: Params) -> Moved[State]:
        actor = state.turn % 2
        code = actions[actor]
        round_number = state.turn // 2 + 1
        propose = code <= self.total
        accept = (code == self.total + 1) & (state.standing_by == 1 - actor)
        walk = code == self.total + 2
        share0 = jnp.where(state.standing_by == 0, state.standing_mine, self.total - state.standing_mine)
        turn = state.turn + 1
        finished = accept | walk | (turn >= 2 * params.rounds)
        moved = State(
            turn=turn,
            standing_by=jnp.where(propose, actor, state.standing_by),
            standing_mine=jnp.where(propose, code, state.standing_mine),
            done=finished,
            agreed=accept,
            share0=jnp.where(accept, share0.astype(jnp.float32), state.share0),
            agree_round=jnp.where(accept, round_number, state.agree_round),
        )
        return Moved(moved)

    def payoffs(self, state: State, params: Params) -> jax.Array:
        return split_100_utilities(state.share0, state.agreed, state.agree_round, self.total, params.discount)

    def sample_actions(self, key: jax.Array, state: State, params: Params) -> jax.Array:
        """Uniform over the mover's legal codes, drawn by index (cheaper than a categorical over all codes)."""
        actor = state.turn % 2
        accept_ok = (state.standing_by == 1 - actor).astype(jnp.int32)
        legal_count = self.total + 2 + accept_ok
        index = jnp.floor(threefry.uniform(key) * legal_count).astype(jnp.int32)
        code = jnp.where(index <= self.total, index, jnp.where(index == self.total + 1, self.total + 2, self.total + 1))
        return jnp.broadcast_to(code, (2,)).astype(jnp.int32)
