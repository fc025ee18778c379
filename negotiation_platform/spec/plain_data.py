"""Deep copies of plain data (the JSON-like values of results and event data), made cheaply: immutable
scalars, most of such data, are shared rather than walked."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

_IMMUTABLE_LEAVES = frozenset({str, int, float, bool, type(None)})
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
"""Each dataclass's field names, read once (`dataclasses.fields` walks the class every call); a handful of
classes (results, notices) are ever copied."""


def plain_copy(value: Any) -> Any:
    """`value` copied as `dataclasses.asdict` copies a field: containers rebuilt, dataclasses turned
    into dicts, other leaves deep-copied; immutable scalars are shared, as deepcopy would share them.
    (Scalars are tested before recursing: they are most of a result, and a call each doubled its cost.)"""
    kind = type(value)
    if kind in _IMMUTABLE_LEAVES:
        return value
    leaves = _IMMUTABLE_LEAVES
    if kind is dict:
        return {
            k if type(k) in leaves else plain_copy(k): v if type(v) in leaves else plain_copy(v)
            for k, v in value.items()
        }
    if kind is list:
        return [item if type(item) in leaves else plain_copy(item) for item in value]
    names = _FIELD_NAMES.get(kind)
    if names is None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELD_NAMES[kind] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        return {name: plain_copy(getattr(value, name)) for name in names}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return kind(*[plain_copy(item) for item in value])
    if isinstance(value, list | tuple):
        return kind(plain_copy(item) for item in value)
    if isinstance(value, dict):
        return kind((plain_copy(k), plain_copy(v)) for k, v in value.items())
    return copy.deepcopy(value)
