"""Kernels as JaxMARL `MultiAgentEnv`s, so JaxMARL's wrappers and baselines run on them unchanged.

JaxMARL's interface differs from the kernels' gymnax one: agents are named (`agent_0`, …), every
per-agent value is a dict keyed by name, spaces are asked
per agent, and a policy sees one flat observation vector and one Discrete action. `make` wraps a
kernel that way: the observation is every field of the kernel's observation (in the layout a network
reads, `network_observation`) except its masks, flattened to float32 in field order; the action is a
flat code (`action_codes`) decoded into the kernel's action; `get_avail_actions` (and Hanabi's name
for it, `get_legal_moves`) is the kernel's legal mask over those codes. The kernel params are fixed
at `make` time (JaxMARL's methods take none).

`MarlEnv` subclasses JaxMARL's `MultiAgentEnv` when `jaxmarl` is installed (so `isinstance` checks and
JaxMARL's wrappers accept it), else `LightMultiAgentEnv`, a base with the same interface.
An observation space's `shape` is an int, the vector's length, as JaxMARL's Hanabi has it: its masked
baseline builds `zeros((1, envs, shape))`, and the MPE one's `zeros(shape)` takes an int too.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic

import jax
import jax.numpy as jnp

from negotiation_platform.kernels import spaces
from negotiation_platform.kernels.action_codes import DEFAULT_PRICE_LEVELS, Codes, codes_for, with_placeholder
from negotiation_platform.kernels.autoreset import reset_done
from negotiation_platform.kernels.discovery import make as make_kernel
from negotiation_platform.kernels.env import Env, ParamsT, StateT
from negotiation_platform.registry import Registry

MASK_FIELDS = ("legal_action_mask", "action_mask")
"""Observation fields that are legal masks: served by `get_avail_actions`, not in the observation vector."""


def flat_features(observation: dict[str, jax.Array]) -> jax.Array:
    """f32[agents, D]: a kernel observation's non-mask fields, each flattened per agent, concatenated."""
    parts = [
        leaf.reshape(leaf.shape[0], -1).astype(jnp.float32)
        for name, leaf in observation.items()
        if name not in MASK_FIELDS
    ]
    return jnp.concatenate(parts, axis=1)


AgentArrays = dict[str, jax.Array]
"""JaxMARL's per-agent values: one array per agent name (`dones` also has "__all__")."""


@dataclass(frozen=True)
class VectorSpace:
    """An agent's observation: an unbounded float32 vector of `shape` entries (an int, as in JaxMARL's Hanabi)."""

    shape: int
    low: float = -float("inf")
    high: float = float("inf")
    dtype: Any = jnp.float32

    def sample(self, key: jax.Array) -> jax.Array:
        """A standard normal draw (the space is unbounded)."""
        return jax.random.normal(key, (self.shape,), self.dtype)

    def contains(self, x: jax.Array) -> jax.Array:
        return jnp.all(~jnp.isnan(x)) & (jnp.shape(x) == (self.shape,))


class LightMultiAgentEnv:
    """JaxMARL's `MultiAgentEnv` interface where `jaxmarl` is not installed: agents, their spaces, a name."""

    def __init__(self, num_agents: int) -> None:
        self.num_agents = num_agents
        self.agents = [f"agent_{i}" for i in range(num_agents)]
        self.observation_spaces: dict[str, VectorSpace] = {}
        self.action_spaces: dict[str, spaces.Discrete] = {}

    def observation_space(self, agent: str) -> VectorSpace:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    @property
    def name(self) -> str:
        return type(self).__name__


def _multi_agent_env() -> type:
    """JaxMARL's `MultiAgentEnv` when `jaxmarl` is installed, else `LightMultiAgentEnv`.

    jaxmarl's package prints while importing its environments, and one of them swaps `sys.stdout` and
    `sys.stderr` and then sets them to `sys.__stdout__`/`sys.__stderr__`, dropping whatever streams the
    caller had (pytest's capture, a notebook's): file descriptor 1 points at the null device for the
    import, so none of it reaches our stdout (the CLI's JSON), and both streams are put back after.
    """
    if importlib.util.find_spec("jaxmarl") is None:
        return LightMultiAgentEnv
    sys.stdout.flush()
    streams = sys.stdout, sys.stderr
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(io.StringIO()):
            os.dup2(null.fileno(), 1)
            from jaxmarl.environments.multi_agent_env import MultiAgentEnv

            sys.stdout.flush()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        sys.stdout, sys.stderr = streams
    return MultiAgentEnv  # type: ignore[no-any-return]


if TYPE_CHECKING:
    MultiAgentEnvBase = LightMultiAgentEnv
else:
    MultiAgentEnvBase = _multi_agent_env()


class MarlEnv(MultiAgentEnvBase, Generic[StateT, ParamsT]):
    """A kernel under JaxMARL's `MultiAgentEnv` interface (see the module docstring)."""

    def __init__(self, kernel: Env[StateT, ParamsT], params: ParamsT, price_levels: int = DEFAULT_PRICE_LEVELS) -> None:
        super().__init__(kernel.num_agents)
        self.kernel = kernel
        self.params = params
        self.codes: Codes = codes_for(kernel.action_space(params), price_levels)
        features = jax.eval_shape(lambda key: self.features(kernel.reset(key, params)[0]), jax.random.key(0))
        self.obs_size = int(features.shape[1])
        self.observation_spaces = {agent: VectorSpace(self.obs_size) for agent in self.agents}
        self.action_spaces = {agent: spaces.Discrete(self.codes.n) for agent in self.agents}

    @property
    def name(self) -> str:
        return str(self.kernel.game_id)

    @property
    def agent_classes(self) -> dict[str, list[str]]:
        return {"players": list(self.agents)}

    def _per_agent(self, values: jax.Array) -> AgentArrays:
        return {agent: values[i] for i, agent in enumerate(self.agents)}

    def features(self, observation: dict[str, jax.Array]) -> jax.Array:
        """f32[agents, D]: what the policy reads of a kernel observation (spread out, `network_observation`,
        as `table_observation` rebuilds it at a table), flattened."""
        return flat_features(self.kernel.network_observation(observation, self.params))

    def get_obs(self, state: StateT) -> AgentArrays:
        return self._per_agent(self.features(self.kernel.observe(state, self.params)))

    def reset(self, key: jax.Array) -> tuple[AgentArrays, StateT]:
        observation, state = self.kernel.reset(key, self.params)
        return self._per_agent(self.features(observation)), state

    def stacked_avail_actions(self, state: StateT) -> jax.Array:
        """bool[agents, n]: each agent's legal codes (code 0 alone when it has none)."""
        legal = self.kernel.observe(state, self.params)["legal_action_mask"]
        return with_placeholder(self.codes.mask(legal, self.params))

    def get_avail_actions(self, state: StateT) -> AgentArrays:
        return self._per_agent(self.stacked_avail_actions(state))

    def get_legal_moves(self, state: StateT) -> AgentArrays:
        """`get_avail_actions` under Hanabi's name, which JaxMARL's masked baseline (`ippo_ff_hanabi`) reads."""
        return self.get_avail_actions(state)

    def step_env(
        self, key: jax.Array, state: StateT, actions: AgentArrays
    ) -> tuple[AgentArrays, StateT, AgentArrays, AgentArrays, AgentArrays]:
        """One kernel step, without the reset."""
        codes = jnp.stack([jnp.asarray(actions[agent]).reshape(()) for agent in self.agents])
        step = self.kernel.step_env(key, state, self.codes.decode(codes, self.params), self.params)
        done = jnp.asarray(step.done, jnp.bool_)
        dones = {agent: done for agent in self.agents} | {"__all__": done}
        obs, rewards = self._per_agent(self.features(step.obs)), self._per_agent(step.rewards)
        return obs, step.state, rewards, dones, self._infos(step.info)

    def step(
        self, key: jax.Array, state: StateT, actions: AgentArrays, reset_state: StateT | None = None
    ) -> tuple[AgentArrays, StateT, AgentArrays, AgentArrays, AgentArrays]:
        """Step, then start a fresh match where this one ended (JaxMARL's auto-reset; `reset_state`,
        when given, is the fresh match)."""
        key, reset_key = jax.random.split(key)
        obs, stepped, rewards, dones, infos = self.step_env(key, state, actions)

        def fresh() -> tuple[StateT, AgentArrays]:
            if reset_state is None:
                fresh_obs, fresh_state = self.reset(reset_key)
                return fresh_state, fresh_obs
            return reset_state, self.get_obs(reset_state)

        state, obs = reset_done(dones["__all__"], (stepped, obs), fresh)
        return obs, state, rewards, dones, infos

    def _infos(self, info: dict[str, jax.Array]) -> AgentArrays:
        """Per-agent arrays only (JaxMARL's baselines reshape every info leaf to [actors]): a
        per-match number is repeated for every agent, other shapes are left out."""
        shaped = {}
        for name, value in info.items():
            value = jnp.asarray(value)
            if value.shape == ():
                shaped[name] = jnp.broadcast_to(value, (self.num_agents,))
            elif value.shape == (self.num_agents,):
                shaped[name] = value
        return shaped


def make(
    game_id: str,
    *,
    registry: Registry | None = None,
    price_levels: int = DEFAULT_PRICE_LEVELS,
    formulation: str | None = None,
    **config: object,
) -> MarlEnv[Any, Any]:
    """A JaxMARL-compatible environment for `game_id` under config overrides, e.g. `make("trust_and_split")`.

    `price_levels` numbers the offers of a game whose action is a price (company_car); `formulation` picks the
    kernel's ("cpu" or "accelerator"; by default JAX's backend decides).
    """
    kernel, params = make_kernel(game_id, registry=registry, formulation=formulation, **config)
    return MarlEnv(kernel, params, price_levels)
