"""Compiled kernel methods shared by the tests and by every Hypothesis example: `kernel_for` builds a new env
object on each call, and `jax.jit` of a new bound method traces and compiles again. Envs of one class whose
attributes are equal (arrays byte for byte) behave alike, so they share one compiled function."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import jax
import numpy as np
from pydantic import BaseModel

_COMPILED: dict[Hashable, Callable[..., Any]] = {}


def _attributes(env: object) -> Hashable | None:
    """The env's attributes as a hashable value, or None when one of them is not comparable by value."""
    leaves, treedef = jax.tree_util.tree_flatten(vars(env))
    key: list[Hashable] = [str(treedef)]
    for leaf in leaves:
        if isinstance(leaf, jax.Array | np.ndarray | np.generic):
            array = np.asarray(leaf)
            key.append((array.dtype.str, array.shape, array.tobytes()))
        elif isinstance(leaf, bool | int | str | None):
            key.append((type(leaf), leaf))
        elif isinstance(leaf, float):
            key.append((float, repr(leaf)))  # -0.0 and 0.0 apart
        elif isinstance(leaf, BaseModel):  # a game's config
            key.append((type(leaf), leaf.model_dump_json()))
        else:
            return None
    return tuple(key)


def compiled(env: object, method: str, **jit_options: Any) -> Callable[..., Any]:
    """`jax.jit(getattr(env, method), **jit_options)`, compiled once for all envs equal to this one."""
    attributes = _attributes(env)
    if attributes is None:
        return jax.jit(getattr(env, method), **jit_options)
    key = (type(env), method, attributes, tuple(sorted(jit_options.items())))
    if key not in _COMPILED:
        _COMPILED[key] = jax.jit(getattr(env, method), **jit_options)
    return _COMPILED[key]
