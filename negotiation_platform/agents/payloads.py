"""Random payloads that satisfy an action's JSON Schema, for agents that read only the spec."""

from __future__ import annotations

import random
from typing import Any

from negotiation_platform.agents.offers import on_grid

DEFAULT_INT_RANGE = (0, 100)


def sample_payload(schema: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A payload drawn uniformly field by field within the schema's bounds and options."""
    defs = schema.get("$defs", {})
    return {name: _sample(prop, defs, rng) for name, prop in schema.get("properties", {}).items()}


def _sample(prop: dict[str, Any], defs: dict[str, Any], rng: random.Random) -> Any:
    if "$ref" in prop:
        target = defs[prop["$ref"].rsplit("/", 1)[-1]]
        return (
            _sample(target, defs, rng) if "properties" not in target else sample_payload({**target, "$defs": defs}, rng)
        )
    if "enum" in prop:
        return rng.choice(prop["enum"])
    if "const" in prop:
        return prop["const"]
    if "anyOf" in prop:
        options = [p for p in prop["anyOf"] if p.get("type") != "null"] or prop["anyOf"]
        return _sample(rng.choice(options), defs, rng)
    kind = prop.get("type")
    if kind in ("integer", "number"):
        low = prop.get("minimum", prop.get("exclusiveMinimum", DEFAULT_INT_RANGE[0]))
        high = prop.get("maximum", prop.get("exclusiveMaximum", max(low, DEFAULT_INT_RANGE[1])))
        return rng.randint(int(low), int(high)) if kind == "integer" else on_grid(rng.uniform(low, high), prop)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        return [_sample(prop.get("items", {}), defs, rng) for _ in range(prop.get("minItems", 0))]
    if kind == "object":
        return sample_payload({**prop, "$defs": defs}, rng)
    return "ok"
