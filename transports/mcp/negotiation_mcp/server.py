"""The arena as an MCP server: a tool per catalogue operation, rules as resources, a prompt.

The tools are made from the operation catalogue (`negotiation_platform.catalogue`): each tool's
input schema is its operation's request model, its output schema the answer model, and a call
runs through `run_operation`, where the boundary and the request model check it (strictly: no
"5" for 5, no true for 1). mcp 2.x's default protocol has no sessions, so a seat's identity
travels as the `token` argument of every per-seat tool. Every tool answers with structured
content and the same JSON as text; every refusal (an unknown tool, a missing, unknown or mistyped
argument, or the arena's own) is a tool error whose text content is the arena's `{"error": {code,
message, details}}` and which carries no structured content (that must match the output schema).
Nothing here holds game logic or match state.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resources.types import TextResource
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, TextContent
from mcp.types import Tool as McpTool
from pydantic import BaseModel

from negotiation_mcp.stdio import Answering
from negotiation_platform.agents.house import HouseSeats
from negotiation_platform.agents.seating import client_kinds
from negotiation_platform.arena import MAX_WAIT_SECONDS, Arena
from negotiation_platform.arena.limits import Caller
from negotiation_platform.catalogue import CATALOGUE
from negotiation_platform.errors import NegotiationError
from negotiation_platform.operations import run_operation
from negotiation_platform.rules_text import render_rules

INSTRUCTIONS = f"""\
Negotiation arena. Play a match: list_games → get_game_rules → start_game (optionally with built-in
opponents) or join_game → then repeat get_turn_state(wait_seconds up to {MAX_WAIT_SECONDS:g}) until
`your_turn` is true, read its `prompt` and `allowed_actions`, answer with perform_action (and
send_public_message / send_private_message when the phase allows) → get_result when `status` is
"finished". Keep your seat token secret: it is the only proof that a seat is yours."""


def _refusal(refusal: NegotiationError) -> CallToolResult:
    """A tool error whose text is the arena's `{"error": ...}`, with no structured content: the MCP
    spec requires structured content to match the tool's output schema, and the official TypeScript
    SDK client throws -32602 on any that does not, so the refusal would never reach its user."""
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(refusal.to_dict()))], is_error=True)


def caller_of(context: Context | None) -> Caller:
    """Who calls, as far as the transport knows: its address, in its MCP session where it has one (the
    `mcp-session-id` of the handshake era over HTTP; the modern protocol has no sessions). Not the
    bearer token of --auth-token-file: every client shares that one."""
    try:
        request = getattr(context.request_context, "request", None) if context is not None else None
    except ValueError:  # called outside a request (a direct call in a test)
        request = None
    if request is None:
        return Caller("stdio")
    address = "address:" + str(request.client.host if request.client else "unknown")
    return Caller(address, request.headers.get("mcp-session-id") or None)


class Pong(BaseModel):
    ok: bool = True


@cache
def catalogue_tools() -> tuple[McpTool, ...]:
    """A tool per catalogue operation: its request model's schema in, its answer model's out."""
    return tuple(
        McpTool(
            name=name,
            description=operation.description,
            input_schema=operation.arguments_schema,
            output_schema=operation.answer_schema,
        )
        for name, operation in CATALOGUE.items()
    )


class ArenaMcpServer(MCPServer):
    """An MCPServer whose tools are the catalogue's operations (plus its own `ping`)."""

    def __init__(self, house: HouseSeats, **options: Any) -> None:
        super().__init__("negotiation-platform", version="0.1.0", instructions=INSTRUCTIONS, **options)
        self.house = house

    async def list_tools(self) -> list[McpTool]:
        return [*catalogue_tools(), *await super().list_tools()]

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        operation = CATALOGUE.get(name)
        return operation.arguments_schema if operation is not None else super()._tool_input_schema(name)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        if self._tool_manager.get_tool(name) is not None:  # this server's own tools (ping)
            return await super().call_tool(name, arguments, context)
        try:  # a catalogue operation, or the unknown_operation refusal
            result = await run_operation(self.house, name, arguments, caller=caller_of(context))
        except NegotiationError as refusal:
            return _refusal(refusal)
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(result))], structured_content=result)

    async def run_stdio_async(self) -> None:
        """As the SDK's, except that a line it cannot read gets its JSON-RPC error (see `stdio`)."""
        async with stdio_server() as (read_stream, write_stream):
            lowlevel = self._lowlevel_server
            options = lowlevel.create_initialization_options()
            await lowlevel.run(Answering(read_stream, write_stream), write_stream, options)


def build_server(arena: Arena, house: HouseSeats | None = None) -> MCPServer:
    """An MCP server over `arena`; `house` seats built-in opponents server-side."""
    server = ArenaMcpServer(house or HouseSeats(arena))

    @server.tool(description="Health check: does nothing and answers ok.")
    async def ping() -> Pong:
        return Pong()

    for entry in arena.registry.games().values():
        server.add_resource(
            TextResource(
                uri=f"rules://{entry.game_id}",
                name=f"{entry.game_id} rules",
                description=f"Rules of {entry.spec.title}, generated from its spec.",
                mime_type="text/markdown",
                text=render_rules(entry.spec),
            )
        )

    @server.prompt(description="How to play a match through these tools (optionally for one game).")
    def how_to_play(game_id: str = "") -> str:
        seated = client_kinds(arena.registry)  # a client never seats the operator's llm:, mcp-llm: or policy: agents
        agents = ", ".join(f"{name}:URL" if name == "a2a" else name for name in seated)
        text = f"{INSTRUCTIONS}\n\nOpponents for start_game: {agents}."
        if game_id:
            text += "\n\n" + render_rules(arena.registry.game(game_id).spec)
        return text

    return server
