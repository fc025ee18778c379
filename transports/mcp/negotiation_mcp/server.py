"""The arena as an MCP server: a tool per arena operation (same argument names), rules as resources, a prompt.

mcp 2.x's default protocol has no sessions, so a seat's identity travels as the `token` argument
of every per-seat tool. Every tool answers with structured content (its output schema) and the
same JSON as text; every refusal (an unknown tool, a missing, unknown or mistyped argument, or
the arena's own) is a tool error whose text content is the arena's `{"error": {code, message,
details}}` and which carries no structured content (that must match the output schema).
Arguments are strict: no "5" for 5, no true for 1. Nothing here holds game logic or match state:
it is a thin adapter over the shared operations table.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resources.types import TextResource
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, TextContent
from pydantic import Field, ValidationError

from negotiation_mcp import models
from negotiation_mcp.stdio import Answering
from negotiation_platform.agents.house import HouseSeats
from negotiation_platform.arena import MAX_WAIT_SECONDS, Arena
from negotiation_platform.arena.limits import CALLER, Caller
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.operations import ARGUMENTS, OPERATIONS, run_operation
from negotiation_platform.rules_text import render_rules

INSTRUCTIONS = f"""\
Negotiation arena. Play a match: list_games → get_game_rules → start_game (optionally with built-in
opponents) or join_game → then repeat get_turn_state(wait_seconds up to {MAX_WAIT_SECONDS:g}) until
`your_turn` is true, read its `prompt` and `allowed_actions`, answer with perform_action (and
send_public_message / send_private_message when the phase allows) → get_result when `status` is
"finished". Keep your seat token secret: it is the only proof that a seat is yours."""


def _about(argument: str, operation: str | None = None) -> Any:
    """A tool argument's description and bounds, as the shared operations table gives them."""
    schema = OPERATIONS[operation].schema_of(argument) if operation else ARGUMENTS[argument]
    return Field(description=schema["description"], ge=schema.get("minimum"), le=schema.get("maximum"))


MatchId = Annotated[str, _about("match_id")]
Token = Annotated[str, _about("token")]
GameId = Annotated[str, _about("game_id")]
Config = Annotated[dict[str, Any] | None, _about("config")]
Name = Annotated[str | None, _about("name")]
Content = Annotated[str, _about("content")]


def _answer(result: dict[str, Any]) -> CallToolResult:
    try:
        text = json.dumps(result, allow_nan=False)
    except ValueError:
        return _refusal(NegotiationError(ErrorCode.INVALID_ARGUMENT, "The answer holds a non-finite number."))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=result)


def _refusal(refusal: NegotiationError) -> CallToolResult:
    """A tool error whose text is the arena's `{"error": ...}`, with no structured content: the MCP
    spec requires structured content to match the tool's output schema, and the official TypeScript
    SDK client throws -32602 on any that does not, so the refusal would never reach its user."""
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(refusal.to_dict()))], is_error=True)


async def _run(operation: Awaitable[dict[str, Any]]) -> CallToolResult:
    """The arena's answer, or its refusal as a tool error carrying the stable code and message."""
    try:
        return _answer(await operation)
    except NegotiationError as refusal:
        return _refusal(refusal)


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


class ArenaMcpServer(MCPServer):
    """An MCPServer whose tool calls are checked strictly before its lenient argument parsing runs."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return _refusal(
                NegotiationError(ErrorCode.UNKNOWN_OPERATION, f"No tool {name!r}; tools: {sorted(OPERATIONS)}.")
            )
        try:
            _strict(name, tool.fn_metadata.arg_model, arguments)
        except NegotiationError as refusal:
            return _refusal(refusal)
        token = CALLER.set(caller_of(context))
        try:
            return await super().call_tool(name, arguments, context)
        finally:
            CALLER.reset(token)

    async def run_stdio_async(self) -> None:
        """As the SDK's, except that a line it cannot read gets its JSON-RPC error (see `stdio`)."""
        async with stdio_server() as (read_stream, write_stream):
            lowlevel = self._lowlevel_server
            options = lowlevel.create_initialization_options()
            await lowlevel.run(Answering(read_stream, write_stream), write_stream, options)


def _strict(name: str, model: Any, arguments: dict[str, Any]) -> None:
    """Refuse unknown arguments and any coercion (strings for numbers, booleans for integers)."""
    unknown = sorted(set(arguments) - set(model.model_fields))
    if unknown:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"{name} takes {sorted(model.model_fields)}; unknown {unknown}.",
            unknown=unknown,
        )
    try:
        model.model_validate(arguments, strict=True)
    except ValidationError as exc:
        problems = [{"field": ".".join(str(p) for p in e["loc"]), "problem": e["msg"]} for e in exc.errors()]
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"Invalid arguments for {name}: " + "; ".join(f"{p['field']}: {p['problem']}" for p in problems),
            problems=problems,
        ) from None


def build_server(arena: Arena, house: HouseSeats | None = None) -> MCPServer:
    """An MCP server over `arena`; `house` seats built-in opponents server-side."""
    house = house or HouseSeats(arena)
    server = ArenaMcpServer("negotiation-platform", version="0.1.0", instructions=INSTRUCTIONS)

    def op(operation: str, **arguments: Any) -> Awaitable[CallToolResult]:
        """Run an operation of the shared table; arguments left at None are left out."""
        return _run(run_operation(house, operation, {k: v for k, v in arguments.items() if v is not None}))

    @server.tool(description=OPERATIONS["list_games"].description)
    async def list_games() -> Annotated[CallToolResult, models.GameList]:
        return await op("list_games")

    @server.tool(description=OPERATIONS["get_game_rules"].description)
    async def get_game_rules(game_id: GameId, config: Config = None) -> Annotated[CallToolResult, models.GameRules]:
        return await op("get_game_rules", game_id=game_id, config=config)

    @server.tool(description=OPERATIONS["start_game"].description)
    async def start_game(
        game_id: GameId,
        config: Config = None,
        seed: Annotated[int | None, _about("seed")] = None,
        name: Name = None,
        opponents: Annotated[list[str] | None, _about("opponents")] = None,
        human_seats: Annotated[int | None, _about("human_seats")] = None,
    ) -> Annotated[CallToolResult, models.StartedMatch]:
        return await op(
            "start_game",
            game_id=game_id,
            config=config,
            seed=seed,
            name=name,
            opponents=opponents,
            human_seats=human_seats,
        )

    @server.tool(description=OPERATIONS["join_game"].description)
    async def join_game(
        match_id: MatchId,
        name: Name = None,
    ) -> Annotated[CallToolResult, models.JoinedMatch]:
        return await op("join_game", match_id=match_id, name=name)

    @server.tool(description=OPERATIONS["get_turn_state"].description)
    async def get_turn_state(
        match_id: MatchId,
        token: Token,
        since: Annotated[int | None, _about("since")] = None,
        wait_seconds: Annotated[float, _about("wait_seconds")] = 0,
        include_prompt: Annotated[bool, _about("include_prompt")] = True,
    ) -> Annotated[CallToolResult, models.TurnState]:
        return await op(
            "get_turn_state",
            match_id=match_id,
            token=token,
            since=since,
            wait_seconds=wait_seconds,
            include_prompt=include_prompt,
        )

    @server.tool(description=OPERATIONS["send_public_message"].description)
    async def send_public_message(
        match_id: MatchId, token: Token, content: Content
    ) -> Annotated[CallToolResult, models.ActionOutcome]:
        return await op("send_public_message", match_id=match_id, token=token, content=content)

    @server.tool(description=OPERATIONS["send_private_message"].description)
    async def send_private_message(
        match_id: MatchId,
        token: Token,
        to: Annotated[list[str], _about("to")],
        content: Content,
    ) -> Annotated[CallToolResult, models.ActionOutcome]:
        return await op("send_private_message", match_id=match_id, token=token, to=to, content=content)

    @server.tool(description=OPERATIONS["perform_action"].description)
    async def perform_action(
        match_id: MatchId,
        token: Token,
        action_type: Annotated[str, _about("action_type")],
        payload: Annotated[dict[str, Any] | None, _about("payload")] = None,
    ) -> Annotated[CallToolResult, models.ActionOutcome]:
        return await op("perform_action", match_id=match_id, token=token, action_type=action_type, payload=payload)

    @server.tool(description=OPERATIONS["get_result"].description)
    async def get_result(match_id: MatchId) -> Annotated[CallToolResult, models.MatchResult]:
        return await op("get_result", match_id=match_id)

    @server.tool(description=OPERATIONS["list_matches"].description)
    async def list_matches(
        status: Annotated[str | None, _about("status", "list_matches")] = None,
        game_id: Annotated[str | None, _about("game_id", "list_matches")] = None,
        since: Annotated[str | None, _about("since", "list_matches")] = None,
        limit: Annotated[int | None, _about("limit", "list_matches")] = None,
        cursor: Annotated[str | None, _about("cursor", "list_matches")] = None,
    ) -> Annotated[CallToolResult, models.MatchList]:
        return await op("list_matches", status=status, game_id=game_id, since=since, limit=limit, cursor=cursor)

    @server.tool(description=OPERATIONS["watch"].description)
    async def watch(
        match_id: MatchId,
        since: Annotated[int | None, _about("since")] = None,
        wait_seconds: Annotated[float, _about("wait_seconds")] = 0,
    ) -> Annotated[CallToolResult, models.Spectacle]:
        return await op("watch", match_id=match_id, since=since, wait_seconds=wait_seconds)

    @server.tool(description=OPERATIONS["leave_game"].description)
    async def leave_game(match_id: MatchId, token: Token) -> Annotated[CallToolResult, models.LeftMatch]:
        return await op("leave_game", match_id=match_id, token=token)

    @server.tool(description="Health check: does nothing and answers ok.")
    async def ping() -> models.Pong:
        return models.Pong()

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
        agents = ", ".join(f"{name}:URL" if name == "a2a" else name for name in sorted(arena.registry.agents()))
        text = f"{INSTRUCTIONS}\n\nOpponents for start_game: {agents}."
        if game_id:
            text += "\n\n" + render_rules(arena.registry.game(game_id).spec)
        return text

    return server
