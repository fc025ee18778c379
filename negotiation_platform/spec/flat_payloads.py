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
from collections.abc import Callable
from typing import Any

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MinLen
from pydantic import BaseModel, JsonValue
from pydantic_core import PydanticUndefinedType

FlatChecker = Callable[[dict[str, object]], "dict[str, JsonValue] | None"]
"""A payload's data to exactly what strict validation makes of it, or None: not sure."""

_BOUNDS: dict[type, tuple[str, str, bool]] = {
    Ge: ("ge", "low", False),
    Gt: ("gt", "low", True),
    Le: ("le", "high", False),
    Lt: ("lt", "high", True),
}
"""Each numeric constraint: its attribute, the side it bounds, and whether the bound itself is excluded."""
_LENGTHS: dict[type, tuple[str, str, bool]] = {
    MinLen: ("min_length", "low", False),
    MaxLen: ("max_length", "high", False),
}
_CONFIG_KEYS = frozenset({"extra", "frozen", "title", "json_schema_extra"})
"""Model settings that change nothing about which plain values validate, or into what."""
_PLAIN_KINDS: dict[object, type] = {int: int, float: float, str: str, bool: bool}
"""The field types read here (a bool is not an int here: JSON keeps them apart, and so does the check)."""
_SAFE_INT = 2**53
"""Beyond this, integers meet JSON's number limits; such payloads take the slow path."""

Bound = tuple[float, bool]
"""A limit and whether it is strict (`gt`, `lt`): a value, or a text's length, must lie beyond it."""
Field = tuple[str, type, JsonValue | PydanticUndefinedType, tuple[Bound, ...], tuple[Bound, ...]]
"""A field as the checker reads it: name, exact type, default (or Undefined), lower and upper bounds."""


def flat_checker(model: type[BaseModel]) -> FlatChecker | None:
    """A checker for `model`, or None when the model is not plain enough to check this way."""
    fields = _plain_fields(model)
    if fields is None:
        return None
    names = frozenset(name for name, *_ in fields)
    isfinite = math.isfinite

    def check(data: dict[str, Any]) -> dict[str, JsonValue] | None:
        # `data` stays untyped: each value's type is tested (`type(value) is kind`) before it is compared
        for key in data:
            if key not in names:
                return None  # an unknown key, or one that is not even a string: pydantic says which
        out: dict[str, JsonValue] = {}
        for name, kind, default, lows, highs in fields:
            if name not in data:
                if isinstance(default, PydanticUndefinedType):
                    return None
                out[name] = default
                continue
            value = data[name]
            if type(value) is not kind:
                if kind is float and type(value) is int and -_SAFE_INT < value < _SAFE_INT:
                    value = float(value)  # JSON has one kind of number: an integer fits a float field
                else:
                    return None
            measure = value
            if kind is int:
                if not -_SAFE_INT < value < _SAFE_INT:
                    return None
            elif kind is float:
                if not isfinite(value):
                    return None
            elif kind is str:
                if not value.isascii():  # other text (lone surrogates, say) is left to the JSON round trip
                    return None
                measure = len(value)
            for limit, strict in lows:
                if (measure <= limit) if strict else (measure < limit):
                    return None
            for limit, strict in highs:
                if (measure >= limit) if strict else (measure > limit):
                    return None
            out[name] = value
        return out

    if len(fields) == 1 and fields[0][1] is int and all(_finite(limit) for limit, _ in (*fields[0][3], *fields[0][4])):
        return _one_int(fields[0], check)
    return check


def _finite(limit: object) -> bool:
    return type(limit) is int or (type(limit) is float and math.isfinite(limit))


def _one_int(field: Field, check: FlatChecker) -> FlatChecker:
    """`check` for a model of one int field, answering its usual payload, that one field given in
    range, by one comparison: the field's bounds and the safe integers are one interval of ints."""
    name, _, _, lows, highs = field
    low, high = -_SAFE_INT + 1, _SAFE_INT - 1
    for limit, strict in lows:
        low = max(low, math.floor(limit) + 1 if strict else math.ceil(limit))
    for limit, strict in highs:
        high = min(high, math.ceil(limit) - 1 if strict else math.floor(limit))

    def check_one(data: dict[str, object]) -> dict[str, JsonValue] | None:
        if len(data) == 1:
            value = data.get(name)
            if type(value) is int and low <= value <= high:
                return {name: value}
        return check(data)

    return check_one


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
        bounds = _bounds(kind, info.metadata)
        if bounds is None:
            return None
        fields.append((name, kind, info.default, *bounds))
    return fields


def _bounds(kind: type, metadata: list[object]) -> tuple[tuple[Bound, ...], tuple[Bound, ...]] | None:
    """The lower and upper bounds a value of `kind` (a text: its length) must respect, or None for a
    constraint not read here."""
    lows: list[Bound] = []
    highs: list[Bound] = []
    for item in metadata:
        rule = _BOUNDS.get(type(item)) if kind in (int, float) else _LENGTHS.get(type(item)) if kind is str else None
        if rule is None:
            return None
        attribute, side, strict = rule
        (lows if side == "low" else highs).append((getattr(item, attribute), strict))
    return tuple(lows), tuple(highs)
