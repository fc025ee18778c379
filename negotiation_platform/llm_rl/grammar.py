"""The two reply grammars of the text environment: the `llm:` agent's JSON and a compact line form.

JSON replies are read by the `llm:` agent's own parser (`agents.llm.read_reply`), so a model trained
here answers exactly as it will when seated as `llm:MODEL`. The compact grammar is for small models:
one line `ACTION VALUE VALUE ...` (the payload's fields in the schema's order; a value is any JSON
value, or a bare word read as a string), optionally preceded by lines `say TEXT`, each a public
message sent before the move. `say` alone only talks, as `{"action_type": null, "message": ...}` does.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import JsonValue

from negotiation_platform.agents.base import Decision, OutgoingMessage
from negotiation_platform.agents.llm import SYSTEM, read_reply
from negotiation_platform.agents.offers import schema_object
from negotiation_platform.agents.payloads import sample_payload
from negotiation_platform.agents.turns import allowed_actions, listed_actions, messaging

Grammar = Literal["json", "compact"]
COMPACT_SYSTEM = (
    "You are a negotiator playing a game against other agents. Each turn you get the situation and the moves "
    "you may make now. Reply with one line: the action's name, then its payload's values in the order its "
    "payload_schema lists them, separated by spaces (e.g. `propose 55`; write a value with spaces as a JSON "
    "string). Where messages are open you may first write lines `say <text>` that the other players will read."
)
_SAY = "say"
_DECODER = json.JSONDecoder()


def system_text(grammar: Grammar) -> str:
    """The system message of a seat's prompt in `grammar`."""
    return SYSTEM if grammar == "json" else COMPACT_SYSTEM


def format_text(grammar: Grammar, actions: Sequence[Mapping[str, object]]) -> str:
    """The reply format's reminder closing the user message, with one example per allowed action."""
    if grammar == "json":
        return 'Reply with one JSON object {"action_type": ..., "payload": {...}, "message": optional text}.'
    examples = [
        compact_line(str(a["name"]), sample_payload(schema_object(a["payload_schema"]), random.Random(0)), a)
        for a in actions
    ]
    shown = "; ".join(f"`{e}`" for e in examples) or "`say <text>`"
    return f"Reply in the compact form (not JSON, whatever the text above asks), e.g. {shown}."


def read(grammar: Grammar, text: str, turn: Mapping[str, object]) -> tuple[Decision | None, str]:
    """(the decision, "") that `text` asks for in `grammar`, or (None, what is wrong with it)."""
    if grammar == "json":
        return read_reply(text, dict(turn))
    return _read_compact(text, turn)


def render(grammar: Grammar, decision: Decision, turn: Mapping[str, object]) -> str:
    """`decision` written as a reply in `grammar` (its messages public)."""
    message = decision.messages[0].content if decision.messages else None
    if grammar == "json":
        reply: dict[str, JsonValue] = {"action_type": decision.action, "payload": decision.payload}
        if message is not None:
            reply["message"] = message
        return json.dumps(reply)
    lines = [f"{_SAY} {m.content}" for m in decision.messages]
    if decision.action is not None:
        schema = next(a for a in listed_actions(turn) if a["name"] == decision.action)
        lines.append(compact_line(decision.action, decision.payload, schema))
    return "\n".join(lines)


def compact_line(action: str, payload: Mapping[str, object], allowed: Mapping[str, object]) -> str:
    """`action` and `payload` as one compact line: the values in the schema's field order."""
    fields = list(schema_object(schema_object(allowed["payload_schema"]).get("properties")))
    values = [_word(payload[name]) for name in fields if name in payload]
    return " ".join([action, *values])


def _word(value: object) -> str:
    """A value as the compact grammar writes it: a bare word where it reads back as the same string."""
    if isinstance(value, str) and value and value.split() == [value] and _bare(value) == value:
        return value
    return json.dumps(value)


def _bare(word: str) -> JsonValue:
    """What a bare word reads as: its JSON value if it is one (`55`, `true`), else the word itself."""
    try:
        value, end = _DECODER.raw_decode(word)
    except json.JSONDecodeError:
        return word
    return value if end == len(word) else word


def _read_compact(text: str, turn: Mapping[str, object]) -> tuple[Decision | None, str]:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    public = bool(messaging(turn).get("public"))
    messages: list[OutgoingMessage] = []
    while lines and lines[0].split(maxsplit=1)[0].lower() == _SAY:
        said = lines.pop(0)[len(_SAY) :].strip()
        if said and public:
            messages.append(OutgoingMessage(said))
    if not lines:
        return (Decision(messages=messages), "") if messages else (None, "it names no allowed action.")
    if len(lines) > 1:
        return None, "it has more than one move line (write `say <text>` lines first, then one move line)."
    name, _, rest = lines[0].partition(" ")
    allowed = allowed_actions(turn)
    if name not in allowed:
        return None, f"action {name!r} is not one of the allowed actions {sorted(allowed)}."
    values, problem = _values(rest)
    if problem:
        return None, problem
    fields = list(schema_object(allowed[name]["payload_schema"].get("properties")))
    if len(values) > len(fields):
        return None, f"{name} takes at most {len(fields)} values ({' '.join(fields) or 'none'}), got {len(values)}."
    return Decision(messages=messages, action=name, payload=dict(zip(fields, values, strict=False))), ""


def _values(text: str) -> tuple[list[JsonValue], str]:
    """The values of a move line after its action name: JSON values or bare words, space separated."""
    values: list[JsonValue] = []
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return values, ""
        if text[at] in '[{"':
            try:
                value, at = _DECODER.raw_decode(text, at)
            except json.JSONDecodeError as exc:
                return [], f"a value does not parse as JSON ({exc.msg} at column {exc.colno})."
            values.append(value)
            continue
        end = at
        while end < len(text) and not text[end].isspace():
            end += 1
        values.append(_bare(text[at:end]))
        at = end
