"""The coin games' JAX kernels agree with the engine's games round by round; DOND analysis vs brute force."""

from __future__ import annotations

import itertools

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from negotiation_coin_games import CoinsClassic, DealOrNoDeal, NoPress, TrustAndSplit  # noqa: E402
from negotiation_coin_games.kernels import dond_outcomes  # noqa: E402
from negotiation_platform.engine import Match  # noqa: E402
from negotiation_platform.kernels import kernel_for  # noqa: E402
from negotiation_platform.kernels.frontier import pareto_mask  # noqa: E402
from negotiation_platform.kernels.rollout import reset_batch  # noqa: E402
from negotiation_platform.registry import Registry  # noqa: E402
from tests.kernel_jit import compiled  # noqa: E402
from tests.table_turns import seat_turn  # noqa: E402

REGISTRY = Registry()
PLAYERS = ["a", "b"]
GAMES = {
    "coins_classic": CoinsClassic,
    "trust_and_split": TrustAndSplit,
    "deal_or_no_deal": DealOrNoDeal,
    "no_press": NoPress,
}


@pytest.mark.parametrize("game_id", list(GAMES))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), claims=st.lists(st.integers(0, 12), min_size=60, max_size=60))
def test_kernel_matches_the_engine_round_by_round(game_id: str, seed: int, claims: list[int]) -> None:
    config = {"rounds": 5}
    match = Match(GAMES[game_id], PLAYERS, config=config, seed=seed)
    played, pool = [], iter(claims)
    while not match.finished:
        if match.phase == "talk":
            match.submit(match.acting()[0], "pass")
            continue
        stock = match.game.round_data["stock"]
        round_claims = {p: {i: next(pool) % (stock[i] + 1) for i in stock} for p in PLAYERS}
        for p in PLAYERS:
            match.submit(p, "split", round_claims[p])
        played.append([[round_claims[p][i] for i in stock] for p in PLAYERS])
    env, params = kernel_for(REGISTRY, game_id, config)
    state = env.init_state(params, env.engine_draws(match))
    step = compiled(env, "step_env")  # one compile per game, across Hypothesis examples
    for number, claim in enumerate(played):
        out = step(jax.random.key(0), state, jnp.array(claim, jnp.int32), params)
        state = out.state
        engine_round = match.game.game_data["rounds"][number]["rewards"]
        assert np.allclose(np.asarray(out.rewards), [engine_round[p] for p in PLAYERS], rtol=1e-5)
        assert bool(out.done) == (number == len(played) - 1)
    assert match.result is not None
    assert np.allclose(np.asarray(state.totals), [match.result.final_scores[p] for p in PLAYERS], rtol=1e-5)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_table_observation_is_the_kernels_own(game_id: str) -> None:
    """A trained policy at an engine table sees what it saw in training: each seat's observation rebuilt
    from its view equals the kernel's observation of the same state, field by field, every round."""
    config = {"rounds": 4}
    match = Match(GAMES[game_id], PLAYERS, config=config, seed=11)
    env, params = kernel_for(REGISTRY, game_id, config)
    rebuilt = []
    while not match.finished:
        if match.phase == "talk":
            assert env.table_observation(seat_turn(match, match.acting()[0])) is None
            match.submit(match.acting()[0], "pass")
            continue
        rebuilt.append([env.table_observation(seat_turn(match, p)) for p in PLAYERS])
        stock = match.game.round_data["stock"]
        for seat, p in enumerate(PLAYERS):
            claim = np.array([(seat + 3 * number) % (count + 1) for number, count in enumerate(stock.values())])
            name, payload = env.table_action(claim, seat_turn(match, p))
            match.submit(p, name, payload)
    state = env.init_state(params, env.engine_draws(match))
    for number, seats in enumerate(rebuilt):
        own = env.observe(state, params)
        for seat, observation in enumerate(seats):
            assert list(observation) == list(own)
            for name, value in observation.items():
                np.testing.assert_allclose(
                    value, np.asarray(own[name][seat]), rtol=1e-6, err_msg=f"{name} round {number}"
                )
        claims = [list(match.game.game_data["rounds"][number]["claims"][p].values()) for p in PLAYERS]
        state = env.step_env(jax.random.key(0), state, jnp.array(claims, jnp.int32), params).state


@pytest.mark.parametrize("game_id", list(GAMES))
def test_kernel_draws_respect_the_rules(game_id: str) -> None:
    env, params = kernel_for(REGISTRY, game_id)
    _, state = reset_batch(env, jax.random.key(0), params, 256)
    draws = state.draws
    starters = np.asarray(jax.vmap(env.starters)(draws.first_starter))
    assert np.all(starters[:, 1:] != starters[:, :-1])  # the starting agent alternates
    values, stock = np.asarray(draws.values), np.asarray(draws.stock)
    if game_id == "coins_classic":
        assert values.min() >= 1 and values.max() <= 20
    if game_id == "trust_and_split":
        hands = np.asarray(draws.hands)
        assert np.all(hands[..., 0] != hands[..., 1])
        assert np.all(np.sort(values[..., 0], axis=-1) == [1, 10])
    if game_id == "no_press":
        rows = np.arange(starters.shape[1])
        assert np.all(values[np.arange(256)[:, None], rows, starters, 0] == 1)
    if game_id == "deal_or_no_deal":
        assert np.all((stock.sum(-1) >= 5) & (stock.sum(-1) <= 7)) and np.all((stock >= 1) & (stock <= 4))
        assert np.all((values * stock[:, :, None, :]).sum(-1) == 10)
        assert np.all((values > 0).any(axis=2)) and np.all(((values > 0).all(axis=2)).any(axis=-1))


def test_dond_frontier_against_brute_force() -> None:
    stock = np.array([2.0, 1.0, 3.0])
    values = np.array([[2.0, 3.0, 1.0], [1.0, 5.0, 1.0]])
    _, utilities = dond_outcomes(stock, values)
    plain = [
        (
            sum(a * v for a, v in zip(share, values[0], strict=True)),
            sum((c - a) * v for a, c, v in zip(share, stock, values[1], strict=True)),
        )
        for share in itertools.product(*(range(int(c) + 1) for c in stock))
    ]
    assert np.allclose(np.asarray(utilities), plain)
    brute = {i for i, (x, y) in enumerate(plain) if not any(a >= x and b >= y and (a > x or b > y) for a, b in plain)}
    assert {int(i) for i in np.nonzero(np.asarray(pareto_mask(utilities)))[0]} == brute
