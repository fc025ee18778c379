"""The arena as an A2A agent: one skill per arena operation, dispatched from data parts.

A message whose data part is `{"operation": NAME, "arguments": {...}}` runs that operation (the
same names and arguments as the MCP tools) and is answered with a data part holding the result
or the arena's `{"error": {code, message}}`. A plain-text message gets a short help text.

start_game and join_game answer with a fresh `context_id` the server made (`Arena.bind_context`:
the match id and 192 random bits, whose hash the seat keeps in the store like its token's), and
send that answer in that context (the reply Message's `contextId`), so a client that continues in
the reply's context, as any A2A client does, plays the seat: later calls in that context may leave
out `match_id` and `token` (and get_result its `match_id`), so one context carries a whole match,
result included, across a restart of the server and on every process sharing its store. Context ids
a client picks itself never carry a seat (a second client could reuse or guess them), and an
explicit token always works.

The caller of a message, for the arena's per-caller limits, is its address and its context id
(`wire.caller_of`); a client can open contexts at will, so the per-address limit is what bounds it.

The agent card has one skill per catalogue operation; each skill's description ends with a line
`Arguments (JSON Schema): {...}` giving the schema of its `arguments` (its request model's), and
its example is a whole request (the catalogue's). Every answer carries its value as a data part
and as exact JSON (see `wire`); the boundary in `run_operation` checks requests and answers.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import AgentCard, AgentSkill
from starlette.applications import Starlette

from negotiation_a2a import wire
from negotiation_platform.arena import Arena
from negotiation_platform.arena.forwarding import bind_context
from negotiation_platform.arena.limits import Caller
from negotiation_platform.catalogue import CATALOGUE, Operation
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.serving.operations import run_operation

HELP = (
    "This agent is a negotiation arena. Send a message with a data part (or an application/json text part) "
    '{"operation": NAME, "arguments": {...}}; operations: ' + ", ".join(CATALOGUE) + ". "
    'Start with {"operation": "list_games", "arguments": {}}, then start_game or join_game (the seat is '
    "remembered in the context_id it answers with), then get_turn_state with wait_seconds, perform_action, "
    "get_result. Answers hold the result twice: a data part (numbers as doubles) and an application/json "
    "text part (exact JSON)."
)
log = logging.getLogger(__name__)

CONTEXT_ARGUMENTS: dict[str, tuple[str, ...]] = {
    name: tuple(a for a in ("match_id", "token") if a in operation.required)
    for name, operation in CATALOGUE.items()
    if operation.seat or name == "get_result"
}
"""What a seat's context supplies when left out, per operation (never for join_game: that would take a second seat)."""
SEAT_OPERATIONS = ("start_game", "join_game")
"""The operations that take a seat: their answer binds it to a fresh context and is sent in it."""
SCHEMA_LABEL = "Arguments (JSON Schema): "


def skill_description(name: str, operation: Operation) -> str:
    """The operation's description, what its context may supply, and the JSON Schema of its arguments."""
    schema = operation.arguments_schema
    remembered = CONTEXT_ARGUMENTS.get(name, ())
    lines = [operation.description]
    if remembered:
        schema = {**schema, "required": [a for a in schema.get("required", []) if a not in remembered]}
        lines.append(
            f"In the context that start_game or join_game answered with, {' and '.join(remembered)} may be left out."
        )
    lines.append(SCHEMA_LABEL + json.dumps(schema))
    return "\n".join(lines)


def arena_card(base_url: str) -> AgentCard:
    skills = [
        AgentSkill(
            id=name,
            name=name,
            description=skill_description(name, operation),
            tags=["negotiation", "arena"],
            examples=[json.dumps({"operation": name, "arguments": operation.example})],
            input_modes=["application/json"],
            output_modes=["application/json"],
        )
        for name, operation in CATALOGUE.items()
    ]
    return wire.agent_card(
        "negotiation-platform arena",
        "Play negotiation games: every arena operation is a skill, called with a data part "
        '{"operation": NAME, "arguments": {...}}.',
        base_url,
        skills,
    )


class ArenaExecutor(AgentExecutor):
    """Runs arena operations from A2A messages; each message gets exactly one reply message."""

    def __init__(self, house: HouseSeats) -> None:
        self.house = house

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        try:
            values = wire.values_of(message) if message else []
        except wire.Unreadable as unreadable:  # the sender's mistake: one line in the log, a refusal for it
            log.warning("refused an A2A message: %s", unreadable)
            refusal = NegotiationError(ErrorCode.INVALID_ARGUMENT, f"This message cannot be read: {unreadable}.")
            await event_queue.enqueue_event(wire.reply(wire.structured(refusal.to_dict()), context.context_id))
            return
        requests = [d for d in values if isinstance(d, dict) and "operation" in d]
        if not requests:
            await event_queue.enqueue_event(wire.reply([wire.text(HELP)], context.context_id))
            return
        caller = wire.caller_of(context.call_context, context.context_id)
        result = await self._run(context.context_id or "", requests[0], caller)
        seat_context = result.get("context_id") if requests[0]["operation"] in SEAT_OPERATIONS else None
        # a new seat's answer is sent in the seat's own context, so a client that simply continues
        # in the reply's context (any A2A client does) plays that seat
        reply_context = seat_context if isinstance(seat_context, str) else context.context_id
        await event_queue.enqueue_event(wire.reply(wire.structured(result), reply_context))

    async def _run(self, context_id: str, request: dict[str, Any], caller: Caller) -> dict[str, Any]:
        name, arguments = request.get("operation"), request.get("arguments", {})
        remembered = CONTEXT_ARGUMENTS.get(name, ()) if isinstance(name, str) else ()
        arena = self.house.arena
        try:
            if remembered and isinstance(arguments, dict) and not all(a in arguments for a in remembered):
                match_id = await arena.context_match(context_id)
                if match_id is not None:  # the context is a seat's: it stands for the seat's token
                    seat = {"match_id": match_id, "token": context_id}
                    arguments = {**{a: seat[a] for a in remembered}, **arguments}
            result = await run_operation(self.house, name, arguments, caller=caller)  # type: ignore[arg-type]
        except NegotiationError as refusal:
            return refusal.to_dict()
        if name in SEAT_OPERATIONS:
            match_id = result.get("match_id", arguments.get("match_id"))
            try:
                result = {**result, "context_id": await bind_context(arena, match_id, result["token"])}
            except NegotiationError as failure:  # the seat is taken: its token, answered, still works
                log.warning("match %s: the seat's context could not be kept: %s", match_id, failure.message)
        return result

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Operations finish quickly (or wait at most MAX_WAIT_SECONDS): nothing to cancel."""


def build_arena_app(arena: Arena, base_url: str) -> Starlette:
    return wire.a2a_app(ArenaExecutor(HouseSeats(arena)), arena_card(base_url))
