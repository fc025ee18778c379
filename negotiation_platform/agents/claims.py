"""Reading claim actions off the payload schemas, shared by the `greedy` and `cooperative` agents.

A claim action is one whose payload has integer or number fields with a maximum (a split's
claim on each item, an offer's own share); everything else about a game is left to its view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

NUMERIC = frozenset({"integer", "number"})
LAST_RESORTS = frozenset({"walk_away", "reject"})
"""Payload-less actions an agent that claims takes only when nothing else is open."""


def claim_fields(action: dict[str, Any]) -> dict[str, float]:
    """The action's bounded numeric payload fields and their maxima."""
    properties = action["payload_schema"].get("properties", {})
    return {
        name: prop["maximum"] for name, prop in properties.items() if prop.get("type") in NUMERIC and "maximum" in prop
    }


def claim_action(allowed: dict[str, Any]) -> dict[str, Any] | None:
    """The first open action whose payload is all bounded numeric fields (None: no such action)."""
    for action in allowed.values():
        fields = claim_fields(action)
        if fields and len(fields) == len(action["payload_schema"].get("properties", {})):
            return action  # type: ignore[no-any-return]
    return None


def claim(action: dict[str, Any], amount: Callable[[str, float], float]) -> dict[str, Any]:
    """A payload claiming `amount(field, maximum)` of each field (integers for integer fields)."""
    properties = action["payload_schema"]["properties"]
    return {
        name: round(amount(name, most)) if properties[name]["type"] == "integer" else float(amount(name, most))
        for name, most in claim_fields(action).items()
    }


def quiet_action(allowed: dict[str, Any]) -> str | None:
    """A payload-less action (pass, accept), walking away or rejecting only when nothing else is open."""
    quiet = [name for name, action in allowed.items() if not action["payload_schema"].get("properties")]
    preferred = [name for name in quiet if name not in LAST_RESORTS]
    return next(iter(preferred or quiet), None)
