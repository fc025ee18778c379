"""`BaseKernel`: what every kernel's step shares, written once (the way gymnax's and Pgx's base
environments hold it).

A kernel says how a live match moves on one step (`move`); the base makes `step_env` out of it: a
finished match is frozen (stepping it changes nothing and earns nothing), a game that pays at the end
pays its `payoffs` once, on the step it ends, and an action the kernel's `replace_illegal` finds
illegal is replaced by the kernel's fallback before the move and reported in `info["illegal"]`.
`reset` is `init_state` on fresh `draws`, and `step` is gymnax's auto-resetting step: `step_env`,
then a fresh match in place of one that ended. A subclass names its state and params types
(`BaseKernel[State, Params]`) and defines `draws`, `init_state`, `observe`, `move`, `action_space`,
`sample_actions` and `default_params` (and `payoffs` when it pays at the end).
"""

from __future__ import annotations

import warnings
from typing import Any, Generic, NamedTuple

import jax
import jax.numpy as jnp

from negotiation_platform.engine import EventKind, Match
from negotiation_platform.kernels import spaces, threefry
from negotiation_platform.kernels.autoreset import reset_done
from negotiation_platform.kernels.env import Observation, ParamsT, StateT, StateT_co, Step


def round_openers(match: Match, rounds: int) -> jax.Array:
    """int32[rounds]: the seat that opened each round of an engine match (0 for rounds it never
    reached), for an `engine_draws` of a game that draws who opens each round."""
    seats = [match.players.index(e.data["order"][0]) for e in match.events if e.kind is EventKind.PHASE_STARTED]
    return jnp.array(seats + [0] * (rounds - len(seats)), jnp.int32)


class Moved(NamedTuple, Generic[StateT_co]):
    """What `move` returns: the match after one step, as if it were live."""

    state: StateT_co
    rewards: jax.Array | None = None
    """f32[num_agents] earned on this step; None for a game that pays `payoffs` when it ends."""
    info: dict[str, jax.Array] | None = None
    """Extra `Step.info` fields of this step."""


class BaseKernel(Generic[StateT, ParamsT]):
    """A functional environment (see `kernels.env.Env`) with the episode's end handled once."""

    game_id: str
    num_agents: int
    reset_when_any_done = False
    """True when matches end only on the same steps (a fixed length): see `kernels.env.Env`."""

    # --- what a kernel defines ------------------------------------------------------------------

    def default_params(self) -> ParamsT:
        raise NotImplementedError

    def draws(self, key: jax.Array, params: ParamsT) -> Any:
        """Every random draw a match needs, made up front."""
        raise NotImplementedError

    def init_state(self, params: ParamsT, draws: Any) -> StateT:
        """The initial state given explicit draws; it has a `done` field (bool[])."""
        raise NotImplementedError

    def observe(self, state: StateT, params: ParamsT) -> Observation:
        raise NotImplementedError

    def action_space(self, params: ParamsT) -> spaces.Space:
        raise NotImplementedError

    def sample_actions(self, key: jax.Array, state: StateT, params: ParamsT) -> jax.Array:
        raise NotImplementedError

    def move(self, key: jax.Array, state: StateT, actions: jax.Array, params: ParamsT) -> Moved[StateT]:
        """The match after the agents' actions, for a match still running (`step_env` freezes a finished
        one). An illegal action moves it as the kernel's documented fallback does (a pass, a reject, a
        stay), never as a legal move would."""
        raise NotImplementedError

    def payoffs(self, state: StateT, params: ParamsT) -> jax.Array:
        """f32[num_agents]: what each agent gets if the match ends in `state` (games that pay at the end)."""
        raise NotImplementedError

    def replace_illegal(self, state: StateT, actions: jax.Array, params: ParamsT) -> tuple[jax.Array, jax.Array | None]:
        """(actions with every illegal one replaced by the fallback, which were illegal); by default the
        actions as they are and None, for a kernel whose `move` reads an illegal action as its fallback."""
        return actions, None

    # --- what the base does ---------------------------------------------------------------------

    def reset(self, key: jax.Array, params: ParamsT) -> tuple[Observation, StateT]:
        """(obs, state) of a fresh match."""
        state = self.init_state(params, self.draws(key, params))
        return self.observe(state, params), state

    def observation_space(self, params: ParamsT) -> spaces.Dict:
        return spaces.observed(self, params)

    def network_observation(self, observation: Observation, params: ParamsT) -> Observation:
        """`observe`'s result in the layout a policy network reads (and a table rebuilds): by default
        itself; a kernel that holds a compact observation spreads it here."""
        return observation

    def freeze(self, state: StateT, moved: StateT) -> StateT:
        """`moved`, or `state` itself where the match was already over."""
        frozen: StateT = jax.tree.map(lambda old, nxt: jnp.where(state.done, old, nxt), state, moved)
        return frozen

    def conclude(
        self, state: StateT, moved: Moved[StateT], params: ParamsT, illegal: jax.Array | None = None
    ) -> Step[StateT]:
        """The step a `move` from `state` makes: frozen if the match was over, paid, observed."""
        new = self.freeze(state, moved.state)
        info: dict[str, jax.Array] = {}
        if moved.rewards is None:  # paid once, on the step the match ends
            payoff = self.payoffs(new, params)
            rewards = jnp.where(new.done & ~state.done, payoff, 0.0)
            info["payoffs"] = payoff
        else:
            rewards = jnp.where(state.done, 0.0, moved.rewards)
        info.update(moved.info or {})
        if illegal is not None:
            info["illegal"] = illegal
        return Step(self.observe(new, params), new, rewards, new.done, info)

    def step_env(self, key: jax.Array, state: StateT, actions: jax.Array, params: ParamsT) -> Step[StateT]:
        """Apply the agents' actions, without the reset; stepping a finished match changes nothing and
        earns nothing."""
        actions, illegal = self.replace_illegal(state, actions, params)
        return self.conclude(state, self.move(key, state, actions, params), params, illegal)

    def step(self, key: jax.Array, state: StateT, actions: jax.Array, params: ParamsT) -> Step[StateT]:
        """gymnax's step: `step_env`, then a fresh match (drawn from `key`) in place of one that ended.
        The rewards, done and info are the ended match's; obs and state are the fresh one's."""
        step_key, reset_key = threefry.split(key)
        step = self.step_env(step_key, state, actions, params)
        obs, new = reset_done(step.done, (step.obs, step.state), lambda: self.reset(reset_key, params))
        return step._replace(obs=obs, state=new)

    def step_autoreset(self, key: jax.Array, state: StateT, actions: jax.Array, params: ParamsT) -> Step[StateT]:
        """Deprecated (one release): `step` auto-resets now, as in gymnax."""
        warnings.warn(
            "BaseKernel.step_autoreset is deprecated: `step` auto-resets now (gymnax's names); "
            "use `step`, or `step_env` for a step without the reset",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.step(key, state, actions, params)
