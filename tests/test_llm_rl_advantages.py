"""The advantage functions of the LLM RL layer, against values worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.llm_rl.advantages import ad_align_credit, discounted_returns, rloo_advantages


def test_discounted_returns_by_hand() -> None:
    # γ 0.5: G2 = 3, G1 = 2 + 0.5·3 = 3.5, G0 = 1 + 0.5·3.5 = 2.75; the second rollout pays once, at the end.
    returns = discounted_returns([[1, 2, 3], [0, 0, 4]], 0.5)
    assert returns.dtype == np.float64
    np.testing.assert_allclose(returns, [[2.75, 3.5, 3.0], [1.0, 2.0, 4.0]])


def test_discounted_returns_without_discount_sums_what_is_left() -> None:
    np.testing.assert_allclose(discounted_returns([[1, 1, 1, 1]], 1.0), [[4, 3, 2, 1]])
    np.testing.assert_allclose(discounted_returns([[5, 7]], 0.0), [[5, 7]])


def test_rloo_subtracts_the_mean_of_the_others_in_the_group() -> None:
    returns = [[1, 2], [3, 4], [5, 6], [10, 0], [20, 0]]
    advantages = rloo_advantages(returns, [0, 0, 0, 1, 1])
    # group 0: 1 − (3+5)/2 = −3, 2 − (4+6)/2 = −3; 3 − (1+5)/2 = 0; 5 − (1+3)/2 = 3. group 1: 10 − 20, 20 − 10.
    np.testing.assert_allclose(advantages, [[-3, -3], [0, 0], [3, 3], [-10, 0], [10, 0]])


def test_rloo_groups_need_not_be_contiguous() -> None:
    advantages = rloo_advantages([[1.0], [10.0], [3.0], [20.0]], ["b", "a", "b", "a"])
    np.testing.assert_allclose(advantages, [[-2.0], [-10.0], [2.0], [10.0]])


def test_rloo_refuses_a_group_of_one() -> None:
    with pytest.raises(NegotiationError) as refused:
        rloo_advantages([[1.0], [2.0], [3.0]], [0, 0, 1])
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert "group 1" in refused.value.message


def test_ad_align_credit_by_hand() -> None:
    # β 2, γ 0.5. t0: no past, C = 1. t1: past = 0.5·1 = 0.5, C = 2 + 2·0.5·0.5·1 = 2.5.
    # t2: past = 0.25·1 + 0.5·2 = 1.25, C = −1 + 2·0.5·1.25·2 = 1.5.
    credit = ad_align_credit([[1, 2, -1]], [[3, 1, 2]], beta=2.0, gamma=0.5)
    np.testing.assert_allclose(credit, [[1.0, 2.5, 1.5]])


def test_ad_align_credit_defaults_are_trust_and_split() -> None:
    # β 2, γ 0.96: C1 = 1 + 2·0.96·(0.96·1)·1 = 2.8432; the co-player's zero advantage at t0 adds nothing.
    np.testing.assert_allclose(ad_align_credit([[1, 1]], [[0, 1]]), [[1.0, 2.8432]])


def test_ad_align_credit_keeps_rollouts_apart_and_zero_beta_is_the_advantage() -> None:
    a_self = np.array([[1.0, 1.0], [-1.0, 1.0]])
    a_other = np.array([[1.0, 1.0], [1.0, 1.0]])
    credit = ad_align_credit(a_self, a_other, beta=1.0, gamma=1.0)
    np.testing.assert_allclose(credit, [[1.0, 2.0], [-1.0, 0.0]])
    np.testing.assert_allclose(ad_align_credit(a_self, a_other, beta=0.0), a_self)


@pytest.mark.parametrize(
    ("call", "says"),
    [
        (lambda: discounted_returns([1, 2, 3], 0.9), "[rollouts, rounds]"),
        (lambda: discounted_returns([[1, 2]], 1.5), "gamma"),
        (lambda: discounted_returns([[1, float("nan")]], 0.9), "finite"),
        (lambda: discounted_returns([["a"]], 0.9), "numbers"),
        (lambda: rloo_advantages([[1.0], [2.0]], [0, 0, 0]), "one group per rollout"),
        (lambda: ad_align_credit([[1.0, 2.0]], [[1.0]]), "same shape"),
    ],
)
def test_bad_input_is_refused_clearly(call: object, says: str) -> None:
    with pytest.raises(NegotiationError) as refused:
        call()  # type: ignore[operator]
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert says in refused.value.message


def test_empty_round_axis_gives_empty_arrays() -> None:
    assert discounted_returns(np.zeros((3, 0)), 0.9).shape == (3, 0)
    assert ad_align_credit(np.zeros((2, 0)), np.zeros((2, 0))).shape == (2, 0)
