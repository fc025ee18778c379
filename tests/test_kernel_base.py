"""`BaseKernel` handles a match's end once for every kernel: frozen finished matches, end payoffs paid
once, illegal actions replaced by the fallback, and gymnax's auto-reset."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from negotiation_platform.kernels import make  # noqa: E402
from negotiation_platform.kernels.base import BaseKernel, Moved  # noqa: E402


class Count(NamedTuple):
    steps: jax.Array
    counter: jax.Array
    done: jax.Array


class Counting(BaseKernel[Count, None]):
    """Both agents add their action (0 or 1; 2 is illegal and adds 0) to a counter drawn in 0..9; the
    match ends after three steps and pays the counter to both. `move` knows nothing of the end."""

    game_id = "counting"
    num_agents = 2

    def default_params(self) -> None:
        return None

    def draws(self, key: jax.Array, params: None) -> jax.Array:
        return jax.random.randint(key, (), 0, 10)

    def init_state(self, params: None, draws: jax.Array) -> Count:
        return Count(jnp.int32(0), jnp.asarray(draws, jnp.int32), jnp.bool_(False))

    def observe(self, state: Count, params: None) -> dict[str, jax.Array]:
        return {"legal_action_mask": jnp.broadcast_to(jnp.arange(3) <= 1, (2, 3)) & ~state.done}

    def replace_illegal(self, state: Count, actions: jax.Array, params: None) -> tuple[jax.Array, jax.Array]:
        legal = actions <= 1
        return jnp.where(legal, actions, 0), ~legal

    def move(self, key: jax.Array, state: Count, actions: jax.Array, params: None) -> Moved[Count]:
        steps = state.steps + 1
        return Moved(Count(steps, state.counter + actions.sum(), steps >= 3))

    def payoffs(self, state: Count, params: None) -> jax.Array:
        return jnp.full(2, state.counter, jnp.float32)


ENV = Counting()
STEP = jax.jit(ENV.step_env, static_argnums=3)
ONES = jnp.ones(2, jnp.int32)


def same(first: Any, second: Any) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(jax.tree.leaves(first), jax.tree.leaves(second), strict=True))


def played(state: Count, times: int) -> tuple[Count, list[Any]]:
    steps = []
    for _ in range(times):
        steps.append(STEP(jax.random.key(0), state, ONES, None))
        state = steps[-1].state
    return state, steps


def test_a_finished_match_is_frozen_and_earns_nothing() -> None:
    _, start = ENV.reset(jax.random.key(1), None)
    finished, steps = played(start, 3)
    assert [bool(s.done) for s in steps] == [False, False, True]
    again = STEP(jax.random.key(0), finished, ONES, None)
    assert all(
        np.array_equal(a, b) for a, b in zip(jax.tree.leaves(again.state), jax.tree.leaves(finished), strict=True)
    )
    assert np.asarray(again.rewards).tolist() == [0.0, 0.0] and bool(again.done)
    np.testing.assert_array_equal(again.info["payoffs"], steps[-1].info["payoffs"])  # still the final payoffs


def test_end_payoffs_are_paid_once_on_the_step_the_match_ends() -> None:
    _, start = ENV.reset(jax.random.key(1), None)
    _, steps = played(start, 5)
    counter = int(start.counter) + 6
    assert [np.asarray(s.rewards).tolist() for s in steps] == [[0, 0], [0, 0], [counter] * 2, [0, 0], [0, 0]]


def test_an_illegal_action_becomes_the_fallback_and_is_reported() -> None:
    _, start = ENV.reset(jax.random.key(1), None)
    out = STEP(jax.random.key(0), start, jnp.array([2, 1], jnp.int32), None)
    assert int(out.state.counter) == int(start.counter) + 1  # the illegal 2 added nothing
    assert np.asarray(out.info["illegal"]).tolist() == [True, False]


def test_step_replaces_an_ended_match_with_a_fresh_one() -> None:
    autoreset = jax.jit(ENV.step, static_argnums=3)
    _, state = ENV.reset(jax.random.key(1), None)
    for number in range(1, 4):
        out = autoreset(jax.random.key(number), state, ONES, None)
        state = out.state
        if number < 3:
            assert int(state.steps) == number and not bool(out.done)
    assert bool(out.done) and np.asarray(out.rewards).tolist() == [float(out.info["payoffs"][0])] * 2 != [0, 0]
    assert int(state.steps) == 0 and not bool(state.done)  # a fresh match, its counter freshly drawn
    counters = {int(autoreset(jax.random.key(k), played(state, 2)[0], ONES, None).state.counter) for k in range(40)}
    assert len(counters) > 3, counters


def test_step_autoreset_is_a_deprecated_alias_of_step() -> None:
    _, state = ENV.reset(jax.random.key(1), None)
    state = played(state, 2)[0]
    with pytest.warns(DeprecationWarning, match="step_autoreset is deprecated"):
        old = ENV.step_autoreset(jax.random.key(5), state, ONES, None)
    assert same(old, ENV.step(jax.random.key(5), state, ONES, None))


@pytest.mark.parametrize("game", ["split_100", "company_car", "auction", "resource_allocation", "coins_classic"])
def test_every_kind_of_built_in_kernel_freezes_when_done(game: str) -> None:
    env, params = make(game)
    step, sample = jax.jit(env.step_env), jax.jit(env.sample_actions)
    _, state = env.reset(jax.random.key(0), params)
    for number in range(200):
        if bool(state.done):
            break
        state = step(jax.random.key(number), state, sample(jax.random.key(number), state, params), params).state
    assert bool(state.done)
    again = step(jax.random.key(7), state, sample(jax.random.key(7), state, params), params)
    assert same(again.state, state)
    assert not np.asarray(again.rewards).any()
