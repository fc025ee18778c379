"""Action and observation spaces of one agent, in the shape JAX RL libraries (gymnax, JaxMARL) use.

A space says what shape and range a value has, draws a uniform sample and checks membership;
`env.action_space(params)` and `env.observation_space(params)` describe a single agent's view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike, DTypeLike

if TYPE_CHECKING:
    from negotiation_platform.kernels.env import Env, ParamsT, StateT


@dataclass(frozen=True)
class Discrete:
    """One of `n` actions, 0..n-1."""

    n: int
    shape: tuple[int, ...] = ()
    dtype: DTypeLike = jnp.int32

    def sample(self, key: jax.Array) -> jax.Array:
        return jax.random.randint(key, self.shape, 0, self.n, dtype=self.dtype)

    def contains(self, x: jax.Array) -> jax.Array:
        return jnp.all((x >= 0) & (x < self.n))


@dataclass(frozen=True)
class MultiDiscrete:
    """A vector of integers, entry i in 0..nvec[i]-1 (e.g. a claim per item type)."""

    nvec: tuple[int, ...]
    dtype: DTypeLike = jnp.int32

    @property
    def shape(self) -> tuple[int, ...]:
        return (len(self.nvec),)

    def sample(self, key: jax.Array) -> jax.Array:
        high = jnp.array(self.nvec)
        return jnp.floor(jax.random.uniform(key, self.shape) * high).astype(self.dtype)

    def contains(self, x: jax.Array) -> jax.Array:
        return jnp.all((x >= 0) & (x < jnp.array(self.nvec)))


@dataclass(frozen=True)
class Box:
    """Values in [low, high] (per entry) of a fixed shape."""

    low: ArrayLike
    high: ArrayLike
    shape: tuple[int, ...]
    dtype: DTypeLike = jnp.float32

    def sample(self, key: jax.Array) -> jax.Array:
        if jnp.issubdtype(self.dtype, jnp.bool_):
            return jax.random.bernoulli(key, 0.5, self.shape)
        if jnp.issubdtype(self.dtype, jnp.integer):
            return jax.random.randint(key, self.shape, self.low, jnp.asarray(self.high) + 1, dtype=self.dtype)
        return jax.random.uniform(key, self.shape, self.dtype, self.low, self.high)

    def contains(self, x: jax.Array) -> jax.Array:
        return jnp.all((x >= self.low) & (x <= self.high)) & (jnp.shape(x) == self.shape)


@dataclass(frozen=True)
class Dict:
    """A dictionary of named spaces (an observation with several fields)."""

    spaces: dict[str, Box] = field(default_factory=dict)

    def sample(self, key: jax.Array) -> dict[str, jax.Array]:
        keys = jax.random.split(key, len(self.spaces))
        return {name: space.sample(k) for (name, space), k in zip(self.spaces.items(), keys, strict=True)}

    def contains(self, x: dict[str, jax.Array]) -> jax.Array:
        return jnp.all(jnp.array([space.contains(x[name]) for name, space in self.spaces.items()]))


def mask_space(n: int | tuple[int, ...]) -> Box:
    """A boolean legal-action mask."""
    return Box(False, True, (n,) if isinstance(n, int) else n, jnp.bool_)


def observed(env: Env[StateT, ParamsT], params: ParamsT) -> Dict:
    """One agent's observation space, read off the shapes and dtypes `env.observe` produces (no values
    are computed): masks are booleans, other fields unbounded numbers of their dtype."""
    state = jax.eval_shape(lambda key: env.reset(key, params)[1], jax.random.key(0))
    shapes = jax.eval_shape(env.observe, state, params)

    def space(leaf: jax.ShapeDtypeStruct) -> Box:
        per_agent = tuple(leaf.shape[1:])
        if jnp.issubdtype(leaf.dtype, jnp.bool_):
            return mask_space(per_agent)
        if jnp.issubdtype(leaf.dtype, jnp.integer):
            info = jnp.iinfo(leaf.dtype)
            return Box(int(info.min), int(info.max), per_agent, leaf.dtype)
        return Box(-jnp.inf, jnp.inf, per_agent, leaf.dtype)

    return Dict({name: space(leaf) for name, leaf in shapes.items()})


Space = Discrete | MultiDiscrete | Box | Dict
"""One agent's space, of whichever kind."""
