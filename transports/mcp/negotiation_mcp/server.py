"""The arena as an MCP server: ten tools with the arena's argument names, rules as resources, a prompt.

mcp 2.x's default protocol has no sessions, so a seat's identity travels as the `token` argument
of every per-seat tool. Every tool answers with structured content (its output schema) and the
same JSON as text; a refusal is a tool error whose content is the arena's `{"error": {code,
message}}`. Nothing here holds game logic or match state: it is a thin adapter over `Arena`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources.types import TextResource
from mcp.types import CallToolResult, TextContent
from pydantic import Field

from negotiation_mcp import models
from negotiation_platform.agents.house import HouseSeats
from negotiation_platform.arena import MAX_WAIT_SECONDS, Arena
from negotiation_platform.errors import NegotiationError
from negotiation_platform.operations import OPERATIONS
from negotiation_platform.rules_text import render_rules

INSTRUCTIONS = f"""\
Negotiation arena. Play a match: list_games → get_game_rules → start_game (optionally with built-in
opponents) or join_game → then repeat get_turn_state(wait_seconds up to {MAX_WAIT_SECONDS:g}) until
`your_turn` is true, read its `prompt` and `allowed_actions`, answer with perform_action (and
send_public_message / send_private_message when the phase allows) → get_result when `status` is
"finished". Keep your seat token secret: it is the only proof that a seat is yours."""

MatchId = Annotated[str, Field(description="The match id returned by start_game or list_matches.")]
Token = Annotated[str, Field(description="Your secret seat token from start_game or join_game.")]
GameId = Annotated[str, Field(description="A game id from list_games, e.g. 'split_100'.")]
Config = Annotated[
    dict[str, Any] | None,
    Field(description="Optional game config overriding defaults; see the spec from get_game_rules."),
]


def _answer(result: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(result))], structured_content=result)


async def _run(operation: Awaitable[dict[str, Any]]) -> CallToolResult:
    """The arena's answer, or its refusal as a tool error carrying the stable code and message."""
    try:
        return _answer(await operation)
    except NegotiationError as refusal:
        body = refusal.to_dict()
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(body))], structured_content=body, is_error=True
        )


def build_server(arena: Arena, house: HouseSeats | None = None) -> MCPServer:
    """An MCP server over `arena`; `house` seats built-in opponents server-side."""
    house = house or HouseSeats(arena)
    server: MCPServer = MCPServer("negotiation-platform", version="0.1.0", instructions=INSTRUCTIONS)

    @server.tool(description=OPERATIONS["list_games"].description)
    async def list_games() -> Annotated[CallToolResult, models.GameList]:
        return await _run(arena.list_games())

    @server.tool(description=OPERATIONS["get_game_rules"].description)
    async def get_game_rules(game_id: GameId, config: Config = None) -> Annotated[CallToolResult, models.GameRules]:
        return await _run(arena.get_game_rules(game_id, config))

    @server.tool(description=OPERATIONS["start_game"].description)
    async def start_game(
        game_id: GameId,
        config: Config = None,
        seed: Annotated[int | None, Field(description="Seed for reproducible randomness; random if omitted.")] = None,
        name: Annotated[str | None, Field(description="Your display name; becomes your agent id.")] = None,
        opponents: Annotated[
            list[str] | None, Field(description="Built-in agents for the other seats, e.g. ['concession'].")
        ] = None,
    ) -> Annotated[CallToolResult, models.StartedMatch]:
        return await _run(house.start_game(game_id, config=config, seed=seed, name=name, opponents=opponents))

    @server.tool(description=OPERATIONS["join_game"].description)
    async def join_game(
        match_id: MatchId,
        name: Annotated[str | None, Field(description="Your display name; becomes your agent id.")] = None,
    ) -> Annotated[CallToolResult, models.JoinedMatch]:
        return await _run(arena.join_game(match_id, name))

    @server.tool(description=OPERATIONS["get_turn_state"].description)
    async def get_turn_state(
        match_id: MatchId,
        token: Token,
        since: Annotated[int | None, Field(ge=0, description="The `cursor` of your last call.")] = None,
        wait_seconds: Annotated[
            float, Field(ge=0, le=MAX_WAIT_SECONDS, description="How long to wait for your turn or news.")
        ] = 0,
    ) -> Annotated[CallToolResult, models.TurnState]:
        return await _run(arena.get_turn_state(match_id, token, since=since, wait_seconds=wait_seconds))

    @server.tool(description=OPERATIONS["send_public_message"].description)
    async def send_public_message(
        match_id: MatchId, token: Token, content: Annotated[str, Field(description="The message text.")]
    ) -> Annotated[CallToolResult, models.ActionOutcome]:
        return await _run(arena.send_public_message(match_id, token, content))

    @server.tool(description=OPERATIONS["send_private_message"].description)
    async def send_private_message(
        match_id: MatchId,
        token: Token,
        to: Annotated[list[str], Field(description="Agent ids of the recipients.")],
        content: Annotated[str, Field(description="The message text.")],
    ) -> Annotated[CallToolResult, models.ActionOutcome]:
        return await _run(arena.send_private_message(match_id, token, to, content))

    @server.tool(description=OPERATIONS["perform_action"].description)
    async def perform_action(
        match_id: MatchId,
        token: Token,
        action_type: Annotated[str, Field(description="e.g. 'propose', 'accept', 'bid'.")],
        payload: Annotated[dict[str, Any] | None, Field(description="The action's payload object.")] = None,
    ) -> Annotated[CallToolResult, models.ActionOutcome]:
        return await _run(arena.perform_action(match_id, token, action_type, payload))

    @server.tool(description=OPERATIONS["get_result"].description)
    async def get_result(match_id: MatchId) -> Annotated[CallToolResult, models.MatchResult]:
        return await _run(arena.get_result(match_id))

    @server.tool(description=OPERATIONS["list_matches"].description)
    async def list_matches() -> Annotated[CallToolResult, models.MatchList]:
        return await _run(arena.list_matches())

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
        agents = ", ".join(sorted(arena.registry.agents()))
        text = f"{INSTRUCTIONS}\n\nBuilt-in opponents for start_game: {agents}."
        if game_id:
            text += "\n\n" + render_rules(arena.registry.game(game_id).spec)
        return text

    return server
