"""What a JAX RL user expects of every kernel: make, spaces, masks, policies in rollouts, auto-reset."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from negotiation_platform.cli.main import main  # noqa: E402
from negotiation_platform.kernels import kernel_games, make, rollout  # noqa: E402
from negotiation_platform.kernels.rollout import match_keys, reset_batch  # noqa: E402
from negotiation_platform.registry import Registry  # noqa: E402

GAMES = sorted(kernel_games(Registry()))


def accept_or_ask_half(key: jax.Array, obs: dict[str, jax.Array], state: Any) -> jax.Array:
    """split_100: accept whenever allowed, otherwise propose to keep 50 (codes: 0..100 keep, 101 accept)."""
    accept = obs["legal_action_mask"][:, 101]
    return jnp.where(accept, 101, 50).astype(jnp.int32)


def test_make_takes_config_overrides() -> None:
    env, params = make("split_100", rounds=4, discount=0.5)
    assert int(params.rounds) == 4 and float(params.discount) == 0.5
    assert env.num_actions == 103 and env.action_space(params).n == 103


@pytest.mark.parametrize("game", GAMES)
def test_every_kernel_observes_a_legal_action_mask_within_its_spaces(game: str) -> None:
    env, params = make(game)
    obs, state = env.reset(jax.random.key(0), params)
    assert "legal_action_mask" in obs and obs["legal_action_mask"].dtype == jnp.bool_
    assert obs["legal_action_mask"].shape[0] == env.num_agents
    space = env.observation_space(params)
    for name, field in space.spaces.items():
        assert obs[name].shape == (env.num_agents, *field.shape), name
    assert bool(space.contains({name: value[0] for name, value in obs.items()}))
    actions = env.sample_actions(jax.random.key(1), state, params)
    action_space = env.action_space(params)
    assert bool(action_space.contains(actions[0])) and actions.shape[1:] == action_space.shape


def test_a_fixed_policy_gives_the_expected_returns() -> None:
    env, params = make("split_100")
    batch, steps = 8, 10
    _, state = reset_batch(env, jax.random.key(0), params, batch)
    _, returns, episodes = rollout(env, params, jax.random.key(1), state, steps, accept_or_ask_half)
    # every match: seat 0 proposes to keep 50, seat 1 accepts; two steps, 50 each, then a fresh match
    assert int(episodes) == batch * steps // 2
    np.testing.assert_allclose(np.asarray(returns), [50.0 * batch * steps / 2] * 2)


@pytest.mark.parametrize("game", ["company_car", "adasociety"])
def test_finished_matches_restart_with_fresh_draws(game: str) -> None:
    env, params = make(game)
    _, state = reset_batch(env, jax.random.key(0), params, 32)
    lengths = {"company_car": 40, "adasociety": 121}
    after, _, episodes = rollout(env, params, jax.random.key(5), state, lengths[game])
    assert int(episodes) >= 32
    before, now = jax.tree.leaves(state), jax.tree.leaves(after)
    assert any(not np.array_equal(a, b) for a, b in zip(before, now, strict=True))
    if game == "adasociety":
        assert int(after.time.max()) == 1, "every match ended at step 120 and restarted"
        assert not np.array_equal(np.asarray(after.position), np.asarray(state.position))


def test_simulate_accepts_a_policy_by_dotted_path(capsys: pytest.CaptureFixture[str]) -> None:
    """In this process, which has JAX imported already (tests/test_kernels.py runs `simulate` as a subprocess)."""
    command = ["simulate", "split_100", "--batch", "4"]
    policy = "tests.test_kernel_conventions:accept_or_ask_half"
    assert main([*command, "--steps", "20", "--policy", policy, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["policy"] == policy and report["mean_return_per_episode"] == [50.0, 50.0]
    assert main([*command, "--policy", "nowhere:nothing"]) != 0
    said = capsys.readouterr().err
    assert "Traceback" not in said and "nowhere" in said


def test_simulate_times_every_compiling_chunk_apart() -> None:
    """240 steps run as chunks of 100, 100 and 40: the 40 is a new length, compiles, and is timed apart."""
    from negotiation_platform.kernels.simulate import simulate

    report = simulate(Registry(), "split_100", batch=8, steps=240, chunk=100)
    assert report["env_steps"] == 8 * 240 and report["compiled_chunk_lengths"] == [100, 40]
    assert simulate(Registry(), "split_100", batch=8, steps=300, chunk=100)["compiled_chunk_lengths"] == [100]


@pytest.mark.parametrize("game", ["resource_allocation", "integrative_negotiation"])
def test_outcome_table_kernels_judge_and_sample_moves_as_their_mask_says(game: str) -> None:
    """These kernels decide legality and draw random moves from three facts, not from the K + 2 mask
    (K is thousands of plans): both must agree with the mask in every state a rollout reaches."""
    env, params = make(game)
    _, state = reset_batch(env, jax.random.key(0), params, 16)
    codes = jnp.arange(-1, env.num_actions + 1)

    def judged(one: Any, seat: jax.Array) -> jax.Array:
        return jax.vmap(lambda code: env._is_legal(one, seat, code))(codes)

    for step in range(2 * env.rounds + 1):  # past the last round: every state kind, finished ones too
        masks = jax.vmap(env.legal_mask)(state)
        for seat in (0, 1):
            expected = jnp.pad(masks[:, seat], ((0, 0), (1, 1)))  # codes -1 and K + 2 are never legal
            np.testing.assert_array_equal(jax.vmap(judged, (0, None))(state, seat), expected)
        keys = jax.random.split(jax.random.key(step), 16)
        actions = jax.vmap(env.sample_actions, (0, 0, None))(keys, state, params)
        movers = jax.vmap(env.current_player)(state)
        picked = masks[jnp.arange(16), movers, actions[jnp.arange(16), movers]]
        assert bool(jnp.all(picked | state.done)), "a random move was illegal"
        state = jax.vmap(lambda key, s, a: env.step_env(key, s, a, params).state)(keys, state, actions)
    assert bool(state.done.all())


def test_sampled_values_cover_their_range_evenly() -> None:
    from negotiation_platform.kernels.sampling import coin_flips, uniform_indices

    flips = np.asarray(coin_flips(jax.random.key(0), 100_000))
    assert set(np.unique(flips)) == {0, 1} and abs(flips.mean() - 0.5) < 0.01
    # the flips of one call come from the bits of one word: every pattern of six is equally likely
    patterns = np.asarray(jax.vmap(lambda key: coin_flips(key, 6))(jax.random.split(jax.random.key(2), 64_000)))
    seen = np.bincount(patterns @ (1 << np.arange(6)), minlength=64)
    assert len(seen) == 64 and seen.min() > 0.85 * seen.mean(), (seen.min(), seen.mean())
    counts = jnp.array([1, 2, 3, 7, 101] * 20_000, jnp.int32)
    picks = np.asarray(uniform_indices(jax.random.key(1), counts))
    assert (picks >= 0).all() and (picks < np.asarray(counts)).all()
    for count in (2, 3, 7, 101):
        seen = np.bincount(picks[np.asarray(counts) == count], minlength=count)
        assert len(seen) == count and seen.min() > 0.7 * seen.mean(), (count, seen.min(), seen.mean())


def test_uniform_orders_are_every_order_equally_often() -> None:
    from negotiation_platform.kernels.sampling import uniform_order

    keys = jax.random.split(jax.random.key(5), 48_000)
    orders = np.asarray(jax.jit(jax.vmap(lambda key: uniform_order(key, 4)))(keys))
    assert (np.sort(orders, axis=1) == np.arange(4)).all()
    seen = np.unique(orders @ (4 ** np.arange(4)), return_counts=True)[1]
    assert len(seen) == 24 and seen.min() > 0.85 * seen.mean(), (seen.min(), seen.mean())
    eights = np.asarray(jax.vmap(lambda key: uniform_order(key, 8))(jax.random.split(jax.random.key(6), 200)))
    assert (np.sort(eights, axis=1) == np.arange(8)).all() and len({tuple(o) for o in eights}) > 190  # from the table
    assert sorted(np.asarray(uniform_order(jax.random.key(1), 9)).tolist()) == list(range(9))  # shuffled by sorting
    assert np.asarray(uniform_order(jax.random.key(1), 1)).tolist() == [0]


def test_nth_true_finds_the_nth_true_of_rows_of_any_width() -> None:
    from negotiation_platform.kernels.sampling import nth_true

    rng = np.random.default_rng(0)
    for width in (1, 5, 27, 32, 33, 37, 70):  # one word, a full word, two and three words
        mask = rng.random((400, width)) < rng.random((400, 1))
        n = (rng.random(400) * np.maximum(mask.sum(axis=1), 1)).astype(np.int32)
        expected = np.argmax(np.cumsum(mask, axis=1) > n[:, None], axis=1)  # 0 where a row has no True
        assert (np.asarray(jax.jit(nth_true)(jnp.asarray(mask), jnp.asarray(n))) == expected).all(), width


def test_distinct_indices_are_distinct_and_every_ordered_draw_equally_likely() -> None:
    from negotiation_platform.kernels.sampling import distinct_indices

    keys = jax.random.split(jax.random.key(4), 30_000)
    triples = np.asarray(jax.jit(jax.vmap(lambda key: distinct_indices(key, 5, 3)))(keys))
    assert (triples[:, 0] != triples[:, 1]).all() and (triples[:, 1] != triples[:, 2]).all()
    assert (triples[:, 0] != triples[:, 2]).all() and triples.min() >= 0 and triples.max() < 5
    seen = np.unique(triples @ np.array([25, 5, 1]), return_counts=True)[1]
    assert len(seen) == 60 and seen.min() > 0.8 * seen.mean(), (seen.min(), seen.mean())  # 5 * 4 * 3 orders
    for count, n in ((49, 41), (225, 196)):  # AdaSociety's event cells: more than one word of them
        cells = np.asarray(distinct_indices(jax.random.key(count), count, n))
        assert len(set(cells.tolist())) == n and cells.min() >= 0 and cells.max() < count


def test_the_unrolled_distinct_indices_are_the_looped_ones() -> None:
    """The accelerator's loop-free draw gives, key for key, what the loop gives."""
    from negotiation_platform.kernels.sampling import distinct_indices, distinct_indices_unrolled

    keys = jax.random.split(jax.random.key(5), 200)
    for count, n in ((49, 41), (49, 4), (6, 6), (225, 29)):
        looped = jax.jit(jax.vmap(lambda key, c=count, k=n: distinct_indices(key, c, k)))(keys)
        unrolled = jax.jit(jax.vmap(lambda key, c=count, k=n: distinct_indices_unrolled(key, c, k)))(keys)
        assert np.asarray(looped).tolist() == np.asarray(unrolled).tolist(), (count, n)


def test_once_are_the_values() -> None:
    from negotiation_platform.kernels.sampling import computed_once

    for bound in (1, 27, 37, 225):  # read back, and divided
        values = jnp.asarray(np.random.default_rng(bound).integers(0, bound, (50, 8)), jnp.int32)
        once = jax.jit(lambda v, b=bound: computed_once(v, b))(values)
        assert once.dtype == values.dtype and (np.asarray(once) == np.asarray(values)).all(), bound


def test_bit_masks_pack_unpack_and_test_bits_as_the_booleans_they_hold() -> None:
    from negotiation_platform.kernels import bitmasks

    rng = np.random.default_rng(2)
    for width in (1, 18, 32, 37, 70):
        mask = rng.random((30, width)) < 0.4
        words = bitmasks.packed(jnp.asarray(mask))
        assert words.shape == (30, -(-width // 32)) and words.dtype == jnp.uint32
        assert (np.asarray(bitmasks.unpack(words, width)) == mask).all(), width
        columns = rng.integers(0, width, 30)
        assert (np.asarray(bitmasks.bit_at(words, jnp.asarray(columns))) == mask[np.arange(30), columns]).all()
        # the same mask built from column groups: split the columns at random points
        cuts = sorted({0, width, *rng.integers(1, width, 3).tolist()} if width > 1 else {0, 1})
        groups = [(a, jnp.asarray(mask[:, a:b])) for a, b in itertools.pairwise(cuts) if b > a]
        assert (np.asarray(bitmasks.pack_columns(width, groups)) == np.asarray(words)).all(), width
    gaps = bitmasks.pack_columns(40, [(3, jnp.ones((2, 2), bool)), (33, jnp.ones((2, 1), bool))])
    assert np.asarray(bitmasks.unpack(gaps, 40))[0].nonzero()[0].tolist() == [3, 4, 33]  # unset columns stay False


def test_only_if_computes_where_needed_and_leaves_the_rest() -> None:
    from negotiation_platform.kernels.occasional import only_if

    def step(needed: jax.Array, x: jax.Array) -> jax.Array:
        return only_if(needed, lambda: x * 10 + 1, x)

    x = jnp.arange(6, dtype=jnp.int32)
    needed = jnp.asarray([True, False, True, False, False, True])
    assert np.asarray(jax.jit(jax.vmap(step))(needed, x)).tolist() == [1, 1, 21, 3, 4, 51]
    assert np.asarray(jax.jit(jax.vmap(step))(jnp.zeros(6, bool), x)).tolist() == list(range(6))
    assert int(step(jnp.bool_(True), jnp.int32(2))) == 21


def test_uniform_true_picks_every_true_equally_often_and_never_a_false() -> None:
    from negotiation_platform.kernels.sampling import uniform_true

    mask = jnp.asarray([[False, True, False, True, True, False] + [False] * 30 + [True]] * 60_000)
    picks = np.asarray(jax.jit(uniform_true)(jax.random.key(3), mask))
    seen = np.bincount(picks, minlength=37)
    assert set(np.flatnonzero(seen)) == {1, 3, 4, 36}
    picked = seen[seen > 0]
    assert picked.min() > 0.9 * picked.mean(), picked
    assert np.asarray(uniform_true(jax.random.key(0), jnp.zeros((2, 5), bool))).tolist() == [0, 0]


def test_each_match_gets_its_own_stream_without_a_split() -> None:
    keys = match_keys(jax.random.key(7), 4096)
    assert len({tuple(words) for words in np.asarray(jax.random.key_data(keys)).tolist()}) == 4096
    words = np.asarray(jax.vmap(lambda key: jax.random.bits(key, (2,)))(keys), np.uint64)
    bits = (words[:, :, None] >> np.arange(32, dtype=np.uint64)) & 1  # [match, word, bit]
    assert np.abs(bits.mean(axis=0) - 0.5).max() < 0.04  # every bit fair across matches
    same = bits[:-1] == bits[1:]  # neighbouring matches (keys one apart) draw unrelated bits
    assert np.abs(same.mean(axis=0) - 0.5).max() < 0.04
    assert bool(jnp.all(jax.random.key_data(match_keys(jax.random.key(7), 4)) == jax.random.key_data(keys[:4])))
    legacy = jax.random.PRNGKey(7)  # raw keys are split, as before
    assert bool(jnp.all(match_keys(legacy, 8) == jax.random.split(legacy, 8)))
