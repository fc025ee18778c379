"""Typed Python methods made from an action's payload JSON Schema, one per action type.

Trainers that turn an environment's public methods into tools (TRL's `GRPOTrainer(environment_factory=...)`,
through transformers' `get_json_schema`) read each method's signature, type hints and Google-style docstring
(`Args:`). A game declares its actions as data, so the methods are made here from the spec: the model then sees
`propose(mine: int)` with the field's description and bounds, not a generic `step(text)`.
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import JsonValue

from negotiation_platform.agents.offers import schema_object
from negotiation_platform.errors import ErrorCode, NegotiationError

JSON_TYPES: dict[str, object] = {
    "integer": int,
    "number": float,
    "string": str,
    "boolean": bool,
    "object": dict[str, Any],
    "array": list[Any],
}

RETURNS = "Returns:\n    What you see next: why the move was refused, or the state once the others moved."
Call = Callable[[Any, str, dict[str, Any]], str]
"""What a made method does: (the instance, the action type, the arguments given) -> the text the model reads."""


def python_type(prop: Mapping[str, JsonValue]) -> object:
    """The type hint of one JSON Schema property: a Literal of its enum, else its JSON type (a $ref: an object)."""
    enum, kind, items = prop.get("enum"), prop.get("type"), prop.get("items")
    if isinstance(enum, list):
        return Literal[tuple(enum)]
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "array" and isinstance(items, dict):
        return list[python_type(items)]  # type: ignore[misc]
    return JSON_TYPES.get(kind if isinstance(kind, str) and kind else "object", Any)


def describe(prop: Mapping[str, object]) -> str:
    """A property's description for the docstring, with its bounds (the model reads only this text)."""
    text = str(prop.get("description") or prop.get("title") or "").strip().rstrip(".") or "A value"
    bounds = [f"{word} {prop[key]}" for key, word in (("minimum", "at least"), ("maximum", "at most")) if key in prop]
    return f"{text}; {', '.join(bounds)}." if bounds else f"{text}."


def tool_method(name: str, description: str, schema: Mapping[str, JsonValue], call: Call) -> Callable[..., str]:
    """A method `name(self, <one argument per payload field>) -> str` that hands its arguments to `call`.

    Required fields become required arguments; optional ones default to their schema default (None without one).
    A field name that cannot be a Python argument is refused (INVALID_ARGUMENT): such a game needs its own tools."""
    properties = {field: schema_object(prop) for field, prop in schema_object(schema.get("properties")).items()}
    listed = schema.get("required")
    required = {field for field in listed if isinstance(field, str)} if isinstance(listed, list) else set()
    for field in properties:
        if not field.isidentifier() or keyword.iskeyword(field):
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT, f"Action {name!r}: payload field {field!r} cannot be a tool argument."
            )
    ordered = sorted(properties, key=lambda field: field not in required)  # required first, as Python demands
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, object] = {}
    for field in ordered:
        hint = python_type(properties[field])
        default = inspect.Parameter.empty if field in required else properties[field].get("default")
        parameters.append(inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint))
        annotations[field] = hint
    annotations["return"] = str
    signature = inspect.Signature(parameters, return_annotation=str)

    def method(self: object, **arguments: object) -> str:
        signature.bind(self, **arguments)  # a missing or unknown argument: TypeError, which trainers show the model
        return call(self, name, arguments)

    args = "".join(f"\n    {field}: {describe(properties[field])}" for field in ordered)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = "\n\n".join(
        part for part in (description.strip().rstrip(".") + ".", f"Args:{args}" if args else "", RETURNS) if part
    )
    method.__signature__ = signature  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    return method
