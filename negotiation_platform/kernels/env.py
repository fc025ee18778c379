"""The functional environment interface every kernel implements (in the style of gymnax and JaxMARL).

An environment is a stateless object: all state lives in the `state` pytree, all randomness
comes from the keys passed in, so `reset` and `step` can be jitted, vmapped over a batch of
matches and scanned over time. `init_state(params, draws)` builds the initial state from explicit
random draws; `reset` is `init_state(params, draws(key, params))`, which lets tests feed the
engine's own draws into a kernel and compare the two move for move. `kernels.base.BaseKernel`
implements what every kernel's step shares (a finished match frozen, end payoffs paid once).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

import jax


class Step(NamedTuple):
    obs: Any
    state: Any
    rewards: jax.Array
    """f32[num_agents]: what each agent earned on this step."""
    done: jax.Array
    """bool[]: the match is over (stepping a finished match changes nothing)."""
    info: dict[str, jax.Array]


class Env(Protocol):
    game_id: str
    num_agents: int
    reset_when_any_done: bool
    """True when matches end only on the same steps (a fixed length): rollouts then reset the batch
    only on steps where a match ended, which saves a full reset per step."""

    def default_params(self) -> Any:
        """The game's default config as a pytree of arrays."""

    def draws(self, key: jax.Array, params: Any) -> Any:
        """Every random draw a match needs (roles, orders, values), made up front."""

    def init_state(self, params: Any, draws: Any) -> Any:
        """The initial state given explicit draws."""

    def reset(self, key: jax.Array, params: Any) -> tuple[Any, Any]:
        """(obs, state) of a fresh match."""

    def observe(self, state: Any, params: Any) -> Any:
        """What every agent observes in `state` (leading axis: agents), including `legal_action_mask`."""

    def step(self, key: jax.Array, state: Any, actions: jax.Array, params: Any) -> Step:
        """Apply the agents' actions; only the acting agents' rows are read."""

    def action_space(self, params: Any) -> Any:
        """One agent's action space (`negotiation_platform.kernels.spaces`)."""

    def observation_space(self, params: Any) -> Any:
        """One agent's observation space."""

    def sample_actions(self, key: jax.Array, state: Any, params: Any) -> jax.Array:
        """Uniformly random legal actions for every agent (the `random` policy)."""
