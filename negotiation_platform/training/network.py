"""The actor-critic network shared by every seat: an MLP torso, masked action logits and a value."""

from __future__ import annotations

from collections.abc import Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax.typing import VariableDict

MASKED = -1e9
"""The logit of an illegal code: its probability underflows to exactly zero."""


class ActorCritic(nn.Module):  # type: ignore[misc]
    num_actions: int
    hidden: Sequence[int] = (64, 64)

    @nn.compact
    def __call__(self, obs: jax.Array, avail: jax.Array) -> tuple[jax.Array, jax.Array]:
        """(masked logits [..., num_actions], value [...]) for observations [..., D] and legal masks."""
        x = obs
        for width in self.hidden:
            x = nn.tanh(nn.Dense(width, kernel_init=nn.initializers.orthogonal(np.sqrt(2)))(x))
        logits = nn.Dense(self.num_actions, kernel_init=nn.initializers.orthogonal(0.01))(x)
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(x)
        return jnp.where(avail, logits, MASKED), value[..., 0]


def log_probs(logits: jax.Array) -> jax.Array:
    return jax.nn.log_softmax(logits, axis=-1)


def entropy(logits: jax.Array) -> jax.Array:
    """The policy's entropy (masked codes contribute nothing: their probability is exactly 0)."""
    logp = log_probs(logits)
    return -jnp.sum(jnp.where(logits > MASKED / 2, jnp.exp(logp) * logp, 0.0), axis=-1)


def forward(
    network: ActorCritic, params: VariableDict, obs: jax.Array, avail: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """(masked logits, value): `network.apply` with its result typed."""
    result: tuple[jax.Array, jax.Array] = network.apply(params, obs, avail)  # type: ignore[assignment]
    return result
