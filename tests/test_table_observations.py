"""A trained policy sees at an engine table what it saw in training, and its every move means the same there.

For company_car, resource_allocation, integrative_negotiation and auction: a seeded engine match is
played with codes drawn from the rebuilt observation's legal mask, then replayed into the kernel
from the engine's own draws. Before every move, each seat's observation rebuilt from its turn
state (`table_observation`) equals the kernel's own, field by field; and every legal code (a sample
of the thousands of resource plans) maps (`table_action`) to a move the engine accepts, after which
the engine's state, rebuilt again, equals the kernel's state after that code.
"""

from __future__ import annotations

import copy
import functools
import random
from typing import Any, NamedTuple

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from negotiation_platform.engine import EventKind, Match  # noqa: E402
from negotiation_platform.games import AuctionGame  # noqa: E402
from negotiation_platform.kernels import kernel_for  # noqa: E402
from negotiation_platform.kernels.auction import Draws as AuctionDraws  # noqa: E402
from negotiation_platform.kernels.marl import MarlEnv, flat_features  # noqa: E402
from negotiation_platform.kernels.table_features import table_features  # noqa: E402
from negotiation_platform.registry import Registry  # noqa: E402
from tests.table_turns import seat_turn  # noqa: E402

REGISTRY = Registry()
PLAYERS = ["a", "b"]
SAMPLED_CODES = 24
"""Legal codes checked move by move beyond accept and reject, where a game has more (resource plans)."""

Observation = dict[str, np.ndarray]


def assert_same(rebuilt: Observation, own: dict[str, Any], vector: Any, seat: int, where: str) -> None:
    """Field by field, and as the whole vector the policy reads (`vector`: training's, from inside a jit)."""
    assert sorted(rebuilt) == sorted(own), where
    np.testing.assert_allclose(table_features(rebuilt), np.asarray(vector), rtol=1e-6, atol=1e-7, err_msg=where)
    for name, value in rebuilt.items():
        np.testing.assert_allclose(value, np.asarray(own[name][seat]), rtol=1e-6, atol=1e-7, err_msg=f"{name} {where}")


def seats_seen(env: Any, match: Match) -> list[Observation]:
    return [env.table_observation(seat_turn(match, player)) for player in PLAYERS]


def bilateral_draws(game_id: str, match: Match, rounds: int) -> Any:
    """The engine's draws (roles, who opens each round), in the kernel's form, once the match is over."""
    openers = [PLAYERS.index(e.data["order"][0]) for e in match.events if e.kind is EventKind.PHASE_STARTED]
    openers = jnp.array(openers + [0] * (rounds - len(openers)), jnp.int32)
    roles = REGISTRY.game(game_id).cls.roles
    if game_id == "company_car":
        from negotiation_platform.kernels.company_car import Draws as CarDraws

        return CarDraws(jnp.int32(PLAYERS.index(match.game.game_data["role_assignments"][roles[0]])), openers)
    from negotiation_platform.kernels.bilateral import Draws

    return Draws(jnp.int32(roles.index(match.game.game_data["roles"][PLAYERS[0]])), openers)


class Move:
    """One decision point of the engine match: what both seats saw, the code played, and for each legal
    code tried what the engine then showed both seats (or, when it ended the match, its scores)."""

    def __init__(self, seen: list[Observation], code: int) -> None:
        self.seen, self.code = seen, code
        self.tried: dict[int, list[Observation] | list[float]] = {}


def after(env: Any, match: Match) -> list[Observation] | list[float]:
    if match.result is not None:
        return [match.result.final_scores[p] for p in PLAYERS]
    return seats_seen(env, match)


class Kernel(NamedTuple):
    env: Any
    params: Any
    decoded: np.ndarray
    """Every flat code's kernel action row."""
    mask: Any
    observe: Any
    """A state's observation and, as training flattens it, each seat's observation vector."""
    step_each: Any
    """The next step (and its vectors) from one state under each of a batch of action rows (both seats
    given the row)."""


@functools.cache
def kernel(game_id: str) -> Kernel:
    """A game's kernel (rounds=4) and its jitted functions, compiled once for every seed."""
    env, params = kernel_for(REGISTRY, game_id, {"rounds": 4})
    codec = MarlEnv(env, params).codes

    def observe(state: Any) -> tuple[dict[str, jax.Array], jax.Array]:
        observation = env.observe(state, params)
        return observation, flat_features(observation)

    def step(state: Any, row: jax.Array) -> tuple[Any, jax.Array]:
        out = env.step_env(jax.random.key(0), state, jnp.stack([row, row]), params)
        return out, flat_features(out.obs)

    def step_each(state: Any, actions: jax.Array) -> Any:
        return jax.vmap(lambda row: step(state, row))(actions)

    decoded = np.asarray(codec.decode(jnp.arange(codec.n), params))
    mask = jax.jit(lambda legal: codec.mask(legal[None], params)[0])
    return Kernel(env, params, decoded, mask, jax.jit(observe), jax.jit(step_each))


@pytest.mark.parametrize("game_id", ["company_car", "resource_allocation", "integrative_negotiation"])
@pytest.mark.parametrize("seed", [3, 8])
def test_bilateral_table_observations_and_moves_are_the_kernels(game_id: str, seed: int) -> None:
    match = Match(REGISTRY.game(game_id).cls, PLAYERS, config={"rounds": 4}, seed=seed)
    env, params, decoded, codes_of, observe, step = kernel(game_id)
    rng, moves, offered = random.Random(seed), [], {}
    while not match.finished:
        mover = match.acting()[0]
        seen = seats_seen(env, match)
        legal = np.flatnonzero(np.asarray(codes_of(seen[PLAYERS.index(mover)]["legal_action_mask"]))).tolist()
        move = Move(seen, rng.choice(legal))
        closing = [code for code in legal if code >= len(decoded) - 2]  # accept, reject
        echo = [code for player, code in offered.items() if player != mover and code in legal]  # identical offers
        for code in {move.code, *closing, *echo, *rng.sample(legal, min(len(legal), SAMPLED_CODES - 1))}:
            trial = copy.deepcopy(match)
            trial.submit(mover, *env.table_action(decoded[code], seat_turn(trial, mover)))  # the engine accepts it
            move.tried[code] = after(env, trial)
        match.submit(mover, *env.table_action(decoded[move.code], seat_turn(match, mover)))
        if move.code < len(decoded) - 2:
            offered[mover] = move.code
        moves.append(move)
    state = env.init_state(params, bilateral_draws(game_id, match, 4))
    for number, move in enumerate(moves):
        own, vectors = observe(state)
        for seat in range(2):
            assert_same(move.seen[seat], own, vectors[seat], seat, f"before move {number}")
        codes = sorted(move.tried)
        batch = codes + [move.code] * (SAMPLED_CODES + 3 - len(codes))  # one shape: one compilation
        out, next_vectors = step(state, jnp.asarray(decoded[batch]))
        for row, code in enumerate(codes):
            engine = move.tried[code]
            assert bool(out.done[row]) == isinstance(engine[0], float), f"move {number}, code {code}"
            if out.done[row]:
                np.testing.assert_allclose(np.asarray(out.info["payoffs"][row]), engine, rtol=1e-5)
            else:
                next_own = jax.tree.map(lambda leaf, row=row: leaf[row], out.obs)
                for seat in range(2):
                    where = f"after move {number} as code {code}"
                    assert_same(engine[seat], next_own, next_vectors[row, seat], seat, where)  # type: ignore[arg-type]
        played = codes.index(move.code)
        state = jax.tree.map(lambda leaf, row=played: leaf[row], out.state)
    assert bool(state.done) and match.result is not None


def test_every_resource_plan_of_the_kernel_is_a_proposal_the_engine_accepts() -> None:
    """The move test above samples the thousands of plans; here every one passes the engine's checks."""
    env = kernel("resource_allocation").env
    game = Match(REGISTRY.game("resource_allocation").cls, PLAYERS, config={"rounds": 4}, seed=0).game
    turn = {"view": {}}
    moves = [env.table_action(np.int32(code), turn) for code in range(env.accept_code)]
    assert {name for name, _ in moves} == {"propose"}
    assert [game.action_error("a", {"type": name, **payload}) for name, payload in moves] == [None] * len(moves)


@pytest.mark.parametrize(("seed", "config"), [(4, {}), (9, {"bidders": 4, "value_low": 20, "pricing": "second"})])
def test_auction_table_observations_and_bids_are_the_kernels(seed: int, config: dict[str, Any]) -> None:
    """The discussion is not modelled (no observation); in the sealed bid every seat sees what the kernel
    shows it, every code is a bid the engine takes as that amount, and the played bids pay as in the kernel."""
    env, params = kernel_for(REGISTRY, "auction", config)
    players = [f"b{i}" for i in range(env.num_agents)]
    match = Match(AuctionGame, players, config=config, seed=seed)
    for player in players:
        assert env.table_observation(seat_turn(match, player)) is None
        match.submit(player, "done")
    values = [match.game.game_data["values"][p] for p in players]
    state = env.init_state(params, AuctionDraws(jnp.array(values, jnp.int32)))
    own = env.observe(state, params)
    rng, bids = random.Random(seed), []
    for seat, player in enumerate(players):
        assert_same(env.table_observation(seat_turn(match, player)), own, flat_features(own)[seat], seat, player)
        for code in range(env.num_actions):
            trial = copy.deepcopy(match)
            trial.submit(player, *env.table_action(np.int32(code), seat_turn(trial, player)))
            assert trial.game.game_data["bids"][player] == code
        bids.append(rng.randrange(env.num_actions))
        match.submit(player, *env.table_action(np.int32(bids[-1]), seat_turn(match, player)))
    out = env.step_env(jax.random.key(0), state, jnp.array(bids, jnp.int32), params)
    assert match.result is not None and bool(out.done)
    np.testing.assert_allclose(np.asarray(out.rewards), [match.result.final_scores[p] for p in players])
