"""Prompt text assembled from a game's spec: the rules, the player's situation, the exact JSON format.

Games supply only the situation lines particular to them; everything about what is allowed comes
from the spec, so a prompt cannot promise something the engine refuses.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from negotiation_platform.spec import ActionSpec, payload_schema


def example_payload(payload: type[BaseModel]) -> dict[str, Any]:
    """A valid-looking example payload built from the model's JSON Schema."""
    schema = payload_schema(payload)
    example: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        if "$ref" in prop:
            prop = schema.get("$defs", {}).get(prop["$ref"].rsplit("/", 1)[-1], prop)
        if prop.get("examples"):
            example[name] = prop["examples"][0]
        elif "enum" in prop:
            example[name] = prop["enum"][0]
        elif prop.get("type") in ("integer", "number"):
            low, high = prop.get("minimum", 0), prop.get("maximum", prop.get("minimum", 0) + 10)
            example[name] = (low + high) // 2 if prop["type"] == "integer" else (low + high) / 2
        elif prop.get("type") == "boolean":
            example[name] = True
        else:
            example[name] = "..."
    return example


def response_format(actions: list[ActionSpec]) -> list[str]:
    """The JSON an agent must answer with, one example per allowed action."""
    lines = ["RESPONSE FORMAT: answer with one JSON object, for example:"]
    for action in actions:
        lines.append("  " + json.dumps({"type": action.name, **example_payload(action.payload)}))
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
