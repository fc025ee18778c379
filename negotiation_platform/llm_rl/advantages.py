"""Credit assignment for self-play on negotiation games, as the Advantage Alignment paper's code does it.

Arrays are [rollouts, rounds] of per-round values (rewards, returns, advantages), float64 out.
`discounted_returns` turns per-round rewards into Monte-Carlo returns; `rloo_advantages` subtracts
the leave-one-out mean of the rollouts that share a group (an environment seed), the baseline that
needs no critic; `ad_align_credit` adds Advantage Alignment's opponent-shaping term, which pushes a
seat toward actions that raise the co-player's advantage when their interaction has gone well so far.
Invalid input raises `NegotiationError(INVALID_ARGUMENT)`: a trainer must not learn from a silent guess.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from negotiation_platform.errors import ErrorCode, NegotiationError

ArrayLike = npt.ArrayLike
Array = npt.NDArray[np.float64]

TRUST_AND_SPLIT_BETA = 2.0
TRUST_AND_SPLIT_GAMMA = 0.96
"""The paper's Advantage Alignment settings for Trust-and-Split (its IPD runs use β 0.5, γ 0.9)."""


def _matrix(values: ArrayLike, what: str) -> Array:
    """`values` as a finite float64 [rollouts, rounds] array, or a clear refusal."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"{what} must be numbers.") from None
    if array.ndim != 2:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"{what} must be a [rollouts, rounds] array, got shape {array.shape}."
        )
    if not np.all(np.isfinite(array)):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"{what} must be finite.")
    return array


def _discount(gamma: float) -> float:
    if not 0.0 <= gamma <= 1.0:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"gamma must be in [0, 1], got {gamma}.")
    return float(gamma)


def discounted_returns(rewards: ArrayLike, gamma: float) -> Array:
    """G_t = Σ_{k≥t} γ^(k−t)·r_k for each rollout (row) of per-round rewards."""
    r = _matrix(rewards, "rewards")
    g = _discount(gamma)
    returns = np.zeros_like(r)
    running = np.zeros(r.shape[0])
    for t in range(r.shape[1] - 1, -1, -1):
        running = r[:, t] + g * running
        returns[:, t] = running
    return returns


def rloo_advantages(returns: ArrayLike, group_ids: Sequence[int | str] | ArrayLike) -> Array:
    """A^i_t = G^i_t − mean_{j≠i, same group} G^j_t: the leave-one-out baseline within each group.

    A group of one rollout is refused rather than given a baseline of 0 (the paper's code returns
    the raw return then): a group of one means the seeds were not repeated, and training on raw
    returns as advantages would quietly drop the variance reduction that the group exists for.
    """
    g = _matrix(returns, "returns")
    ids = np.asarray(group_ids)
    if ids.shape != (g.shape[0],):
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"group_ids must name one group per rollout ({g.shape[0]}), got shape {ids.shape}.",
        )
    advantages = np.empty_like(g)
    for group in np.unique(ids):
        members = ids == group
        size = int(members.sum())
        if size < 2:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT,
                f"group {group.item()!r} has one rollout: a leave-one-out baseline needs at least 2 per group.",
            )
        block = g[members]
        advantages[members] = block - (block.sum(axis=0, keepdims=True) - block) / (size - 1)
    return advantages


def ad_align_credit(
    a_self: ArrayLike, a_other: ArrayLike, beta: float = TRUST_AND_SPLIT_BETA, gamma: float = TRUST_AND_SPLIT_GAMMA
) -> Array:
    """C_t = A^self_t + β·γ·(Σ_{k<t} γ^(t−k)·A^self_k)·A^other_t, per rollout.

    As AdAlignLLM's trainer computes it (`use_old_ad_align`, `exclude_k_equals_t`: the sum runs over
    earlier rounds only and is scaled by one more γ); `a_other` is the co-player's advantage on the
    same rollout and rounds. The first round has no past, so C_0 = A^self_0.
    """
    mine = _matrix(a_self, "a_self")
    theirs = _matrix(a_other, "a_other")
    if mine.shape != theirs.shape:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"a_self {mine.shape} and a_other {theirs.shape} must have the same shape."
        )
    g = _discount(gamma)
    past = np.zeros_like(mine)
    for t in range(1, mine.shape[1]):
        past[:, t] = g * (past[:, t - 1] + mine[:, t - 1])  # Σ_{k<t} γ^(t−k)·A_k, built up round by round
    return mine + float(beta) * g * past * theirs
