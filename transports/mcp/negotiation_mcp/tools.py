"""The arena's MCP tools: one per catalogue operation, plus this server's own `ping`.

Each tool's input schema is its operation's request model, its output schema the answer model, and
a call runs through `run` (the one dispatcher, where the boundary and the request model check it
strictly: no "5" for 5, no true for 1). mcp 2.x's default protocol has no sessions, so a seat's
identity travels as the `token` argument of every per-seat tool. Every tool answers with structured
content and the same JSON as text; every refusal (an unknown tool, a missing, unknown or mistyped
argument, or the arena's own) is a tool error whose text content is the arena's `{"error": {code,
message, details}}` and which carries no structured content (that must match the output schema).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from functools import cache

from mcp.server import ServerRequestContext
from mcp.types import CallToolResult, TextContent, Tool
from pydantic import JsonValue
from starlette.requests import Request

from negotiation_platform.arena.limits import Caller
from negotiation_platform.catalogue import CATALOGUE
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.serving.operations import run_operation

log = logging.getLogger(__name__)

PING = Tool(
    name="ping",
    description="Health check: does nothing and answers ok.",
    input_schema={"properties": {}, "title": "pingArguments", "type": "object"},
    output_schema={
        "properties": {"ok": {"default": True, "title": "Ok", "type": "boolean"}},
        "title": "Pong",
        "type": "object",
    },
)
"""The server's own tool (any arguments are ignored): not an arena operation."""


@cache
def catalogue_tools() -> tuple[Tool, ...]:
    """A tool per catalogue operation: its request model's schema in, its answer model's out."""
    return tuple(
        Tool(
            name=name,
            description=operation.description,
            input_schema=operation.arguments_schema,
            output_schema=operation.answer_schema,
        )
        for name, operation in CATALOGUE.items()
    )


def tools() -> list[Tool]:
    return [*catalogue_tools(), PING]


def input_schema(name: str) -> Mapping[str, JsonValue] | None:
    """Tool `name`'s input schema, without listing the tools (the SDK checks `Mcp-Param-*` headers by it)."""
    operation = CATALOGUE.get(name)
    if operation is not None:
        return operation.arguments_schema
    return PING.input_schema if name == PING.name else None


async def run(house: HouseSeats, name: str, arguments: dict[str, JsonValue], caller: Caller) -> dict[str, JsonValue]:
    """The one call from this transport into the arena: operation `name` for `caller`, refusals raised."""
    return await run_operation(house, name, arguments, caller=caller)


async def call_tool(house: HouseSeats, name: str, arguments: dict[str, JsonValue], caller: Caller) -> CallToolResult:
    """Tool `name`'s answer to `arguments` from `caller`: an answer, or a refusal as a tool error."""
    if name == PING.name:
        pong = {"ok": True}
        return CallToolResult(content=[_text(json.dumps(pong, indent=2))], structured_content=pong)
    try:  # a catalogue operation, or the unknown_operation refusal
        answer = await run(house, name, arguments, caller)
    except NegotiationError as refusal:
        return refused(refusal)
    except Exception:
        log.exception("Tool %r raised an unexpected exception", name[:64])
        return refused(NegotiationError(ErrorCode.INTERNAL_ERROR, f"{name[:64]} failed on the server."))
    return CallToolResult(content=[_text(json.dumps(answer))], structured_content=answer)


def refused(refusal: NegotiationError) -> CallToolResult:
    """A tool error whose text is the arena's `{"error": ...}`, with no structured content: the MCP
    spec requires structured content to match the tool's output schema, and the official TypeScript
    SDK client throws -32602 on any that does not, so the refusal would never reach its user."""
    return CallToolResult(content=[_text(json.dumps(refusal.to_dict()))], is_error=True)


def caller_of(context: ServerRequestContext[object, object] | None) -> Caller:
    """Who calls, as far as the transport knows: its address, in its MCP session where it has one (the
    `mcp-session-id` of the handshake era over HTTP; the modern protocol has no sessions). Not the
    bearer token of --auth-token-file: every client shares that one."""
    request = context.request if context is not None else None
    if not isinstance(request, Request):  # stdio, or in process
        return Caller("stdio")
    address = "address:" + str(request.client.host if request.client else "unknown")
    return Caller(address, request.headers.get("mcp-session-id") or None)


def _text(text: str) -> TextContent:
    return TextContent(type="text", text=text)
