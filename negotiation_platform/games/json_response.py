"""Tolerant reading of an agent's JSON answer: prose around it, code fences, `{"decision": …}`, quirks.

Language models wrap their JSON in explanations and markdown, use single quotes or trailing
commas. This module finds the action object in such text and returns it flat, as the documented
games read it (`{"type": "offer", "price": 42000}`), whether it was written that way, as the
prompts ask (`{"action_type": "offer", "payload": {"price": 42000}}`, perform_action's form) or
with `action` for `type`. When nothing usable is found it falls back to `{"type": "reject"}`, as
the documented games do.
"""

from __future__ import annotations

import ast
import json
import re

from pydantic import JsonValue

FALLBACK: dict[str, JsonValue] = {"type": "reject"}
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


_NAME_KEYS = ("type", "action_type", "action")
"""Where an answer may name its action, in the order they are looked for."""


def _as_action(candidate: object) -> dict[str, JsonValue] | None:
    """The action object inside a parsed value, flat: `decision` unwrapped, the name under `type`, a
    perform_action-style `payload` spread beside it."""
    if not isinstance(candidate, dict):
        return None
    decision = candidate.get("decision")
    if isinstance(decision, dict):
        candidate = decision
    key = next((k for k in _NAME_KEYS if k in candidate), None)
    if key is None or not isinstance(candidate[key], str):
        return None
    rest = {k: v for k, v in candidate.items() if k != key}
    payload = rest.pop("payload") if key == "action_type" and isinstance(rest.get("payload"), dict) else {}
    return {"type": candidate[key].strip().lower(), **rest, **payload}


def _load(text: str) -> object:
    """JSON, else JSON without trailing commas, else a Python literal (single quotes, True/False)."""
    for attempt in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            return json.loads(attempt)
        except (json.JSONDecodeError, ValueError):
            pass
    try:
        return ast.literal_eval(_TRAILING_COMMA.sub(r"\1", text))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _balanced_objects(text: str) -> list[str]:
    """Every top-level {...} substring, by brace matching (strings with braces are rare in answers)."""
    objects, depth, start = [], 0, -1
    for i, char in enumerate(text):
        if char == "{":
            if depth == 0:
                start = i
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                objects.append(text[start : i + 1])
    return objects


def extract_action(response: str) -> dict[str, JsonValue] | None:
    """The first action object found in `response`, or None."""
    if not isinstance(response, str):
        return None
    texts = [block.strip() for block in _FENCE.findall(response)] + [response.strip()]
    for text in texts:
        for candidate in (text, *_balanced_objects(text)):
            action = _as_action(_load(candidate))
            if action is not None:
                return action
    return None


def parse_json_response(response: str) -> dict[str, JsonValue]:
    """{"decision": the action (fallback {"type": "reject"}), "raw_response": the original text}."""
    action = extract_action(response)
    return {"decision": action if action is not None else dict(FALLBACK), "raw_response": response}


def validate_json_response(response: str) -> bool:
    """Whether the response, fences aside, is exactly a JSON object naming an action (directly or under `decision`)."""
    if not isinstance(response, str):
        return False
    fenced = _FENCE.findall(response)
    text = fenced[0].strip() if fenced else response.strip()
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return False
    return _as_action(value) is not None
