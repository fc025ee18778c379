"""resource_allocation and integrative_negotiation as functional environments over their outcome tables.

Both games share the documented bilateral protocol: two seats with roles drawn from the seed,
`rounds` rounds in a freshly shuffled order, at most rounds − 1 proposals each, agreement on an
accept or on identical offers in one round, and a reject that ends the game only without
proposals left. A proposal here is an index into the game's finite outcome table
(`kernels.outcome_spaces`: every option combination, or every integer plan that meets the
constraints), so an action is int32[2], one code per seat (only the mover's is read):
0..K−1 proposes outcome k, K accepts the other's standing offer, K+1 rejects. An illegal code
counts as a reject, as in the company_car kernel. Rewards arrive when the match ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import JsonValue

from negotiation_platform.games.bilateral import BilateralNegotiation
from negotiation_platform.games.integrative_negotiation import IntegrativeConfig, IntegrativeNegotiationsGame
from negotiation_platform.games.resource_allocation import ResourceAllocationConfig, ResourceAllocationGame
from negotiation_platform.kernels import spaces
from negotiation_platform.kernels.base import BaseKernel, Moved, round_openers
from negotiation_platform.kernels.outcome_spaces import integrative_outcomes, resource_allocation_outcomes
from negotiation_platform.kernels.sampling import coin_flips, uniform_indices
from negotiation_platform.kernels.selects import entry
from negotiation_platform.kernels.table_views import bilateral_seat, decayed_batna
from negotiation_platform.kernels.utilities import round_factor

if TYPE_CHECKING:
    from negotiation_platform.engine.match import Match


class Params(NamedTuple):
    utilities: jax.Array
    """f32[K, 2]: each outcome's utility for role 0 and role 1."""
    batna: jax.Array
    """f32[2] per role."""
    decay: jax.Array


class Draws(NamedTuple):
    role_of_seat0: jax.Array
    openers: jax.Array
    """int32[rounds]: the seat that moves first in each round."""


class State(NamedTuple):
    round: jax.Array
    pos: jax.Array
    role_of_seat0: jax.Array
    openers: jax.Array
    offer: jax.Array
    """int32[2]: each seat's standing offer (an outcome index), −1 for none."""
    offer_round: jax.Array
    proposals: jax.Array
    done: jax.Array
    agreed: jax.Array
    outcome: jax.Array
    end_round: jax.Array


class OutcomeBargainingEnv(BaseKernel[State, Params]):
    """The bilateral protocol over a finite outcome table; a game supplies the table and two rules."""

    num_agents = 2
    reset_when_any_done = False  # matches end on agreement, at different steps

    def __init__(
        self,
        game_id: str,
        outcomes: np.ndarray,
        params: Params,
        rounds: int,
        *,
        accept_same_round: bool,
        batna_without_deal: bool,
    ) -> None:
        self.game_id = game_id
        self.outcomes = outcomes
        """The outcome of each index, in the game's own terms (option indices, or a plan)."""
        self.rounds = rounds
        self.accept_same_round = accept_same_round
        self.batna_without_deal = batna_without_deal
        self._defaults = params
        self.accept_code = len(outcomes)
        self.reject_code = self.accept_code + 1

    def default_params(self) -> Params:
        return self._defaults

    @property
    def num_actions(self) -> int:
        return self.reject_code + 1

    def action_space(self, params: Params) -> spaces.Discrete:
        return spaces.Discrete(self.num_actions)

    def draws(self, key: jax.Array, params: Params) -> Draws:
        flips = coin_flips(key, self.rounds + 1)
        return Draws(flips[0], flips[1:])

    def init_state(self, params: Params, draws: Draws) -> State:
        zero, none = jnp.int32(0), jnp.full(2, -1, jnp.int32)
        return State(
            round=jnp.int32(1),
            pos=zero,
            role_of_seat0=jnp.asarray(draws.role_of_seat0, jnp.int32),
            openers=jnp.asarray(draws.openers, jnp.int32),
            offer=none,
            offer_round=jnp.zeros(2, jnp.int32),
            proposals=jnp.zeros(2, jnp.int32),
            done=jnp.bool_(False),
            agreed=jnp.bool_(False),
            outcome=jnp.int32(-1),
            end_round=jnp.int32(1),
        )

    def engine_draws(self, match: Match) -> Draws:
        """An engine match's draws in this form (`check_kernel`): seat 0's role and each round's opener."""
        game = match.game
        assert isinstance(game, BilateralNegotiation), "a bilateral kernel replays a bilateral game"
        role = type(game).roles.index(game.game_data["roles"][match.players[0]])
        return Draws(jnp.int32(role), round_openers(match, self.rounds))

    def current_player(self, state: State) -> jax.Array:
        opener = state.openers[jnp.clip(state.round - 1, 0, self.rounds - 1)]
        return jnp.where(state.pos == 0, opener, 1 - opener)

    def roles(self, state: State) -> jax.Array:
        """int32[2]: the role of each seat."""
        return jnp.stack([state.role_of_seat0, 1 - state.role_of_seat0])

    def _can_accept(self, state: State) -> jax.Array:
        """bool[2]: whether each seat could accept the other's standing offer now."""
        other = jnp.array([1, 0])
        timely = jnp.bool_(True) if self.accept_same_round else state.offer_round[other] < state.round
        return (state.offer[other] >= 0) & timely

    def _open_moves(self, state: State) -> tuple[jax.Array, jax.Array, jax.Array]:
        """bool[2] each: whether a seat may propose, accept or reject now (only the mover, before the end).

        The legal codes are these three facts spread over K + 2 codes; `step` and `sample_actions` read
        the facts, so their cost does not grow with the outcome table (thousands of plans).
        """
        moving = (jnp.arange(2) == self.current_player(state)) & ~state.done
        can_propose = moving & (state.proposals < self.rounds - 1)
        return can_propose, moving & self._can_accept(state), moving

    def legal_mask(self, state: State) -> jax.Array:
        """bool[2, K + 2]: the mover's legal codes (all False for the other seat and once the match is over)."""
        can_propose, can_accept, can_reject = self._open_moves(state)
        codes = jnp.arange(self.num_actions)[None, :]
        return (
            ((codes < self.accept_code) & can_propose[:, None])
            | ((codes == self.accept_code) & can_accept[:, None])
            | ((codes == self.reject_code) & can_reject[:, None])
        )

    def _is_legal(self, state: State, seat: jax.Array, code: jax.Array) -> jax.Array:
        can_propose, can_accept, can_reject = self._open_moves(state)
        return jnp.where(
            code < self.accept_code,
            (code >= 0) & can_propose[seat],
            jnp.where(code == self.accept_code, can_accept[seat], (code == self.reject_code) & can_reject[seat]),
        )

    def observe(self, state: State, params: Params) -> dict[str, jax.Array]:
        seats = jnp.arange(2)
        roles = self.roles(state)
        scale = jnp.maximum(jnp.abs(params.utilities).max(), 1.0)
        batna = params.batna[roles] * self._decay_at(params, state.round)[roles]
        standing = state.offer[1 - seats]
        offered = params.utilities[jnp.maximum(standing, 0), roles]
        features = jnp.stack(
            [
                jnp.broadcast_to(state.round / self.rounds, (2,)),
                (self.current_player(state) == seats).astype(jnp.float32),
                roles.astype(jnp.float32),
                batna / scale,
                jnp.where(standing >= 0, offered / scale, 0.0),
                (standing >= 0).astype(jnp.float32),
                (self.rounds - 1 - state.proposals) / self.rounds,
            ],
            axis=-1,
        )
        return {"features": features, "legal_action_mask": self.legal_mask(state)}

    def replace_illegal(self, state: State, actions: jax.Array, params: Params) -> tuple[jax.Array, jax.Array]:
        """The mover's code for both seats (only the mover's is read), a reject where it is illegal."""
        actor = self.current_player(state)
        code = actions[actor].astype(jnp.int32)
        legal = self._is_legal(state, actor, code)
        return jnp.broadcast_to(jnp.where(legal, code, self.reject_code), (2,)), ~legal

    def move(self, key: jax.Array, state: State, actions: jax.Array, params: Params) -> Moved[State]:
        actor = self.current_player(state)
        other = 1 - actor
        code = entry(actions, actor)  # selects, which XLA folds: `replace_illegal` gave every seat this code
        propose = code < self.accept_code
        accept = code == self.accept_code
        identical = propose & (state.offer_round[other] == state.round) & (state.offer[other] == code)
        agreed = accept | identical
        proposals = state.proposals.at[actor].add(propose.astype(jnp.int32))
        ended = (code == self.reject_code) & (proposals[actor] >= self.rounds - 1)
        pos = state.pos + 1
        next_round = state.round + (pos == 2)
        moved = state._replace(
            round=next_round,
            pos=pos % 2,
            offer=jnp.where(propose, state.offer.at[actor].set(code), state.offer),
            offer_round=jnp.where(propose, state.offer_round.at[actor].set(state.round), state.offer_round),
            proposals=proposals,
            done=agreed | ended | (next_round > self.rounds),
            agreed=agreed,
            outcome=jnp.where(accept, state.offer[other], jnp.where(identical, code, state.outcome)),
            end_round=jnp.minimum(state.round, self.rounds),
        )
        return Moved(moved)

    def payoffs(self, state: State, params: Params) -> jax.Array:
        """f32[2]: the agreed outcome's utility for each seat's role; without a deal 0 or the decayed BATNA."""
        roles = self.roles(state)
        agreed = params.utilities[jnp.maximum(state.outcome, 0), roles]
        fallback = params.batna[roles] * self._decay_at(params, state.end_round)[roles]
        no_deal = fallback if self.batna_without_deal else jnp.zeros(2)
        return jnp.where(state.agreed, agreed, no_deal)

    def _decay_at(self, params: Params, round_number: jax.Array) -> jax.Array:
        """f32[2] by role: (1 − decay) ** (round − 1) (see `utilities.round_factor`)."""
        return round_factor(1 - params.decay, round_number, self.rounds)

    def sample_actions(self, key: jax.Array, state: State, params: Params) -> jax.Array:
        """Uniform over the mover's legal codes: the proposals (when open) come first, then accept (when
        open), then reject; a draw below the count of open codes is mapped to its code directly."""
        can_propose, can_accept, _ = self._open_moves(state)
        seat = self.current_player(state)
        proposals = jnp.where(can_propose[seat], self.accept_code, 0)
        accepts = can_accept[seat].astype(jnp.int32)
        pick = uniform_indices(key, proposals + accepts + 1)
        code = jnp.where(
            pick < proposals, pick, jnp.where((pick == proposals) & (accepts == 1), self.accept_code, self.reject_code)
        )
        return jnp.broadcast_to(code.astype(jnp.int32), (2,))

    # --- at an engine table ---------------------------------------------------------------------

    table_game: ClassVar[type[BilateralNegotiation[Any]]]
    """The engine game whose view `table_observation` reads (its roles and their labels)."""
    config: Any
    """The game's Config (set by `from_config`): the table methods translate terms with it."""

    def table_observation(self, turn: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """This seat's row of `observe`, rebuilt from its turn state at an engine table."""
        seat = bilateral_seat(turn, self.table_game.role_labels, self.table_game.roles)
        params = self.default_params()
        utilities = np.asarray(params.utilities)
        scale = max(float(np.abs(utilities).max()), 1.0)
        batna = decayed_batna(float(params.batna[seat.role]), float(params.decay[seat.role]), seat.round)
        offer = seat.offer
        offered = 0.0 if offer is None else self.table_utility(offer["terms"], seat.role, utilities) / scale
        features = seat.features(float(seat.role), batna / scale, offered)
        timely = offer is not None and (self.accept_same_round or offer["round"] < seat.round)
        codes = np.arange(self.num_actions)
        legal = (
            ((codes < self.accept_code) & (seat.proposals_left > 0))
            | ((codes == self.accept_code) & timely)
            | (codes == self.reject_code)
        )
        return {"features": features, "legal_action_mask": legal & seat.moving}

    def table_action(self, action: np.ndarray, turn: Mapping[str, Any]) -> tuple[str, dict[str, JsonValue]]:
        """The engine move of a code: propose its outcome, accept, or reject."""
        code = int(action)
        if code < self.accept_code:
            return self.table_game.proposal_action, self.table_payload(code)
        return ("accept", {}) if code == self.accept_code else ("reject", {})

    def table_utility(self, terms: Mapping[str, Any], role: int, utilities: np.ndarray) -> float:
        """The utility for `role` of offered terms (the engine's normalised terms)."""
        raise NotImplementedError

    def table_payload(self, code: int) -> dict[str, JsonValue]:
        """The engine payload that proposes outcome `code`."""
        raise NotImplementedError


def _per_role(
    config: IntegrativeConfig | ResourceAllocationConfig, roles: tuple[str, str]
) -> tuple[jax.Array, jax.Array]:
    decay = config.batna_decay
    rates = [float(decay.get(r, 0.0)) if isinstance(decay, dict) else float(decay) for r in roles]
    return jnp.array([config.batnas[r] for r in roles], jnp.float32), jnp.array(rates, jnp.float32)


class ResourceAllocationEnv(OutcomeBargainingEnv):
    """resource_allocation on its integer grid of feasible plans; no deal pays the decayed BATNA, and an
    offer can be accepted only in a round after the one it was made in."""

    @classmethod
    def from_config(cls, config: ResourceAllocationConfig) -> tuple[ResourceAllocationEnv, Params]:
        plans, utilities = resource_allocation_outcomes(config)
        batna, decay = _per_role(config, ("development", "marketing"))
        params = Params(jnp.asarray(utilities, jnp.float32), batna, decay)
        env = cls("resource_allocation", plans, params, config.rounds, accept_same_round=False, batna_without_deal=True)
        env.config = config
        return env, params

    table_game = ResourceAllocationGame

    def table_utility(self, terms: Mapping[str, Any], role: int, utilities: np.ndarray) -> float:
        """The role's linear utility of the plan (any plan: another seat may offer one off the kernel's grid)."""
        gpu_value, cpu_value = self.config.utility_coefficients[ResourceAllocationGame.roles[role]]
        return float(gpu_value * terms["gpu_hours"] + cpu_value * terms["cpu_hours"])

    def table_payload(self, code: int) -> dict[str, JsonValue]:
        gpu_hours, cpu_hours = self.outcomes[code]
        return {"gpu_hours": float(gpu_hours), "cpu_hours": float(cpu_hours)}


class IntegrativeEnv(OutcomeBargainingEnv):
    """integrative_negotiation over every combination of options; no deal pays 0."""

    @classmethod
    def from_config(cls, config: IntegrativeConfig) -> tuple[IntegrativeEnv, Params]:
        choices, utilities = integrative_outcomes(config)
        batna, decay = _per_role(config, ("IT", "Marketing"))
        params = Params(jnp.asarray(utilities, jnp.float32), batna, decay)
        env = cls(
            "integrative_negotiation", choices, params, config.rounds, accept_same_round=True, batna_without_deal=False
        )
        env.config = config
        return env, params

    table_game = IntegrativeNegotiationsGame

    def table_utility(self, terms: Mapping[str, Any], role: int, utilities: np.ndarray) -> float:
        """The outcome table's entry for the offered options (the engine snaps every offer to options)."""
        issues = self.config.issues
        picked = [issue.options.index(terms[name]) for name, issue in issues.items()]
        code = np.ravel_multi_index(picked, [len(issue.options) for issue in issues.values()])
        return float(utilities[code, role])

    def table_payload(self, code: int) -> dict[str, JsonValue]:
        issues = self.config.issues.items()
        return {
            "proposal": {
                name: issue.options[int(k)] for (name, issue), k in zip(issues, self.outcomes[code], strict=True)
            }
        }
