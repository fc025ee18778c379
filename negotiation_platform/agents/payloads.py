"""Random payloads that satisfy an action's JSON Schema, for agents that read only the spec."""

from __future__ import annotations

import random
from collections.abc import Mapping

from pydantic import JsonValue

from negotiation_platform.agents.offers import on_grid, schema_number, schema_object

DEFAULT_INT_RANGE = (0, 100)


def sample_payload(schema: Mapping[str, object], rng: random.Random) -> dict[str, JsonValue]:
    """A payload drawn uniformly field by field within the schema's bounds and options."""
    defs = schema_object(schema.get("$defs"))
    return {
        name: _sample(schema_object(prop), defs, rng) for name, prop in schema_object(schema.get("properties")).items()
    }


def _sample(prop: Mapping[str, object], defs: Mapping[str, object], rng: random.Random) -> JsonValue:
    ref = prop.get("$ref")
    if isinstance(ref, str):
        target = schema_object(defs[ref.rsplit("/", 1)[-1]])
        return (
            _sample(target, defs, rng) if "properties" not in target else sample_payload({**target, "$defs": defs}, rng)
        )
    enum = prop.get("enum")
    if isinstance(enum, list):
        chosen: JsonValue = rng.choice(enum)
        return chosen
    if "const" in prop:
        const: JsonValue = prop["const"]  # type: ignore[assignment]  # a JSON Schema's value is JSON
        return const
    any_of = prop.get("anyOf")
    if isinstance(any_of, list):
        options = [schema_object(p) for p in any_of]
        return _sample(rng.choice([p for p in options if p.get("type") != "null"] or options), defs, rng)
    kind = prop.get("type")
    if kind in ("integer", "number"):
        low = schema_number(prop, "minimum", schema_number(prop, "exclusiveMinimum", DEFAULT_INT_RANGE[0]))
        high = schema_number(prop, "maximum", schema_number(prop, "exclusiveMaximum", max(low, DEFAULT_INT_RANGE[1])))
        return rng.randint(int(low), int(high)) if kind == "integer" else on_grid(rng.uniform(low, high), prop)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        return [
            _sample(schema_object(prop.get("items")), defs, rng) for _ in range(int(schema_number(prop, "minItems", 0)))
        ]
    if kind == "object":
        return sample_payload({**prop, "$defs": defs}, rng)
    return "ok"
