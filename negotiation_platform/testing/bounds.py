"""Which numbers of a JSON Schema have no finite bounds.

A served arena takes configs and payloads from strangers. A number the schema does not bound
lets one client send `2**1024 - 1` or `1e308`: the game's outcome then overflows (`float()` of it
raises, products become `inf`) and the match cannot finish. So every number a game declares, in
its `Config` and in every action payload, needs a finite minimum and maximum.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

NUMBER_TYPES = frozenset({"integer", "number"})
HOW_TO_BOUND = (
    "an unbounded number lets one client crash or wedge a match (overflow in the outcome computation: "
    "float(2**1024) raises, a product of huge numbers is inf); give it finite bounds, e.g. "
    "Field(ge=0, le=1_000_000), or a bound taken from the config in a payload model built per config"
)


def unbounded_numbers(schema: Mapping[str, object]) -> list[str]:
    """The paths (`field.sub[]`) of every number in `schema` that lacks a finite minimum or maximum."""
    return sorted(set(_walk(schema, schema, "", frozenset())))


def _walk(schema: object, root: Mapping[str, object], path: str, seen: frozenset[str]) -> Iterator[str]:
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref not in seen:
        defs = root.get("$defs")
        target = defs.get(ref.removeprefix("#/$defs/")) if isinstance(defs, dict) else None
        yield from _walk(target, root, path, seen | {ref})
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if kinds & NUMBER_TYPES and "const" not in schema and "enum" not in schema and not _bounded(schema):
        yield path or "(the whole value)"
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for part in schema.get(key, ()):
            yield from _walk(part, root, path, seen)
    for name, part in schema.get("properties", {}).items():
        yield from _walk(part, root, f"{path}.{name}" if path else name, seen)
    for key in ("items", "additionalProperties"):
        yield from _walk(schema.get(key), root, f"{path}[]", seen)


def _bounded(schema: Mapping[str, object]) -> bool:
    def finite(*keys: str) -> bool:
        return any(_is_finite(schema.get(key)) for key in keys)

    return finite("minimum", "exclusiveMinimum") and finite("maximum", "exclusiveMaximum")


def _is_finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
