"""company_car as a functional environment: price offers under decaying BATNAs, shuffled order each round.

Actions: f32[2, 2], one row per seat (only the seat to move is read): [kind, price] with kind
0 = offer (price clipped to the configured range), 1 = accept the other's standing offer,
2 = reject. An offer with no proposals left, or an accept with nothing to accept, is not legal
and counts as a reject if played anyway. Draws: which seat is the buyer, and who opens each round.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from negotiation_platform.kernels import spaces
from negotiation_platform.kernels.env import Step
from negotiation_platform.kernels.utilities import company_car_utilities, decayed

OFFER, ACCEPT, REJECT = 0, 1, 2


class Params(NamedTuple):
    buyer_batna: jax.Array
    seller_batna: jax.Array
    buyer_decay: jax.Array
    seller_decay: jax.Array
    min_price: jax.Array
    max_price: jax.Array
    seller_cost: jax.Array
    starting_price: jax.Array


class Draws(NamedTuple):
    buyer_seat: jax.Array
    openers: jax.Array
    """int32[rounds]: the seat that moves first in each round."""


class State(NamedTuple):
    round: jax.Array
    pos: jax.Array
    buyer_seat: jax.Array
    openers: jax.Array
    offer_price: jax.Array
    offer_round: jax.Array
    proposals: jax.Array
    done: jax.Array
    agreed: jax.Array
    price: jax.Array
    agree_round: jax.Array


class CompanyCarEnv:
    game_id = "company_car"
    num_agents = 2
    reset_when_any_done = False  # matches end on agreement, at different steps

    def __init__(self, rounds: int = 5, params: Params | None = None) -> None:
        self.rounds = rounds
        self._defaults = params or Params(
            *(jnp.float32(x) for x in (41000, 39000, 0.015, 0.015, 10000, 100000, 36000, 45000))
        )

    @classmethod
    def from_config(cls, config: Any) -> tuple[CompanyCarEnv, Params]:
        decay = config.batna_decay
        buyer_decay = decay.get("buyer", 0.0) if isinstance(decay, dict) else decay
        seller_decay = decay.get("seller", 0.0) if isinstance(decay, dict) else decay
        params = Params(
            *(
                jnp.float32(x)
                for x in (
                    config.buyer_batna,
                    config.seller_batna,
                    buyer_decay,
                    seller_decay,
                    config.min_price,
                    config.max_price,
                    config.seller_cost,
                    config.starting_price,
                )
            )
        )
        env = cls(config.rounds, params)
        return env, params

    def default_params(self) -> Params:
        return self._defaults

    def action_space(self, params: Params) -> spaces.Box:
        """[kind, price]: kind 0 offer, 1 accept, 2 reject; the price is read for offers only."""
        return spaces.Box(jnp.array([0.0, params.min_price]), jnp.array([2.0, params.max_price]), (2,), jnp.float32)

    def observation_space(self, params: Params) -> spaces.Dict:
        return spaces.observed(self, params)

    def current_player(self, state: State) -> jax.Array:
        """The seat to move (turns alternate; only its row of the actions is read)."""
        return self.actor(state)

    def draws(self, key: jax.Array, params: Params) -> Draws:
        seat_key, order_key = jax.random.split(key)
        return Draws(
            jax.random.randint(seat_key, (), 0, 2, dtype=jnp.int32),
            jax.random.randint(order_key, (self.rounds,), 0, 2, dtype=jnp.int32),
        )

    def init_state(self, params: Params, draws: Draws) -> State:
        zero = jnp.int32(0)
        return State(
            round=jnp.int32(1),
            pos=zero,
            buyer_seat=draws.buyer_seat,
            openers=draws.openers,
            offer_price=jnp.zeros(2, jnp.float32),
            offer_round=jnp.zeros(2, jnp.int32),
            proposals=jnp.zeros(2, jnp.int32),
            done=jnp.bool_(False),
            agreed=jnp.bool_(False),
            price=jnp.float32(0),
            agree_round=zero,
        )

    def reset(self, key: jax.Array, params: Params) -> tuple[Any, State]:
        state = self.init_state(params, self.draws(key, params))
        return self.observe(state, params), state

    def actor(self, state: State) -> jax.Array:
        opener = state.openers[jnp.clip(state.round - 1, 0, self.rounds - 1)]
        return jnp.where(state.pos == 0, opener, 1 - opener)

    def legal_kinds(self, state: State) -> jax.Array:
        """bool[2, 3]: which of offer / accept / reject each seat may play now."""
        seats = jnp.arange(2)
        moving = (seats == self.actor(state)) & ~state.done
        can_offer = state.proposals < self.rounds - 1
        can_accept = state.offer_round[1 - seats] > 0
        return jnp.stack([can_offer, can_accept, jnp.ones(2, bool)], axis=-1) & moving[:, None]

    def observe(self, state: State, params: Params) -> dict[str, jax.Array]:
        seats = jnp.arange(2)
        is_buyer = state.buyer_seat == seats
        batna = jnp.where(
            is_buyer,
            decayed(params.buyer_batna, params.buyer_decay, state.round),
            decayed(params.seller_batna, params.seller_decay, state.round),
        )
        features = jnp.stack(
            [
                jnp.broadcast_to(state.round / self.rounds, (2,)),
                (self.actor(state) == seats).astype(jnp.float32),
                is_buyer.astype(jnp.float32),
                batna / params.max_price,
                state.offer_price[1 - seats] / params.max_price,
                (state.offer_round[1 - seats] > 0).astype(jnp.float32),
                (self.rounds - 1 - state.proposals) / self.rounds,
            ],
            axis=-1,
        )
        return {"features": features, "legal_action_mask": self.legal_kinds(state)}

    def step(self, key: jax.Array, state: State, actions: jax.Array, params: Params) -> Step:
        actor = self.actor(state)
        other = 1 - actor
        kind = actions[actor, 0].astype(jnp.int32)
        price = jnp.clip(actions[actor, 1], params.min_price, params.max_price)
        offer = (kind == OFFER) & (state.proposals[actor] < self.rounds - 1)
        accept = (kind == ACCEPT) & (state.offer_round[other] > 0)
        reject = ~offer & ~accept
        identical = offer & (state.offer_round[other] == state.round) & (state.offer_price[other] == price)
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
            offer_price=jnp.where(offer, state.offer_price.at[actor].set(price), state.offer_price),
            offer_round=jnp.where(offer, state.offer_round.at[actor].set(state.round), state.offer_round),
            proposals=proposals,
            done=agreed | ended | (next_round > self.rounds),
            agreed=agreed,
            price=jnp.where(accept, state.offer_price[other], jnp.where(identical, price, state.price)),
            agree_round=jnp.where(agreed, state.round, state.agree_round),
        )
        new = jax.tree.map(lambda old, nxt: jnp.where(state.done, old, nxt), state, moved)
        payoff = company_car_utilities(
            new.price,
            new.agree_round,
            new.agreed,
            new.buyer_seat,
            params.buyer_batna,
            params.seller_batna,
            params.buyer_decay,
            params.seller_decay,
        )
        rewards = jnp.where(new.done & ~state.done, payoff, 0.0)
        return Step(self.observe(new, params), new, rewards, new.done, {"payoffs": payoff})

    def sample_actions(self, key: jax.Array, state: State, params: Params) -> jax.Array:
        kind_key, price_key = jax.random.split(key)
        legal = self.legal_kinds(state)
        legal = legal.at[:, REJECT].set(True)
        kinds = jax.random.categorical(kind_key, jnp.where(legal, 0.0, -jnp.inf), axis=-1)
        prices = jax.random.uniform(price_key, (2,), minval=params.min_price, maxval=params.max_price)
        return jnp.stack([kinds.astype(jnp.float32), prices], axis=-1)
