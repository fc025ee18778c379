"""Client data (payloads, configs) validated as JSON, strictly: what a client sends means one thing.

Python-mode pydantic validation coerces: "50" and true become 50, and inf passes as a float. Data
from a client is therefore checked to be plain, finite and shallow JSON, serialised, and validated
in strict JSON mode, where a number must be a number and a string a string. JSON has one kind of
number, so 50.0 is the number 50: whole numbers fit integer fields, and integers fit float fields.
Every problem surfaces as a pydantic `ValidationError`, so callers keep one path.
"""

from __future__ import annotations

import math
from typing import TypeGuard, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError, PydanticSerializationError, to_json

from negotiation_platform.wire.boundary import MAX_DEPTH
from negotiation_platform.wire.unicode_text import text_problem

MAX_INT_BITS = 1024
"""The largest integer accepted anywhere in JSON input, in bits: no game needs more than 64, and Python
refuses to write an integer of over 4,300 digits as text (a ValueError, not a refusal)."""

ModelT = TypeVar("ModelT", bound=BaseModel)


def validate_strict(model: type[ModelT], data: object) -> ModelT:
    """`data` validated by `model` as strict JSON (raises ValidationError, also for non-JSON data)."""
    return model.model_validate_json(strict_json(model, data), strict=True)


def strict_json(model: type[BaseModel], data: object) -> bytes:
    """The JSON text that strict validation of `data` reads: whole floats written as integers.

    Raises the ValidationError `model` would give when `data` is not plain finite JSON. The same
    data always gives the same text, so the text can key caches of validation results.
    """
    flat = _flat_plain(data)
    problem = None if flat else json_problem(data)
    if problem is None:
        try:
            return to_json(data if flat else _whole_numbers_as_int(data))
        except PydanticSerializationError as exc:  # flat data holding text UTF-8 cannot carry, say
            problem = json_problem(data) or ((), f"not JSON data ({exc})")
    loc, message = problem
    error = PydanticCustomError("not_json", message)
    details: list[InitErrorDetails] = [{"type": error, "loc": loc, "input": None}]
    raise ValidationError.from_exception_data(model.__name__, details)


_SCALARS = frozenset({str, int, bool, type(None)})


def _flat_plain(data: object) -> TypeGuard[dict[str, str | int | bool | None]]:
    """Whether `data` is a dict of strings to strings, integers, booleans and nulls: JSON as it stands
    (no float to rewrite, no nesting to bound), the usual shape of a payload or config."""
    if type(data) is not dict:
        return False
    for key, value in data.items():  # noqa: SIM110 (a loop: all() over a generator costs more here)
        if type(key) is not str or type(value) not in _SCALARS:
            return False
    return True


def plain_json_chars(data: object) -> int | None:
    """At least the length of `json.dumps(data)`, found without serialising, for flat plain data (see
    `_flat_plain`) of moderate integers; None for any other data, which must be measured.

    A string character takes at most 12 characters (a surrogate pair, both escaped), an integer of
    up to 64 bits at most one digit per 3 bits, a sign and one more, `false` and `null` 5, and each
    entry 6 more (the quotes around its key, ": " and ", ")."""
    if type(data) is not dict:
        return None
    chars = 2
    for key, value in data.items():  # the shape `_flat_plain` checks, checked in the same walk
        kind = type(value)
        if type(key) is not str:
            return None
        if kind is str:
            chars += 12 * (len(key) + len(value)) + 8
        elif kind is int:
            if value.bit_length() > 64:
                return None
            chars += 12 * len(key) + value.bit_length() // 3 + 8
        elif kind is bool or value is None:
            chars += 12 * len(key) + 11
        else:
            return None
    return chars


def json_problem(data: object) -> tuple[tuple[str | int, ...], str] | None:
    """Where and why `data` is not plain finite JSON of Unicode text within `MAX_DEPTH` levels; None if it is.

    Walks the data with an explicit stack, so data nested thousands deep costs no recursion.
    """
    stack: list[tuple[object, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, loc = stack.pop()
        if len(loc) > MAX_DEPTH:
            return loc[:MAX_DEPTH], f"nested deeper than {MAX_DEPTH} levels"
        if isinstance(value, float) and not math.isfinite(value):
            return loc, "Input should be a finite number"
        if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
            return loc, f"integer larger than {MAX_INT_BITS} bits"
        if isinstance(value, str) and (problem := text_problem(value)):
            return loc, problem
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    return loc, f"object keys must be strings, not {type(key).__name__}"
                if problem := text_problem(key):
                    return loc, f"a key {problem}"
                stack.append((item, (*loc, key)))
        elif isinstance(value, list | tuple):
            stack.extend((item, (*loc, i)) for i, item in enumerate(value))
    return None


def _whole_numbers_as_int(value: object) -> object:
    """`value` with every whole float written as an int (recursion is bounded: depth was checked)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {key: _whole_numbers_as_int(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_whole_numbers_as_int(item) for item in value]
    return value
