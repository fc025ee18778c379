"""`BaseKernel`: what every kernel's step shares, written once (the way gymnax's and Pgx's base
environments hold it).

A kernel says how a live match moves on one step (`move`); the base makes `step` out of it: a
finished match is frozen (stepping it changes nothing and earns nothing), a game that pays at the end
pays its `payoffs` once, on the step it ends, and an action the kernel's `replace_illegal` finds
illegal is replaced by the kernel's fallback before the move and reported in `info["illegal"]`.
`reset` is `init_state` on fresh `draws`, and `step_autoreset` is gymnax's auto-resetting step: a
match that ends is replaced by a fresh one. A subclass defines `draws`, `init_state`, `observe`,
`move`, `action_space`, `sample_actions` and `default_params` (and `payoffs` when it pays at the end).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from negotiation_platform.engine import EventKind, Match
from negotiation_platform.kernels import spaces, threefry
from negotiation_platform.kernels.env import Step


def round_openers(match: Match, rounds: int) -> jax.Array:
    """int32[rounds]: the seat that opened each round of an engine match (0 for rounds it never
    reached), for an `engine_draws` of a game that draws who opens each round."""
    seats = [match.players.index(e.data["order"][0]) for e in match.events if e.kind is EventKind.PHASE_STARTED]
    return jnp.array(seats + [0] * (rounds - len(seats)), jnp.int32)


class Moved(NamedTuple):
    """What `move` returns: the match after one step, as if it were live."""

    state: Any
    rewards: jax.Array | None = None
    """f32[num_agents] earned on this step; None for a game that pays `payoffs` when it ends."""
    info: dict[str, jax.Array] | None = None
    """Extra `Step.info` fields of this step."""


class BaseKernel:
    """A functional environment (see `kernels.env.Env`) with the episode's end handled once."""

    game_id: str
    num_agents: int
    reset_when_any_done = False
    """True when matches end only on the same steps (a fixed length): see `kernels.env.Env`."""

    # --- what a kernel defines ------------------------------------------------------------------

    def default_params(self) -> Any:
        raise NotImplementedError

    def draws(self, key: jax.Array, params: Any) -> Any:
        """Every random draw a match needs, made up front."""
        raise NotImplementedError

    def init_state(self, params: Any, draws: Any) -> Any:
        """The initial state given explicit draws; it has a `done` field (bool[])."""
        raise NotImplementedError

    def observe(self, state: Any, params: Any) -> dict[str, jax.Array]:
        raise NotImplementedError

    def move(self, key: jax.Array, state: Any, actions: jax.Array, params: Any) -> Moved:
        """The match after the agents' actions, for a match still running (`step` freezes a finished
        one). An illegal action moves it as the kernel's documented fallback does (a pass, a reject, a
        stay), never as a legal move would."""
        raise NotImplementedError

    def payoffs(self, state: Any, params: Any) -> jax.Array:
        """f32[num_agents]: what each agent gets if the match ends in `state` (games that pay at the end)."""
        raise NotImplementedError

    def replace_illegal(self, state: Any, actions: jax.Array, params: Any) -> tuple[jax.Array, jax.Array | None]:
        """(actions with every illegal one replaced by the fallback, which were illegal); by default the
        actions as they are and None, for a kernel whose `move` reads an illegal action as its fallback."""
        return actions, None

    # --- what the base does ---------------------------------------------------------------------

    def reset(self, key: jax.Array, params: Any) -> tuple[Any, Any]:
        """(obs, state) of a fresh match."""
        state = self.init_state(params, self.draws(key, params))
        return self.observe(state, params), state

    def observation_space(self, params: Any) -> spaces.Dict:
        return spaces.observed(self, params)

    def freeze(self, state: Any, moved: Any) -> Any:
        """`moved`, or `state` itself where the match was already over."""
        return jax.tree.map(lambda old, nxt: jnp.where(state.done, old, nxt), state, moved)

    def step(self, key: jax.Array, state: Any, actions: jax.Array, params: Any) -> Step:
        """Apply the agents' actions; stepping a finished match changes nothing and earns nothing."""
        actions, illegal = self.replace_illegal(state, actions, params)
        moved = self.move(key, state, actions, params)
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

    def step_autoreset(self, key: jax.Array, state: Any, actions: jax.Array, params: Any) -> Step:
        """gymnax's step: `step`, then a fresh match (drawn from `key`) in place of one that ended. The
        rewards, done and info are the ended match's; obs and state are the fresh one's."""
        step_key, reset_key = threefry.split(key)
        step = self.step(step_key, state, actions, params)
        fresh = self.reset(reset_key, params)
        obs, new = jax.tree.map(lambda a, b: jnp.where(step.done, a, b), fresh, (step.obs, step.state))
        return step._replace(obs=obs, state=new)
