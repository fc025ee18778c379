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
from negotiation_platform.catalogue.remote import RemoteArena
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
        code = ErrorCode(str(error.get("code")))
    except ValueError:
        return McpToolFailure(str(body))
    return NegotiationError(code, error.get("message", ""), **error.get("details", {}))


class McpArena(RemoteArena):
    """Implements `ArenaApi` by calling the MCP server's tools."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, operation: str, **arguments: Any) -> dict[str, Any]:
        """Call the tool named after the operation; a tool error is raised as the arena's refusal."""
        args = {k: v for k, v in arguments.items() if v is not None}
        result = await self.client.call_tool(operation, args, read_timeout_seconds=READ_TIMEOUT_SECONDS)
        if result.is_error:
            raise _refusal(result)
        return dict(result.structured_content or {})


def stdio_server_parameters() -> StdioServerParameters:
    """How to spawn this project's MCP server over stdio with the current interpreter.

    The spawning client is the server's only user, so the server is reproducible (its seeds decide),
    and it keeps nothing once the client is done (no store).
    """
    return StdioServerParameters(
        command=sys.executable,
        args=[
            *("-m", "negotiation_platform.cli.main", "serve", "mcp", "--transport", "stdio"),
            *("--reproducible", "--store", ":memory:"),
        ],
    )


@asynccontextmanager
async def connect(via: str) -> AsyncIterator[McpArena]:
    """'mcp' spawns a stdio server; an http(s) URL connects to a running streamable-HTTP server."""
    target: Any = stdio_server_parameters() if via == "mcp" else via
    async with Client(target) as client:
        yield McpArena(client)  # type: ignore[abstract]  # its ArenaApi methods are set from the catalogue
