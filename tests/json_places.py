"""Every object inside a JSON value with its path, for the tests that search JSON Schemas."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def json_objects(value: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Each object in `value` (itself first) and its path, e.g. `/properties/seed/anyOf/1`."""
    if isinstance(value, dict):
        yield path, value
        parts: Any = value.items()
    elif isinstance(value, list):
        parts = enumerate(value)
    else:
        return
    for key, part in parts:
        yield from json_objects(part, f"{path}/{key}")
