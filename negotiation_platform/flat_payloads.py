"""A quick check for flat payload models: the usual payload is a few ints, floats, strings or bools with
bounds (`{"mine": 60}`), and running it through JSON and pydantic-core costs more than the move.

`flat_checker(model)` reads a model once and, when every field is such a plain value with only
bounds and lengths as constraints, returns a checker that either returns exactly the data strict
validation would (same values, same types, the model's field order, defaults filled in) or returns
None: "not sure", and the caller validates the slow way, which also words the refusal. The checker
never refuses anything itself, so it can only be as strict as pydantic, never different.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MinLen
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

FlatChecker = Callable[[dict[str, Any]], "dict[str, Any] | None"]

_BOUNDS: dict[type, tuple[str, Callable[[Any, Any], bool]]] = {
    Ge: ("ge", operator.ge),
    Gt: ("gt", operator.gt),
    Le: ("le", operator.le),
    Lt: ("lt", operator.lt),
}
_LENGTHS: dict[type, tuple[str, Callable[[Any, Any], bool]]] = {
    MinLen: ("min_length", operator.ge),
    MaxLen: ("max_length", operator.le),
}
_CONFIG_KEYS = frozenset({"extra", "frozen", "title", "json_schema_extra"})
"""Model settings that change nothing about which plain values validate, or into what."""
_PLAIN_KINDS: dict[Any, type] = {int: int, float: float, str: str, bool: bool}
"""The field types read here (a bool is not an int here: JSON keeps them apart, and so does the check)."""
_SAFE_INT = 2**53
"""Beyond this, integers meet JSON's number limits; such payloads take the slow path."""

Test = Callable[[Any], bool]
Field = tuple[str, type, tuple[Test, ...], Any]
"""A field as the checker reads it: name, exact type, tests of its value, default (or Undefined)."""


def flat_checker(model: type[BaseModel]) -> FlatChecker | None:
    """A checker for `model`, or None when the model is not plain enough to check this way."""
    fields = _plain_fields(model)
    if fields is None:
        return None
    names = frozenset(name for name, *_ in fields)

    def check(data: dict[str, Any]) -> dict[str, Any] | None:
        for key in data:
            if key not in names:
                return None  # an unknown key, or one that is not even a string: pydantic says which
        out: dict[str, Any] = {}
        for name, kind, tests, default in fields:
            if name not in data:
                if default is PydanticUndefined:
                    return None
                out[name] = default
                continue
            value = data[name]
            if type(value) is not kind:
                if kind is float and type(value) is int and -_SAFE_INT < value < _SAFE_INT:
                    value = float(value)  # JSON has one kind of number: an integer fits a float field
                else:
                    return None
            for test in tests:
                if not test(value):
                    return None
            out[name] = value
        return out

    return check


def _plain_fields(model: type[BaseModel]) -> list[Field] | None:
    decorators = model.__pydantic_decorators__
    if (
        not set(model.model_config) <= _CONFIG_KEYS
        or model.__pydantic_root_model__
        or model.__pydantic_post_init__ is not None
        or model.model_config.get("extra") == "allow"
        or decorators.validators
        or decorators.field_validators
        or decorators.root_validators
        or decorators.model_validators
        or decorators.field_serializers
        or decorators.model_serializers
        or decorators.computed_fields
    ):
        return None
    fields: list[Field] = []
    for name, info in model.model_fields.items():
        kind = _PLAIN_KINDS.get(info.annotation)
        if (
            kind is None
            or info.alias not in (None, name)
            or info.validation_alias is not None
            or info.exclude
            or info.default_factory is not None
        ):
            return None
        tests = _value_tests(kind, info.metadata)
        if tests is None:
            return None
        fields.append((name, kind, tests, info.default))
    return fields


def _value_tests(kind: type, metadata: list[Any]) -> tuple[Test, ...] | None:
    """Tests a value of `kind` must pass (its bounds and lengths), or None for a constraint not read here."""
    tests: list[Test] = []
    if kind is int:
        tests.append(lambda v: -_SAFE_INT < v < _SAFE_INT)
    elif kind is float:
        tests.append(math.isfinite)
    elif kind is str:
        tests.append(str.isascii)  # other text (lone surrogates, say) is left to the JSON round trip
    for item in metadata:
        rule = _BOUNDS.get(type(item)) if kind in (int, float) else _LENGTHS.get(type(item)) if kind is str else None
        if rule is None:
            return None
        attribute, holds = rule
        limit = getattr(item, attribute)
        tests.append(_length_test(holds, limit) if kind is str else _value_test(holds, limit))
    return tuple(tests)


def _value_test(holds: Callable[[Any, Any], bool], limit: Any) -> Test:
    return lambda value: holds(value, limit)


def _length_test(holds: Callable[[Any, Any], bool], limit: Any) -> Test:
    return lambda text: holds(len(text), limit)
