"""The kernels' fused Threefry gives exactly JAX's random streams, so switching to it changed no draw."""

from __future__ import annotations

import jax
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from negotiation_platform.kernels import threefry

SHAPES = [(), (1,), (5,), (2, 3), (3, 4, 5), (64,)]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_bits_uniform_split_and_permutation_equal_jax_random(seed: int) -> None:
    key = jax.random.key(seed)
    for shape in SHAPES:
        assert (threefry.bits(key, shape) == jax.random.bits(key, shape)).all()
        assert (threefry.uniform(key, shape) == jax.random.uniform(key, shape)).all()
    for count in (1, 2, 4, 7):
        split = threefry.split(key, count)
        assert (jax.random.key_data(split) == jax.random.key_data(jax.random.split(key, count))).all()
    for count in (1, 4, 49):
        assert (threefry.permutation(key, count) == jax.random.permutation(key, count)).all()


def test_the_streams_agree_under_jit_and_vmap() -> None:
    keys = jax.random.split(jax.random.key(3), 16)
    fused = jax.jit(jax.vmap(lambda k: threefry.bits(k, (3,))))(keys)
    assert (fused == jax.vmap(lambda k: jax.random.bits(k, (3,)))(keys)).all()
    assert len({tuple(row.tolist()) for row in fused}) == 16  # each key its own stream


@pytest.mark.parametrize(
    "make_key",
    [
        lambda: jax.random.PRNGKey(5),  # a raw (legacy) key
        lambda: jax.random.key(5, impl="rbg"),
    ],
    ids=["raw key", "rbg key"],
)
def test_other_keys_are_drawn_by_jax_random_itself(make_key: object) -> None:
    key = make_key()  # type: ignore[operator]
    assert (threefry.bits(key, (4,)) == jax.random.bits(key, (4,))).all()
    assert (threefry.uniform(key, (4,)) == jax.random.uniform(key, (4,))).all()


def test_with_the_partitionable_flag_off_jax_random_is_asked() -> None:
    key = jax.random.key(9)
    with jax.threefry_partitionable(False):
        assert (threefry.bits(key, (6,)) == jax.random.bits(key, (6,))).all()
        assert (jax.random.key_data(threefry.split(key, 3)) == jax.random.key_data(jax.random.split(key, 3))).all()


def test_a_pair_is_both_halves_of_a_block_and_both_are_fair_and_unrelated() -> None:
    import jax.numpy as jnp
    import numpy as np

    keys = jax.random.split(jax.random.key(11), 4096)
    pairs = np.asarray(jax.vmap(lambda k: jnp.stack(threefry.pair(k)))(keys), np.uint64)
    bits = (pairs[:, :, None] >> np.arange(32, dtype=np.uint64)) & 1  # [match, half, bit]
    assert np.abs(bits.mean(axis=0) - 0.5).max() < 0.04
    assert np.abs((bits[:, 0] == bits[:, 1]).mean(axis=0) - 0.5).max() < 0.04  # the halves are unrelated
    high, low = threefry.pair(jax.random.key(3))
    assert int(high ^ low) == int(jax.random.bits(jax.random.key(3), (1,))[0])  # jax.random's word is their xor
    legacy = jax.random.PRNGKey(4)
    assert [int(w) for w in threefry.pair(legacy)] == jax.random.bits(legacy, (2,)).tolist()


@pytest.mark.parametrize("rounds", [5, 40], ids=["picked from a table", "a power"])
def test_round_factor_is_the_power_of_the_round(rounds: int) -> None:
    import jax.numpy as jnp

    from negotiation_platform.kernels.utilities import decayed, round_factor

    base = jnp.array([0.985, 0.5], jnp.float32)
    numbers = jnp.arange(1, rounds + 2)
    factors = jax.vmap(lambda n: round_factor(base, n, rounds))(numbers)
    expected = base[None, :] ** (numbers[:, None] - 1).astype(jnp.float32)
    assert jnp.allclose(factors, expected, rtol=1e-6, atol=0)
    batna = jax.vmap(lambda n: decayed(jnp.float32(41000), jnp.float32(0.015), n, rounds))(numbers)
    assert jnp.allclose(batna, 41000 * 0.985 ** (numbers - 1.0), rtol=1e-5)
