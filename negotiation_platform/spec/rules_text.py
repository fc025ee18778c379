"""Plain-language rules generated from a spec, so what agents read cannot drift from what is enforced."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from negotiation_platform.spec import (
    ActionSpec,
    GameSpec,
    PhaseEnd,
    PhaseSpec,
    RoleAssignment,
    StartRule,
    TurnOrder,
    payload_schema,
)

_ORDER_TEXT = {
    TurnOrder.ALTERNATING: "players take turns one at a time",
    TurnOrder.SIMULTANEOUS: "every player submits once, sealed; submissions are revealed together",
    TurnOrder.FREE: "any player may act at any time until it has finished",
}
_START_TEXT = {
    StartRule.FIXED: "in the same order every round",
    StartRule.ROTATING: "and the opening player rotates every round",
    StartRule.SHUFFLED: "in an order drawn at random every round",
    StartRule.GAME_DECIDES: "in an order the game's rules set every round (see the phase's description)",
}
_END_TEXT = {
    PhaseEnd.TURNS_USED: "every player has used its turns",
    PhaseEnd.MESSAGES_USED: "every player has finished or sent all its messages",
    PhaseEnd.DEADLINE: "its clock runs out",
    PhaseEnd.GAME_DECIDES: "the game's rules end it (for example on agreement)",
}


def describe_payload(payload: type[BaseModel]) -> str:
    """One line per payload field: name, type and bounds, from the model's JSON Schema."""
    schema = payload_schema(payload)
    properties: dict[str, Any] = schema.get("properties", {})
    if not properties:
        return "payload: any JSON object, as the prompt asks" if schema.get("additionalProperties") else "no payload"
    required = set(schema.get("required", []))
    parts = []
    for name, prop in properties.items():
        parts.append(f"{name} ({_describe_property(prop, schema)}{'' if name in required else ', optional'})")
    return "payload: " + ", ".join(parts)


def _describe_property(prop: dict[str, Any], schema: dict[str, Any]) -> str:
    if "$ref" in prop:
        prop = schema.get("$defs", {}).get(prop["$ref"].rsplit("/", 1)[-1], prop)
    if "enum" in prop:
        return "one of " + ", ".join(repr(v) for v in prop["enum"])
    if "anyOf" in prop:
        return " or ".join(_describe_property(p, schema) for p in prop["anyOf"])
    text = str(prop.get("type", "value"))
    bounds = []
    if "minimum" in prop:
        bounds.append(f">= {prop['minimum']}")
    if "maximum" in prop:
        bounds.append(f"<= {prop['maximum']}")
    if "maxLength" in prop:
        bounds.append(f"at most {prop['maxLength']} characters")
    if bounds:
        text += " " + " and ".join(bounds)
    if prop.get("description"):
        text += f"; {prop['description']}"
    return text


def describe_action(action: ActionSpec) -> str:
    line = f"`{action.name}`: {action.description} ({describe_payload(action.payload)})"
    if action.max_per_player is not None:
        line += f"; at most {action.max_per_player} per player in the match"
    return line


def describe_phase(phase: PhaseSpec) -> list[str]:
    order = _ORDER_TEXT[phase.turn_order]
    if phase.turn_order is TurnOrder.ALTERNATING:
        order += " " + _START_TEXT[phase.start]
    lines = [f"Phase `{phase.name}`: {phase.description}".rstrip(": ")]
    if phase.first_round > 1 or phase.last_round is not None:
        last = "the last round" if phase.last_round is None else f"round {phase.last_round}"
        lines.append(f"- Runs only from round {phase.first_round} to {last}.")
    lines.append(f"- Turn order: {order}.")
    limits = phase.limits
    if limits.turns is not None:
        lines.append(f"- Each player gets {limits.turns} turn(s) in this phase per round.")
    if limits.actions_per_turn > 1:
        lines.append(f"- Up to {limits.actions_per_turn} actions per turn.")
    if limits.seconds_per_turn is not None:
        scope = "turn" if phase.turn_order is TurnOrder.ALTERNATING else "phase"
        lines.append(f"- Time limit: {limits.seconds_per_turn:g} seconds per {scope}.")
    if phase.actions:
        lines.append("- Actions:")
        lines.extend(f"  - {describe_action(a)}" for a in phase.actions)
    lines.extend(_describe_messaging(phase))
    lines.append("- The phase ends when " + " or ".join(_END_TEXT[e] for e in phase.ends_when) + ".")
    if phase.default_action is not None:
        lines.append(
            f"- A player who runs out of time plays `{phase.default_action.action}`"
            + (f" with {phase.default_action.payload}" if phase.default_action.payload else "")
            + "."
        )
    return lines


def _describe_messaging(phase: PhaseSpec) -> list[str]:
    policy = phase.messaging
    channels = [
        name
        for name, on in (("public", policy.channel.allows_public), ("private", policy.channel.allows_private))
        if on
    ]
    if not channels:
        return ["- No messages may be sent in this phase."]
    text = f"- Messages: {' and '.join(channels)}, at most {policy.max_length} characters each"
    if policy.per_player is not None:
        text += f", {policy.per_player} per player per round"
    if policy.per_turn is not None:
        text += f", {policy.per_turn} per turn"
    text += "; a message is your whole turn." if policy.uses_turn else "; a message does not use up your turn."
    return [text]


def render_rules(spec: GameSpec) -> str:
    """The full rules of a game, in plain language, from its spec alone."""
    roles = spec.roles
    if roles.names:
        who = f"Roles: {', '.join(roles.names)}"
        who += " (assigned at random from the match seed)." if roles.assignment is RoleAssignment.SEEDED else "."
    elif roles.min_players == roles.max_players:
        who = f"Players: {roles.min_players}."
    else:
        who = f"Players: {roles.min_players} to {roles.max_players}."
    lines = [f"# {spec.title} (`{spec.id}`)", "", spec.summary, "", who]
    lines.append(
        f"The game lasts at most {spec.rounds} round(s); each round runs the phases below in order "
        "(those that run in that round)."
    )
    for phase in spec.phases:
        lines.append("")
        lines.extend(describe_phase(phase))
    lines.extend(["", f"Outcome ({spec.outcome.kind.value.replace('_', ' ')}): {spec.outcome.description}"])
    return "\n".join(lines)
