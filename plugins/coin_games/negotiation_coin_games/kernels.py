"""JAX twins of the four coin games (imported only when a kernel is asked for; needs JAX).

One env step is one round's simultaneous split: actions are int32[2, items] claims. The talk
phase is free text and is not modelled. All of a match's randomness (the starting agent, each
round's stock, values and hands) is drawn up front by `draws`, so `init_state` can also be fed
the engine's own draws.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from negotiation_platform.kernels import spaces, threefry
from negotiation_platform.kernels.base import BaseKernel, Moved
from negotiation_platform.kernels.env import Step
from negotiation_platform.kernels.sampling import coin_flips, uniform_indices

SPLIT = "split"

HANDS = ("rock", "paper", "scissors")


def proportional_allocation(claims: jax.Array, stock: jax.Array) -> jax.Array:
    """[..., 2, items]: each agent gets stock · claim / max(stock, Σ claims)."""
    scale = jnp.maximum(stock, claims.sum(axis=-2))[..., None, :]
    return jnp.where(scale > 0, stock[..., None, :] * claims / jnp.where(scale > 0, scale, 1.0), 0.0)


def exact_allocation(claims: jax.Array, stock: jax.Array) -> jax.Array:
    """[..., 2, items]: the claims if together they take exactly the whole stock of every item, else nothing."""
    deal = jnp.all(claims.sum(axis=-2) == stock, axis=-1)
    return jnp.where(deal[..., None, None], claims, 0.0)


def coin_rewards(claims: jax.Array, values: jax.Array, stock: jax.Array, exact: bool) -> jax.Array:
    """[..., 2]: Σ_items allocation × own per-unit value (the batched utility of a round)."""
    allocation = exact_allocation(claims, stock) if exact else proportional_allocation(claims, stock)
    return jnp.sum(allocation * values, axis=-1)


class Draws(NamedTuple):
    first_starter: jax.Array
    stock: jax.Array
    """f32[rounds, items]"""
    values: jax.Array
    """f32[rounds, 2, items]"""
    hands: jax.Array
    """int32[rounds, 2] (trust-and-split; zeros elsewhere)"""


class State(NamedTuple):
    round: jax.Array
    draws: Draws
    totals: jax.Array
    done: jax.Array


class CoinEnv(BaseKernel[State, None]):
    """The shared round structure; variants draw the rounds and say what an agent observes."""

    game_id = ""
    num_agents = 2
    exact = False
    reset_when_any_done = True  # every match lasts exactly `rounds` rounds

    def __init__(self, config: Any, items: int = 1) -> None:
        self.config = config
        self.rounds = config.rounds
        self.items = items

    @classmethod
    def from_config(cls, config: Any) -> tuple[CoinEnv, None]:
        return cls(config), None

    def default_params(self) -> None:
        return None

    def action_space(self, params: None) -> spaces.MultiDiscrete:
        """A claim of each item type, 0..the most that can be on the table (more is clipped)."""
        return spaces.MultiDiscrete((int(self.max_claim()) + 1,) * self.items)

    def starters(self, first_starter: jax.Array) -> jax.Array:
        """int32[rounds]: the starting agent of each round (drawn once, then alternating)."""
        return (first_starter + jnp.arange(self.rounds)) % 2

    def draws(self, key: jax.Array, params: None) -> Draws:
        first_key, round_key = threefry.split(key)
        first = coin_flips(first_key, 1)[0]
        stock, values, hands = self.draw_rounds(round_key, self.starters(first))
        return Draws(first, stock, values, hands)

    def draw_rounds(self, key: jax.Array, starters: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        raise NotImplementedError

    def coin_stock(self) -> jax.Array:
        return jnp.full((self.rounds, 1), float(self.config.coins))

    def init_state(self, params: None, draws: Draws) -> State:
        return State(jnp.int32(0), draws, jnp.zeros(2, jnp.float32), jnp.bool_(False))

    def engine_draws(self, match: Any) -> Draws:
        """An engine match's draws for every round in this form (`check_kernel`, the differential tests)."""
        rounds, players = match.game.game_data["rounds"], match.players
        items = list(rounds[0]["stock"])
        return Draws(
            jnp.int32(match.game.game_data["first_starter"]),
            jnp.array([[r["stock"][i] for i in items] for r in rounds], jnp.float32),
            jnp.array([[[r["values"][p][i] for i in items] for p in players] for r in rounds], jnp.float32),
            jnp.array(
                [[HANDS.index(r["hands"][p]) for p in players] if "hands" in r else [0, 0] for r in rounds], jnp.int32
            ),
        )

    def private(self, state: State, r: jax.Array) -> jax.Array:
        """f32[2, k]: what each agent knows of values this round."""
        return state.draws.values[r]

    def observe(self, state: State, params: None = None) -> dict[str, jax.Array]:
        r = jnp.minimum(state.round, self.rounds - 1)
        starter = self.starters(state.draws.first_starter)[r]
        stock = state.draws.stock[r]
        features = jnp.concatenate(
            [
                jnp.broadcast_to(state.round / self.rounds, (2, 1)),
                (jnp.arange(2) == starter).astype(jnp.float32)[:, None],
                jnp.broadcast_to(stock, (2, self.items)),
                self.private(state, r),
            ],
            axis=-1,
        )
        claims = jnp.arange(int(self.max_claim()) + 1)
        legal = jnp.broadcast_to(claims <= stock[:, None], (2, self.items, claims.shape[0])) & ~state.done
        return {
            "features": features,
            "max_claim": jnp.broadcast_to(stock, (2, self.items)),
            "legal_action_mask": legal,
        }

    def table_observation(self, turn: Mapping[str, Any]) -> dict[str, np.ndarray] | None:
        """This seat's row of `observe`, rebuilt from its turn state at an engine table (None when the
        turn is not a split: the talk phase is not modelled)."""
        view = turn["view"]
        if view.get("phase") != SPLIT or view.get("stock") is None:
            return None
        stock = np.array(list(view["stock"].values()), np.float32)
        features = np.concatenate(
            [
                [(view["round"] - 1) / self.rounds, float(view["starting_agent"] == turn["agent_id"])],
                stock,
                self.table_private(view, turn),
            ]
        ).astype(np.float32)
        claims = np.arange(int(self.max_claim()) + 1)
        return {"features": features, "max_claim": stock, "legal_action_mask": claims[None, :] <= stock[:, None]}

    def table_private(self, view: Mapping[str, Any], turn: Mapping[str, Any]) -> np.ndarray:
        """What `private` gives this seat, from its view."""
        return np.array(list(view["your_values"].values()), np.float32)

    def table_action(self, action: np.ndarray, turn: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The engine move of a kernel action row (a claim per item, in the stock's order)."""
        return SPLIT, {item: int(claim) for item, claim in zip(turn["view"]["stock"], action, strict=True)}

    def move(self, key: jax.Array, state: State, actions: jax.Array, params: None) -> Moved[State]:
        r = jnp.minimum(state.round, self.rounds - 1)
        stock = state.draws.stock[r]
        claims = jnp.clip(actions.astype(jnp.float32), 0.0, self.max_claim())
        rewards = coin_rewards(claims, state.draws.values[r], stock, self.exact)
        next_round = state.round + 1
        return Moved(State(next_round, state.draws, state.totals + rewards, next_round >= self.rounds), rewards)

    def step_env(self, key: jax.Array, state: State, actions: jax.Array, params: None) -> Step[State]:
        """`BaseKernel.step_env`, with each agent's total so far in `info["totals"]`."""
        step = super().step_env(key, state, actions, params)
        return step._replace(info={"totals": step.state.totals})

    def max_claim(self) -> float:
        return float(self.config.coins)

    def sample_actions(self, key: jax.Array, state: State, params: None) -> jax.Array:
        """Each agent claims uniformly from 0 to the stock of each item (one generated word per claim)."""
        stock = state.draws.stock[jnp.minimum(state.round, self.rounds - 1)]
        return uniform_indices(key, jnp.broadcast_to(stock.astype(jnp.int32) + 1, (2, self.items)))


class CoinsClassicEnv(CoinEnv):
    game_id = "coins_classic"

    def draw_rounds(self, key: jax.Array, starters: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        low, high = self.config.value_low, self.config.value_high
        values = (low + uniform_indices(key, jnp.full((self.rounds, 2, 1), high - low + 1))).astype(jnp.float32)
        return self.coin_stock(), values, jnp.zeros((self.rounds, 2), jnp.int32)


class TrustAndSplitEnv(CoinEnv):
    game_id = "trust_and_split"

    def draw_rounds(self, key: jax.Array, starters: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        first_key, offset_key = threefry.split(key)
        first_hand = uniform_indices(first_key, jnp.full(self.rounds, 3))
        if self.config.hands == "alternating":  # the starter wins: its hand beats the other's
            winner_hand, loser_hand = first_hand, (first_hand + 2) % 3
            seat0 = jnp.where(starters == 0, winner_hand, loser_hand)
            seat1 = jnp.where(starters == 0, loser_hand, winner_hand)
        else:  # an ordered pair of different hands, uniformly (as drawing until they differ)
            seat0 = first_hand
            seat1 = (first_hand + 1 + coin_flips(offset_key, self.rounds)) % 3
        hands = jnp.stack([seat0, seat1], axis=-1).astype(jnp.int32)
        return self.coin_stock(), self.values_of(hands), hands

    def values_of(self, hands: jax.Array) -> jax.Array:
        """f32[rounds, 2, 1]: the winner of each hand values coins high, the loser low."""
        seat0_wins = (hands[:, 0] + 2) % 3 == hands[:, 1]  # rock(0) beats scissors(2), …
        high, low = float(self.config.winner_value), float(self.config.loser_value)
        return jnp.stack([jnp.where(seat0_wins, high, low), jnp.where(seat0_wins, low, high)], axis=-1)[..., None]

    def private(self, state: State, r: jax.Array) -> jax.Array:
        return jax.nn.one_hot(state.draws.hands[r], 3)

    def table_private(self, view: Mapping[str, Any], turn: Mapping[str, Any]) -> np.ndarray:
        hand: np.ndarray = np.eye(3, dtype=np.float32)[HANDS.index(view["your_hand"])]
        return hand


class NoPressEnv(CoinEnv):
    game_id = "no_press"

    def draw_rounds(self, key: jax.Array, starters: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        low, high = float(self.config.starter_value), float(self.config.other_value)
        seat0 = jnp.where(starters == 0, low, high)
        seat1 = jnp.where(starters == 0, high, low)
        values = jnp.stack([seat0, seat1], axis=-1)[..., None]
        return self.coin_stock(), values, jnp.zeros((self.rounds, 2), jnp.int32)

    def private(self, state: State, r: jax.Array) -> jax.Array:
        return jnp.broadcast_to(state.draws.values[r].reshape(1, 2), (2, 2))  # public values

    def table_private(self, view: Mapping[str, Any], turn: Mapping[str, Any]) -> np.ndarray:
        values = view["all_values"]
        return np.array([next(iter(values[player].values())) for player in turn["players"]], np.float32)


def dond_tables(config: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every admissible stock, and for each the admissible (values_a, values_b) pairs (padded)."""
    table = config.table()
    width = max(len(pairs) for _, pairs in table)
    padded = np.zeros((len(table), width, 2, len(config.items)), np.float32)
    for i, (_, pairs) in enumerate(table):
        padded[i, : len(pairs)] = pairs
    counts = np.array([counts for counts, _ in table], np.float32)
    return counts, padded, np.array([len(pairs) for _, pairs in table], np.int32)


class DealOrNoDealEnv(CoinEnv):
    game_id = "deal_or_no_deal"
    exact = True

    def __init__(self, config: Any) -> None:
        super().__init__(config, items=len(config.items))
        counts, pairs, sizes = dond_tables(config)
        self._counts, self._pairs, self._sizes = jnp.asarray(counts), jnp.asarray(pairs), jnp.asarray(sizes)

    def draw_rounds(self, key: jax.Array, starters: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        stock_key, pair_key = threefry.split(key)
        which = uniform_indices(stock_key, jnp.full(self.rounds, self._counts.shape[0]))
        pick = jnp.floor(threefry.uniform(pair_key, (self.rounds,)) * self._sizes[which]).astype(jnp.int32)
        return self._counts[which], self._pairs[which, pick], jnp.zeros((self.rounds, 2), jnp.int32)

    def max_claim(self) -> float:
        return float(self.config.max_count)


def dond_outcomes(stock: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, Any]:
    """Every exact split of a stock (agent 0's share) and its utilities for both agents."""
    shares = np.array(list(itertools.product(*(range(int(c) + 1) for c in stock))), np.float32)
    utilities = jnp.stack([shares @ values[0], (stock - shares) @ values[1]], axis=-1)
    return shares, utilities


KERNELS: dict[str, type[CoinEnv]] = {
    env.game_id: env for env in (CoinsClassicEnv, TrustAndSplitEnv, NoPressEnv, DealOrNoDealEnv)
}
"""Each coin game's kernel by game id."""
