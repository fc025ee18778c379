"""The functional environment interface every kernel implements (in the style of gymnax and JaxMARL).

An environment is a stateless object: all state lives in the `state` pytree, all randomness
comes from the keys passed in, so `reset` and `step` can be jitted, vmapped over a batch of
matches and scanned over time. `init_state(params, draws)` builds the initial state from explicit
random draws; `reset` is `init_state(params, draws(key, params))`, which lets tests feed the
engine's own draws into a kernel and compare the two move for move. As in gymnax, `step` starts a
fresh match where one ended and `step_env` does not. `kernels.base.BaseKernel` implements what
every kernel's step shares (a finished match frozen, end payoffs paid once, the auto-reset).
"""

from __future__ import annotations

from typing import Any, Generic, NamedTuple, Protocol, TypeVar

import jax

from negotiation_platform.kernels import spaces

Observation = dict[str, jax.Array]
"""What `observe` returns: named arrays with a leading agents axis (`legal_action_mask` among them)."""


class KernelState(Protocol):
    """What every kernel state has: whether its match is over."""

    @property
    def done(self) -> jax.Array:
        """bool[]: the match is over."""
        ...


StateT = TypeVar("StateT", bound=KernelState)
ParamsT = TypeVar("ParamsT")
StateT_co = TypeVar("StateT_co", bound=KernelState, covariant=True)


class Step(NamedTuple, Generic[StateT_co]):
    obs: Observation
    state: StateT_co
    rewards: jax.Array
    """f32[num_agents]: what each agent earned on this step."""
    done: jax.Array
    """bool[]: the match (the stepped one, not its replacement) is over."""
    info: dict[str, jax.Array]


class Env(Protocol[StateT, ParamsT]):
    game_id: str
    num_agents: int
    reset_when_any_done: bool
    """True when matches end only on the same steps (a fixed length): rollouts then reset the batch
    only on steps where a match ended, which saves a full reset per step."""

    def default_params(self) -> ParamsT:
        """The game's default config as a pytree of arrays."""
        ...

    def draws(self, key: jax.Array, params: ParamsT) -> Any:
        """Every random draw a match needs (roles, orders, values), made up front."""
        ...

    def init_state(self, params: ParamsT, draws: Any) -> StateT:
        """The initial state given explicit draws."""
        ...

    def reset(self, key: jax.Array, params: ParamsT) -> tuple[Observation, StateT]:
        """(obs, state) of a fresh match."""
        ...

    def observe(self, state: StateT, params: ParamsT) -> Observation:
        """What every agent observes in `state` (leading axis: agents), including `legal_action_mask`."""
        ...

    def network_observation(self, observation: Observation, params: ParamsT) -> Observation:
        """`observe`'s result in the layout a policy network reads and `table_observation` rebuilds (a
        compact observation spread out; most kernels' own)."""
        ...

    def step_env(self, key: jax.Array, state: StateT, actions: jax.Array, params: ParamsT) -> Step[StateT]:
        """Apply the agents' actions (only the acting agents' rows are read); a finished match stays
        as it is and earns nothing."""
        ...

    def step(self, key: jax.Array, state: StateT, actions: jax.Array, params: ParamsT) -> Step[StateT]:
        """`step_env`, then a fresh match in place of one that ended (gymnax's auto-reset)."""
        ...

    def action_space(self, params: ParamsT) -> spaces.Space:
        """One agent's action space (`negotiation_platform.kernels.spaces`)."""
        ...

    def observation_space(self, params: ParamsT) -> spaces.Dict:
        """One agent's observation space."""
        ...

    def sample_actions(self, key: jax.Array, state: StateT, params: ParamsT) -> jax.Array:
        """Uniformly random legal actions for every agent (the `random` policy)."""
        ...
