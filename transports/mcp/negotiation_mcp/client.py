"""`McpArena`: the arena's operations over an MCP client, so any built-in agent plays through MCP.

A tool error that carries the arena's `{"error": {code, message}}` is raised again as the same
`NegotiationError`, so drivers handle refusals exactly as in-process.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from negotiation_platform.arena import MAX_WAIT_SECONDS
from negotiation_platform.errors import ErrorCode, NegotiationError

READ_TIMEOUT_SECONDS = MAX_WAIT_SECONDS + 30.0
"""A waiting get_turn_state may take up to MAX_WAIT_SECONDS; the client must not give up first."""


class McpToolFailure(RuntimeError):
    """A tool failed without an arena error (a server crash or a protocol-level problem)."""


def _refusal(result: CallToolResult) -> Exception:
    """The arena's refusal carried by a tool error, or a McpToolFailure when it carries none."""
    body = result.structured_content or {}
    if "error" not in body:
        text = "".join(getattr(block, "text", "") for block in result.content)
        try:
            body = json.loads(text)
        except json.JSONDecodeError:
            return McpToolFailure(text)
    error = body.get("error", {}) if isinstance(body, dict) else {}
    try:
        code = ErrorCode(error.get("code"))
    except ValueError:
        return McpToolFailure(str(body))
    return NegotiationError(code, error.get("message", ""), **error.get("details", {}))


class McpArena:
    """Implements `ArenaApi` by calling the MCP server's tools."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        args = {k: v for k, v in arguments.items() if v is not None}
        result = await self.client.call_tool(tool, args, read_timeout_seconds=READ_TIMEOUT_SECONDS)
        if result.is_error:
            raise _refusal(result)
        return dict(result.structured_content or {})

    async def list_games(self) -> dict[str, Any]:
        return await self.call("list_games")

    async def get_game_rules(self, game_id: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self.call("get_game_rules", game_id=game_id, config=config)

    async def start_game(
        self,
        game_id: str,
        config: dict[str, Any] | None = None,
        seed: int | None = None,
        name: str | None = None,
        opponents: list[str] | None = None,
    ) -> dict[str, Any]:
        return await self.call("start_game", game_id=game_id, config=config, seed=seed, name=name, opponents=opponents)

    async def join_game(self, match_id: str, name: str | None = None) -> dict[str, Any]:
        return await self.call("join_game", match_id=match_id, name=name)

    async def get_turn_state(
        self, match_id: str, token: str, since: int | None = None, wait_seconds: float = 0
    ) -> dict[str, Any]:
        return await self.call("get_turn_state", match_id=match_id, token=token, since=since, wait_seconds=wait_seconds)

    async def send_public_message(self, match_id: str, token: str, content: str) -> dict[str, Any]:
        return await self.call("send_public_message", match_id=match_id, token=token, content=content)

    async def send_private_message(self, match_id: str, token: str, to: list[str], content: str) -> dict[str, Any]:
        return await self.call("send_private_message", match_id=match_id, token=token, to=to, content=content)

    async def perform_action(
        self, match_id: str, token: str, action_type: str, payload: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return await self.call(
            "perform_action", match_id=match_id, token=token, action_type=action_type, payload=payload or {}
        )

    async def get_result(self, match_id: str) -> dict[str, Any]:
        return await self.call("get_result", match_id=match_id)

    async def list_matches(self) -> dict[str, Any]:
        return await self.call("list_matches")


def stdio_server_parameters() -> StdioServerParameters:
    """How to spawn this project's MCP server over stdio with the current interpreter."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "negotiation_platform.cli.main", "serve", "mcp", "--transport", "stdio"]
    )


@asynccontextmanager
async def connect(via: str) -> AsyncIterator[McpArena]:
    """'mcp' spawns a stdio server; an http(s) URL connects to a running streamable-HTTP server."""
    target: Any = stdio_server_parameters() if via == "mcp" else via
    async with Client(target) as client:
        yield McpArena(client)
