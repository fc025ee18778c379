"""JAX kernels agree with the engine's games move for move; outcome analysis agrees with brute force."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from negotiation_platform.engine import Match  # noqa: E402
from negotiation_platform.errors import ErrorCode, NegotiationError  # noqa: E402
from negotiation_platform.games import CompanyCarGame, IntegrativeNegotiationsGame, ResourceAllocationGame, Split100Game  # noqa: E402
from negotiation_platform.kernels import kernel_for  # noqa: E402
from negotiation_platform.kernels.frontier import max_welfare, nash_point, pareto_mask  # noqa: E402
from negotiation_platform.kernels.outcome_spaces import (  # noqa: E402
    integrative_outcomes,
    resource_allocation_outcomes,
    split_100_outcomes,
)
from negotiation_platform.kernels.rollout import reset_batch, rollout  # noqa: E402
from negotiation_platform.kernels.utilities import auction_utilities  # noqa: E402
from negotiation_platform.registry import Registry  # noqa: E402
from tests.kernel_jit import compiled  # noqa: E402
from tests.table_turns import seat_turn  # noqa: E402

REGISTRY = Registry()
PLAYERS = ["a", "b"]


def jitted_step(env):  # type: ignore[no-untyped-def]
    return compiled(env, "step_env")  # one compile per game and config, across Hypothesis examples


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    choices=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 100)), min_size=1, max_size=25),
    rounds=st.integers(1, 6),
    discount=st.sampled_from([1.0, 0.9]),
)
def test_split_100_kernel_matches_the_engine(seed, choices, rounds, discount) -> None:  # type: ignore[no-untyped-def]
    config = {"rounds": rounds, "discount": discount}
    match = Match(Split100Game, PLAYERS, config=config, seed=seed)
    env, params = kernel_for(REGISTRY, "split_100", config)
    state = env.init_state(params)
    step = jitted_step(env)
    for kind, mine in choices:
        if match.finished:
            break
        player = match.acting()[0]
        legal = [a.name for a in match.allowed_actions(player)]
        name = legal[kind % len(legal)]
        match.submit(player, name, {"mine": mine} if name == "propose" else {})
        code = {"propose": mine, "accept": 101, "walk_away": 102}[name]
        out = step(jax.random.key(0), state, jnp.array([code, code], jnp.int32), params)
        state = out.state
        assert bool(out.done) == match.finished
    if match.finished:
        assert match.result is not None
        scores = [match.result.final_scores[p] for p in PLAYERS]
        assert np.allclose(np.asarray(out.info["payoffs"]), scores, rtol=1e-6)


def test_split_100_table_observation_is_the_kernels_own() -> None:
    """What a trained policy at the table sees (its observation rebuilt from its turn state) is what the
    kernel shows that seat in the same state, before every move of a match; its moves map back exactly."""
    match = Match(Split100Game, PLAYERS, config={"rounds": 3}, seed=0)
    env, params = kernel_for(REGISTRY, "split_100", {"rounds": 3})
    state, step, observe = env.init_state(params), jitted_step(env), jax.jit(env.observe)
    for name, mine in [("propose", 60), ("propose", 45), ("propose", 55), ("walk_away", 0)]:
        own = observe(state, params)
        for seat, player in enumerate(PLAYERS):
            rebuilt = env.table_observation(seat_turn(match, player))
            assert list(rebuilt) == list(own)
            for field, value in rebuilt.items():
                np.testing.assert_allclose(value, np.asarray(own[field][seat]), err_msg=field)
        code = {"propose": mine, "accept": 101, "walk_away": 102}[name]
        payload = {"mine": mine} if name == "propose" else {}
        assert env.table_action(np.int32(code), seat_turn(match, match.acting()[0])) == (name, payload)
        match.submit(match.acting()[0], name, payload)
        state = step(jax.random.key(0), state, jnp.array([code, code], jnp.int32), params).state
    assert match.finished and bool(state.done)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    choices=st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from([38000, 39500, 40000, 40000.01, 41000, 45000])), max_size=12
    ),
    rounds=st.integers(2, 5),
)
def test_company_car_kernel_matches_the_engine(seed, choices, rounds) -> None:  # type: ignore[no-untyped-def]
    config = {"rounds": rounds}
    match = Match(CompanyCarGame, PLAYERS, config=config, seed=seed)
    env, params = kernel_for(REGISTRY, "company_car", config)
    step = jitted_step(env)
    planned = iter(choices)
    moves, finished_after = [], []
    while not match.finished:
        kind, price = next(planned, (None, 0))
        player = match.acting()[0]
        legal = [a.name for a in match.allowed_actions(player)]
        name = "reject" if kind is None else legal[kind % len(legal)]  # reject once the plan runs out
        match.submit(player, name, {"price": price} if name == "offer" else {})
        moves.append(({"offer": 0, "accept": 1, "reject": 2}[name], price))
        finished_after.append(match.finished)
    state = env.init_state(params, env.engine_draws(match))  # the engine's draws, known once it has played
    for (code, price), finished in zip(moves, finished_after, strict=True):
        out = step(jax.random.key(0), state, jnp.array([[code, round(price * 100)]] * 2, jnp.int32), params)
        state = out.state
        assert bool(out.done) == finished
    assert match.result is not None
    scores = [match.result.final_scores[p] for p in PLAYERS]
    assert np.allclose(np.asarray(out.info["payoffs"]), scores, rtol=1e-5)
    assert bool(state.agreed) == match.result.game_data["agreement"]


def brute_force_pareto(points: list[tuple[float, float]]) -> set[int]:
    return {i for i, (x, y) in enumerate(points) if not any(a >= x and b >= y and (a > x or b > y) for a, b in points)}


def test_integrative_frontier_nash_and_welfare_against_brute_force() -> None:
    config = IntegrativeNegotiationsGame.Config()
    _, utilities = integrative_outcomes(config)
    game = IntegrativeNegotiationsGame(config)
    names = list(config.issues)
    plain = []
    for combo in itertools.product(*(config.issues[n].options for n in names)):
        proposal = dict(zip(names, combo, strict=True))
        plain.append((game.role_utility("IT", proposal, 1), game.role_utility("Marketing", proposal, 1)))
    assert np.allclose(np.asarray(utilities), plain, atol=1e-4)
    frontier = {int(i) for i in np.nonzero(np.asarray(pareto_mask(utilities)))[0]}
    assert frontier == brute_force_pareto(plain)
    batnas = (27.0, 19.0)
    nash = max(range(len(plain)), key=lambda i: (plain[i][0] - batnas[0]) * (plain[i][1] - batnas[1]))
    assert plain[int(nash_point(utilities, jnp.array(batnas)))] == pytest.approx(plain[nash])
    assert sum(plain[int(max_welfare(utilities))]) == pytest.approx(max(a + b for a, b in plain))
    assert plain[int(nash_point(utilities, jnp.array(batnas)))] == pytest.approx((45.0, 45.0))


def test_split_100_outcome_space_is_all_frontier() -> None:
    shares, utilities = split_100_outcomes(Split100Game.Config())
    assert len(shares) == 101 and bool(np.all(np.asarray(pareto_mask(utilities))))
    assert np.asarray(utilities)[int(nash_point(utilities, jnp.array([0.0, 0.0])))].tolist() == [50.0, 50.0]


def test_resource_allocation_grid_frontier() -> None:
    plans, utilities = resource_allocation_outcomes(ResourceAllocationGame.Config())
    frontier = np.asarray(plans)[np.asarray(pareto_mask(utilities))]
    assert len(plans) > 3000 and all(x + y == 95 for x, y in frontier)  # bandwidth binds: 4(x + y) <= 380
    assert int(nash_point(utilities, jnp.array([10_000.0, 10_000.0]))) == -1  # nothing beats huge BATNAs


def test_auction_utilities_first_and_second_price() -> None:
    bids = jnp.array([[10.0, 30.0, 30.0], [5.0, 1.0, 0.0]])
    values = jnp.array([[50.0, 60.0, 70.0], [9.0, 9.0, 9.0]])
    assert np.allclose(auction_utilities(bids, values, second_price=False), [[0, 30, 0], [4, 0, 0]])
    assert np.allclose(auction_utilities(bids, values, second_price=True), [[0, 30, 0], [8, 0, 0]])


def test_kernels_are_pure_under_jit_vmap_and_scan() -> None:
    env, params = kernel_for(REGISTRY, "company_car")
    _, state = reset_batch(env, jax.random.key(3), params, 64)
    first = rollout(env, params, jax.random.key(4), state, 20)
    again = rollout(env, params, jax.random.key(4), state, 20)
    assert all(np.array_equal(a, b) for a, b in zip(jax.tree.leaves(first), jax.tree.leaves(again), strict=True))
    assert int(first[2]) > 0


SHARDED = """
import json, jax, numpy as np
from negotiation_platform.registry import Registry
from negotiation_platform.kernels import kernel_for
from negotiation_platform.kernels.rollout import reset_batch, rollout
from negotiation_platform.kernels.sharding import shard_batch
env, params = kernel_for(Registry(), "split_100")
_, state = reset_batch(env, jax.random.key(0), params, 64)
plain = rollout(env, params, jax.random.key(1), state, 30)
sharded_state = shard_batch(state)
sharded = rollout(env, params, jax.random.key(1), sharded_state, 30)
print(json.dumps({
    "devices": len(jax.devices()),
    "placed_on": len(sharded[0].turn.sharding.device_set),
    "equal": all(np.array_equal(a, b) for a, b in zip(jax.tree.leaves(plain), jax.tree.leaves(sharded))),
}))
"""


def test_batches_shard_over_four_cpu_devices() -> None:
    # Forced host devices exist only on the CPU platform: pin it, or JAX picks a GPU where there is one.
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4", "JAX_PLATFORMS": "cpu"}
    done = subprocess.run([sys.executable, "-c", SHARDED], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"devices": 4, "placed_on": 4, "equal": True}
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "negotiation_platform.cli.main",
            "simulate",
            "split_100",
            "--batch",
            "64",
            "--steps",
            "20",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert cli.returncode == 0, cli.stderr
    report = json.loads(cli.stdout)
    assert len(report["devices"]) == 4 and report["env_steps"] == 64 * 20 and report["env_steps_per_second"] > 0


def test_core_imports_no_heavy_dependency() -> None:
    code = (
        "import sys, negotiation_platform.cli.main, negotiation_platform.arena\n"
        "from negotiation_platform.registry import Registry\n"
        "r = Registry(); r.games(); r.transports(); r.agents(); r.kernels()\n"
        "print([m for m in ('jax', 'mcp', 'a2a') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    bidders=st.integers(2, 5),
    pricing=st.sampled_from(["first", "second"]),
    bids=st.lists(st.integers(0, 100), min_size=5, max_size=5),  # the engine refuses bids above value_high
)
def test_auction_kernel_matches_the_engine(seed, bidders, pricing, bids) -> None:  # type: ignore[no-untyped-def]
    from negotiation_platform.games import AuctionGame

    config = {"bidders": bidders, "pricing": pricing}
    players = [f"b{i}" for i in range(bidders)]
    match = Match(AuctionGame, players, config=config, seed=seed)
    for player in players:  # discuss: everyone is done at once
        match.submit(player, "done")
    for player, amount in zip(players, bids, strict=False):  # sealed bids, in seat order
        match.submit(player, "bid", {"amount": amount})
    env, params = kernel_for(REGISTRY, "auction", config)
    state = env.init_state(params, env.engine_draws(match))
    out = jitted_step(env)(jax.random.key(0), state, jnp.array(bids[:bidders], jnp.int32), params)
    assert match.result is not None and bool(out.done)
    np.testing.assert_allclose(np.asarray(out.rewards), [match.result.final_scores[p] for p in players])


def bilateral_payload(game_id: str, env, index: int) -> dict:  # type: ignore[no-untyped-def]
    """The engine payload of outcome `index` of the kernel's table."""
    outcome = env.outcomes[index]
    if game_id == "resource_allocation":
        return {"gpu_hours": float(outcome[0]), "cpu_hours": float(outcome[1])}
    issues = IntegrativeNegotiationsGame.Config().issues
    return {"proposal": {name: issue.options[int(k)] for (name, issue), k in zip(issues.items(), outcome, strict=True)}}


@settings(max_examples=25, deadline=None)
@given(
    game_id=st.sampled_from(["resource_allocation", "integrative_negotiation"]),
    seed=st.integers(0, 2**31),
    choices=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10**6), st.booleans()), max_size=12),
    rounds=st.integers(2, 5),
)
def test_bilateral_kernels_match_the_engine(game_id, seed, choices, rounds) -> None:  # type: ignore[no-untyped-def]
    config = {"rounds": rounds}
    game_cls = REGISTRY.game(game_id).cls
    match = Match(game_cls, PLAYERS, config=config, seed=seed)
    env, params = kernel_for(REGISTRY, game_id, config)
    step = jitted_step(env)
    planned, codes, finished_after = iter(choices), [], []
    last_offer: dict[str, int] = {}
    while not match.finished:
        kind, pick, repeat = next(planned, (None, 0, False))
        player = match.acting()[0]
        legal = [a.name for a in match.allowed_actions(player)]
        name = "reject" if kind is None else legal[kind % len(legal)]
        other = next(p for p in PLAYERS if p != player)
        index = last_offer[other] if repeat and other in last_offer else pick % env.accept_code
        payload = bilateral_payload(game_id, env, index) if name == "propose" else {}
        match.submit(player, name, payload)
        if name == "propose":
            last_offer[player] = index
        codes.append({"propose": index, "accept": env.accept_code, "reject": env.reject_code}[name])
        finished_after.append(match.finished)
    state = env.init_state(params, env.engine_draws(match))
    for code, finished in zip(codes, finished_after, strict=True):
        out = step(jax.random.key(0), state, jnp.array([code, code], jnp.int32), params)
        state = out.state
        assert bool(out.done) == finished
        assert not bool(out.info["illegal"])
    assert match.result is not None
    scores = [match.result.final_scores[p] for p in PLAYERS]
    np.testing.assert_allclose(np.asarray(out.info["payoffs"]), scores, rtol=1e-5)
    assert bool(state.agreed) == match.result.game_data["agreement"]


def test_company_car_prices_a_cent_apart_never_agree_on_either_side() -> None:
    """Both sides use the cent grid: 40000.00 against 40000.01 is no deal, 40000.01 twice is; a tenth of a cent
    is refused by the engine."""
    env, params = kernel_for(REGISTRY, "company_car", {"rounds": 2})
    for first, second, deal in ((40000.0, 40000.01, False), (40000.01, 40000.01, True)):
        match = Match(CompanyCarGame, PLAYERS, config={"rounds": 2}, seed=3)
        opener = match.acting()[0]
        match.submit(opener, "offer", {"price": first})
        match.submit(match.acting()[0], "offer", {"price": second})
        assert (match.game.agreement_terms() is not None) is deal
        state = env.init_state(params, env.engine_draws(match))
        step = jitted_step(env)
        for price in (first, second):
            state = step(jax.random.key(0), state, jnp.array([[0, round(price * 100)]] * 2, jnp.int32), params).state
        assert bool(state.agreed) is deal
    match = Match(CompanyCarGame, PLAYERS, config={"rounds": 2}, seed=3)
    with pytest.raises(NegotiationError) as refused:
        match.submit(match.acting()[0], "offer", {"price": 40000.001})
    assert refused.value.code is ErrorCode.INVALID_PAYLOAD
