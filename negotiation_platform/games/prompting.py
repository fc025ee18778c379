"""Prompt text assembled from a game's spec: the rules, the player's situation, the exact JSON format.

Games supply only the situation lines particular to them; everything about what is allowed comes
from the spec, so a prompt cannot promise something the engine refuses.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, JsonValue

from negotiation_platform.spec import ActionSpec, payload_schema


def example_payload(payload: type[BaseModel]) -> dict[str, JsonValue]:
    """A valid-looking example payload built from the model's JSON Schema."""
    schema = payload_schema(payload)
    example = _example_value(schema, schema.get("$defs", {}))
    return example if isinstance(example, dict) else {}


def _example_value(prop: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A valid-looking value for one JSON Schema: its first example or enum value, a number in range, or,
    for an object, an example for every property (nested models included)."""
    if "$ref" in prop:
        prop = defs.get(prop["$ref"].rsplit("/", 1)[-1], prop)
    if prop.get("examples"):
        return prop["examples"][0]
    if "enum" in prop:
        return prop["enum"][0]
    kind = prop.get("type")
    if kind in ("integer", "number"):
        low, high = prop.get("minimum", 0), prop.get("maximum", prop.get("minimum", 0) + 10)
        return (low + high) // 2 if kind == "integer" else (low + high) / 2
    if kind == "boolean":
        return True
    if kind == "object" or "properties" in prop:
        return {name: _example_value(sub, defs) for name, sub in prop.get("properties", {}).items()}
    return "..."


def example_move(action: ActionSpec) -> dict[str, JsonValue]:
    """An example move for `action` in the form perform_action takes: its action_type and its payload."""
    return {"action_type": action.name, "payload": example_payload(action.payload)}


RESPONSE_FORMAT = "RESPONSE FORMAT:"
"""The heading of the part of a prompt meant for programs (the JSON to answer with), last in every prompt."""


def response_format(actions: list[ActionSpec]) -> list[str]:
    """How to answer: perform_action's two arguments as one JSON object, one example per allowed action."""
    lines = [
        RESPONSE_FORMAT + ' one JSON object {"action_type": ..., "payload": {...}} (perform_action\'s arguments), e.g.:'
    ]
    lines.extend("  " + json.dumps(example_move(action)) for action in actions)
    return lines


def compose_prompt(rules: str, heading: str, situation: list[str], actions: list[ActionSpec]) -> str:
    """Rules (generated from the spec), then the player's situation, then the allowed actions and format."""
    parts = [heading, "", rules, "", "YOUR SITUATION:"]
    parts.extend(f"- {line}" for line in situation)
    parts.append("")
    if actions:
        parts.append("ALLOWED ACTIONS NOW: " + ", ".join(a.name for a in actions))
        parts.extend(response_format(actions))
    else:
        parts.append("No action is expected from you right now; wait for your turn.")
    return "\n".join(parts)


def for_a_person(prompt: str) -> str:
    """A prompt as a person reads it: without the response-format section a program answers by (a
    person acts through the page's forms)."""
    head, found, _ = prompt.partition(RESPONSE_FORMAT)
    return head.rstrip() if found else prompt
