"""company_car as a functional environment: price offers under decaying BATNAs, shuffled order each round.

Actions: int32[2, 2], one row per seat (only the seat to move is read): [kind, price in cents]
with kind 0 = offer (price clipped to the configured range), 1 = accept the other's standing
offer, 2 = reject. Prices live on the engine's cent grid as integers, so two offers agree exactly
when the engine's do (40000.00 and 40000.01 never merge). An offer with no proposals left, or an
accept with nothing to accept, is not legal and counts as a reject if played anyway. Draws: which
seat is the buyer, and who opens each round.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import JsonValue

from negotiation_platform.games.company_car import CompanyCarConfig, CompanyCarGame
from negotiation_platform.kernels import spaces
from negotiation_platform.kernels.base import BaseKernel, Moved, round_openers
from negotiation_platform.kernels.sampling import coin_flips, uniform_index_pair
from negotiation_platform.kernels.selects import entry
from negotiation_platform.kernels.table_views import bilateral_seat, decayed_batna
from negotiation_platform.kernels.utilities import decayed

if TYPE_CHECKING:
    from negotiation_platform.engine.match import Match

OFFER, ACCEPT, REJECT = 0, 1, 2


class Params(NamedTuple):
    buyer_batna: jax.Array
    seller_batna: jax.Array
    buyer_decay: jax.Array
    seller_decay: jax.Array
    min_cents: jax.Array
    """int32: the lowest price, in cents."""
    max_cents: jax.Array
    seller_cost: jax.Array
    starting_price: jax.Array
    twice_buyer_cents: jax.Array
    """int32[rounds]: the whole cents of 2 × the buyer's BATNA in each round (its utility at price 0)."""
    twice_buyer_fraction: jax.Array
    """float32[rounds]: the fraction of a cent left over (in [0, 1)), computed like the engine's BATNA."""


def twice_batna_cents(batna: float, decay: float, rounds: int) -> tuple[jax.Array, jax.Array]:
    """2 × batna × (1 − decay) ** (r − 1) in cents for r = 1..rounds, split into whole cents (int32) and
    the rest (float32): the buyer's payoff in cents is then an exact integer difference plus a fraction."""
    twice = [2 * batna * (1 - decay) ** (r - 1) * 100 for r in range(1, rounds + 1)]
    whole = np.floor(twice)
    return jnp.asarray(whole, jnp.int32), jnp.asarray(np.subtract(twice, whole), jnp.float32)


class Draws(NamedTuple):
    buyer_seat: jax.Array
    openers: jax.Array
    """int32[rounds]: the seat that moves first in each round."""


class State(NamedTuple):
    round: jax.Array
    pos: jax.Array
    buyer_seat: jax.Array
    openers: jax.Array
    offer_cents: jax.Array
    """int32[2]: each seat's standing offer, in cents."""
    offer_round: jax.Array
    proposals: jax.Array
    done: jax.Array
    agreed: jax.Array
    cents: jax.Array
    """int32: the agreed price, in cents."""
    agree_round: jax.Array


class CompanyCarEnv(BaseKernel[State, Params]):
    game_id = "company_car"
    num_agents = 2
    reset_when_any_done = False  # matches end on agreement, at different steps

    def __init__(self, rounds: int = 5, params: Params | None = None) -> None:
        self.rounds = rounds
        self._defaults = params or Params(
            jnp.float32(41000),
            jnp.float32(39000),
            jnp.float32(0.015),
            jnp.float32(0.015),
            jnp.int32(1_000_000),
            jnp.int32(10_000_000),
            jnp.float32(36000),
            jnp.float32(45000),
            *twice_batna_cents(41000, 0.015, rounds),
        )

    @classmethod
    def from_config(cls, config: CompanyCarConfig) -> tuple[CompanyCarEnv, Params]:
        decay = config.batna_decay
        buyer_decay = decay.get("buyer", 0.0) if isinstance(decay, dict) else decay
        seller_decay = decay.get("seller", 0.0) if isinstance(decay, dict) else decay
        params = Params(
            jnp.float32(config.buyer_batna),
            jnp.float32(config.seller_batna),
            jnp.float32(buyer_decay),
            jnp.float32(seller_decay),
            jnp.int32(round(config.min_price * 100)),
            jnp.int32(round(config.max_price * 100)),
            jnp.float32(config.seller_cost),
            jnp.float32(config.starting_price),
            *twice_batna_cents(config.buyer_batna, buyer_decay, config.rounds),
        )
        env = cls(config.rounds, params)
        return env, params

    def default_params(self) -> Params:
        return self._defaults

    def action_space(self, params: Params) -> spaces.Box:
        """[kind, price in cents]: kind 0 offer, 1 accept, 2 reject; the price is read for offers only."""
        return spaces.Box(jnp.array([0, params.min_cents]), jnp.array([2, params.max_cents]), (2,), jnp.int32)

    def current_player(self, state: State) -> jax.Array:
        """The seat to move (turns alternate; only its row of the actions is read)."""
        return self.actor(state)

    def draws(self, key: jax.Array, params: Params) -> Draws:
        flips = coin_flips(key, self.rounds + 1)
        return Draws(flips[0], flips[1:])

    def init_state(self, params: Params, draws: Draws) -> State:
        zero = jnp.int32(0)
        return State(
            round=jnp.int32(1),
            pos=zero,
            buyer_seat=draws.buyer_seat,
            openers=draws.openers,
            offer_cents=jnp.zeros(2, jnp.int32),
            offer_round=jnp.zeros(2, jnp.int32),
            proposals=jnp.zeros(2, jnp.int32),
            done=jnp.bool_(False),
            agreed=jnp.bool_(False),
            cents=zero,
            agree_round=zero,
        )

    def engine_draws(self, match: Match) -> Draws:
        """An engine match's draws in this form (`check_kernel`): the buyer's seat and each round's opener
        (rounds the match never reached open with seat 0)."""
        return Draws(
            jnp.int32(match.players.index(match.game.game_data["role_assignments"]["buyer"])),
            round_openers(match, self.rounds),
        )

    def actor(self, state: State) -> jax.Array:
        opener = state.openers[jnp.clip(state.round - 1, 0, self.rounds - 1)]
        return jnp.where(state.pos == 0, opener, 1 - opener)

    def legal_kinds(self, state: State) -> jax.Array:
        """bool[2, 3]: which of offer / accept / reject each seat may play now."""
        seats = jnp.arange(2)
        moving = (seats == self.actor(state)) & ~state.done
        can_offer = state.proposals < self.rounds - 1
        can_accept = state.offer_round[::-1] > 0  # the other seat's offer
        return jnp.stack([can_offer, can_accept, jnp.ones(2, bool)], axis=-1) & moving[:, None]

    def observe(self, state: State, params: Params) -> dict[str, jax.Array]:
        seats = jnp.arange(2)
        is_buyer = state.buyer_seat == seats
        batna = jnp.where(
            is_buyer,
            decayed(params.buyer_batna, params.buyer_decay, state.round, self.rounds),
            decayed(params.seller_batna, params.seller_decay, state.round, self.rounds),
        )
        features = jnp.stack(
            [
                jnp.broadcast_to(state.round / self.rounds, (2,)),
                (self.actor(state) == seats).astype(jnp.float32),
                is_buyer.astype(jnp.float32),
                batna * 100 / params.max_cents,
                state.offer_cents[1 - seats] / params.max_cents,
                (state.offer_round[1 - seats] > 0).astype(jnp.float32),
                (self.rounds - 1 - state.proposals) / self.rounds,
            ],
            axis=-1,
        )
        return {"features": features, "legal_action_mask": self.legal_kinds(state)}

    def move(self, key: jax.Array, state: State, actions: jax.Array, params: Params) -> Moved[State]:
        actor = self.actor(state)
        other = 1 - actor
        kind = entry(actions[:, 0], actor).astype(jnp.int32)
        cents = jnp.clip(entry(actions[:, 1], actor).astype(jnp.int32), params.min_cents, params.max_cents)
        offer = (kind == OFFER) & (entry(state.proposals, actor) < self.rounds - 1)
        their_round, their_cents = entry(state.offer_round, other), entry(state.offer_cents, other)
        accept = (kind == ACCEPT) & (their_round > 0)
        reject = ~offer & ~accept
        identical = offer & (their_round == state.round) & (their_cents == cents)
        agreed = accept | identical
        proposals = state.proposals.at[actor].add(offer.astype(jnp.int32))
        ended = reject & (proposals[actor] >= self.rounds - 1)
        pos = state.pos + 1
        next_round = state.round + (pos == 2)
        moved = State(
            round=next_round,
            pos=pos % 2,
            buyer_seat=state.buyer_seat,
            openers=state.openers,
            offer_cents=jnp.where(offer, state.offer_cents.at[actor].set(cents), state.offer_cents),
            offer_round=jnp.where(offer, state.offer_round.at[actor].set(state.round), state.offer_round),
            proposals=proposals,
            done=agreed | ended | (next_round > self.rounds),
            agreed=agreed,
            cents=jnp.where(accept, their_cents, jnp.where(identical, cents, state.cents)),
            agree_round=jnp.where(agreed, state.round, state.agree_round),
        )
        return Moved(moved)

    def payoffs(self, state: State, params: Params) -> jax.Array:
        """By seat: the buyer's 2·BATNA(r) − p and the seller's p (BATNA(r) plus its surplus p − BATNA(r));
        0 without a deal. The buyer's is an int32 difference in cents plus a fraction (see the module)."""
        index = jnp.clip(state.agree_round - 1, 0, self.rounds - 1)
        buyer_cents = entry(params.twice_buyer_cents, index) - state.cents
        buyer = (buyer_cents.astype(jnp.float32) + entry(params.twice_buyer_fraction, index)) / 100
        seller = state.cents.astype(jnp.float32) / 100
        by_seat = jnp.where(state.buyer_seat == 0, jnp.stack([buyer, seller]), jnp.stack([seller, buyer]))
        return jnp.where(state.agreed, by_seat, 0.0)

    def sample_actions(self, key: jax.Array, state: State, params: Params) -> jax.Array:
        """The mover's kind uniform over its legal kinds and a uniform price, from one draw (only the
        mover's row is read; a categorical over kinds and a second key cost more than the step). Prices
        come from 24 bits: over a range wider than 2**24 cents, some prices are never drawn."""
        legal = entry(self.legal_kinds(state), self.actor(state)).astype(jnp.int32)
        can_offer, can_accept = legal[OFFER], legal[ACCEPT]
        span = params.max_cents - params.min_cents + 1
        pick, offset = uniform_index_pair(key, can_offer + can_accept + 1, span)
        kind = jnp.where(
            (can_offer == 1) & (pick == 0), OFFER, jnp.where((can_accept == 1) & (pick == can_offer), ACCEPT, REJECT)
        )
        return jnp.broadcast_to(jnp.stack([kind, params.min_cents + offset]).astype(jnp.int32), (2, 2))

    def table_observation(self, turn: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """This seat's row of `observe`, rebuilt from its turn state at an engine table."""
        seat = bilateral_seat(turn, CompanyCarGame.role_labels, CompanyCarGame.roles)
        params, buyer = self.default_params(), seat.role == 0
        batna, decay = (params.buyer_batna, params.buyer_decay) if buyer else (params.seller_batna, params.seller_decay)
        top = float(params.max_cents)
        cents = 0 if seat.offer is None else round(float(seat.offer["terms"]["price"]) * 100)
        features = seat.features(
            float(buyer), decayed_batna(float(batna), float(decay), seat.round) * 100 / top, cents / top
        )
        kinds = np.array([seat.proposals_left > 0, seat.offer is not None, True]) & seat.moving
        return {"features": features, "legal_action_mask": kinds}

    def table_action(self, action: np.ndarray, turn: Mapping[str, Any]) -> tuple[str, dict[str, JsonValue]]:
        """The engine move of a [kind, price in cents] row: an offer at that price, accept, or reject."""
        kind, cents = int(action[0]), int(action[1])
        if kind == OFFER:
            return "offer", {"price": cents / 100}
        return ("accept", {}) if kind == ACCEPT else ("reject", {})
