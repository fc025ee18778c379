"""One flat Discrete action per agent for every kernel, the shape JaxMARL's baselines sample from.

A kernel's own action may be one code (Discrete), a vector of claims (MultiDiscrete) or
[kind, price] (company_car's Box). A codec numbers every action 0..n-1, turns the kernel's legal
mask into a bool[agents, n] mask over those numbers, and decodes sampled numbers into the
kernel's action array. A MultiDiscrete action is the product of its digits (each digit's legality
is independent in those kernels); a [kind, price] action becomes `price_levels` offers spaced
evenly over the price range, then accept, then reject.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.kernels import spaces

DEFAULT_PRICE_LEVELS = 91


@dataclass(frozen=True)
class DiscreteCodes:
    """The kernel's action is already one code per agent."""

    n: int

    def mask(self, legal: jax.Array, params: object) -> jax.Array:
        return legal

    def decode(self, codes: jax.Array, params: object) -> jax.Array:
        return codes.astype(jnp.int32)


@dataclass(frozen=True)
class DigitCodes:
    """MultiDiscrete(nvec): code c ↔ the digits of c in the mixed radix nvec (first entry most significant)."""

    nvec: tuple[int, ...]

    @property
    def n(self) -> int:
        return int(np.prod(self.nvec))

    def digits(self) -> np.ndarray:
        """int32[n, len(nvec)]: every code's digits."""
        return np.stack(np.unravel_index(np.arange(self.n), self.nvec), axis=1).astype(np.int32)

    def mask(self, legal: jax.Array, params: object) -> jax.Array:
        """legal: bool[agents, len(nvec), max(nvec)] → bool[agents, n]."""
        digits = jnp.asarray(self.digits())
        per_digit = legal[:, jnp.arange(len(self.nvec))[None, :], digits]  # [agents, n, len(nvec)]
        return jnp.all(per_digit, axis=-1)

    def decode(self, codes: jax.Array, params: object) -> jax.Array:
        return jnp.asarray(self.digits())[codes]


@dataclass(frozen=True)
class KindPriceCodes:
    """[kind, price]: codes 0..levels-1 offer an evenly spaced price, then accept, then reject."""

    levels: int

    @property
    def n(self) -> int:
        return self.levels + 2

    def prices(self, params: Any) -> jax.Array:
        low, high = jnp.float32(params.min_cents), jnp.float32(params.max_cents)
        return jnp.round(jnp.linspace(low, high, self.levels)).astype(jnp.int32)

    def mask(self, legal: jax.Array, params: object) -> jax.Array:
        """legal: bool[agents, 3] over kinds (offer, accept, reject) → bool[agents, levels + 2]."""
        offers = jnp.broadcast_to(legal[:, :1], (legal.shape[0], self.levels))
        return jnp.concatenate([offers, legal[:, 1:]], axis=1)

    def decode(self, codes: jax.Array, params: Any) -> jax.Array:
        kind = jnp.maximum(codes - self.levels + 1, 0)
        price = self.prices(params)[jnp.minimum(codes, self.levels - 1)]
        return jnp.stack([kind, price], axis=-1).astype(jnp.int32)


Codes = DiscreteCodes | DigitCodes | KindPriceCodes


def codes_for(space: spaces.Space, price_levels: int = DEFAULT_PRICE_LEVELS) -> Codes:
    """The codec of a kernel's action space."""
    if isinstance(space, spaces.Discrete):
        return DiscreteCodes(space.n)
    if isinstance(space, spaces.MultiDiscrete):
        return DigitCodes(tuple(int(n) for n in space.nvec))
    if isinstance(space, spaces.Box) and space.shape == (2,):
        return KindPriceCodes(price_levels)
    raise NegotiationError(ErrorCode.INVALID_CONFIG, f"No flat action numbering for the action space {space!r}.")


def with_placeholder(mask: jax.Array) -> jax.Array:
    """An agent with no legal action (not its turn, or the match over) gets code 0, which the kernel
    never reads: a masked policy then has one choice, log-probability 0 and nothing to learn from it."""
    idle = ~jnp.any(mask, axis=-1, keepdims=True)
    first = jnp.arange(mask.shape[-1]) == 0
    return mask | (idle & first)
