"""Entry-point target: registers the MCP transport (`negotiation-platform serve mcp`, `play --via mcp`)
and the `mcp-llm` agent kind, a chat model playing as an MCP client (with the `llm` extra)."""

from __future__ import annotations

import argparse
import importlib.util
import os
from contextlib import AbstractAsyncContextManager
from typing import Any

from negotiation_mcp.limits import (
    DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_CALLER,
    DEFAULT_SESSION_IDLE_TIMEOUT,
    SessionLimits,
)
from negotiation_mcp.mcp_llm_options import McpLlmOptions
from negotiation_platform.arena import Arena, ArenaApi
from negotiation_platform.arena.persistence import default_instance
from negotiation_platform.cli import serve_options
from negotiation_platform.registry import Registry, hookimpl

LLM_AVAILABLE = importlib.util.find_spec("openai") is not None
"""Probed once: `mcp-llm` needs the `llm` extra, and the registry asks for agents on every lookup."""


def mcp_llm_agent(seed: int = 0, name: str = "mcp-llm", target: str = "", **options: Any) -> Any:
    """A chat model (any OpenAI-compatible endpoint) playing its seat by calling the arena's MCP tools."""
    from negotiation_mcp.mcp_llm import McpLlmAgent

    return McpLlmAgent(seed=seed, name=name, target=target, **options)


mcp_llm_agent.needs_target = True  # type: ignore[attr-defined]  # named as mcp-llm:MODEL, never alone
mcp_llm_agent.spends_operator_budget = True  # type: ignore[attr-defined]  # the operator's endpoint and key
mcp_llm_agent.Options = McpLlmOptions  # type: ignore[attr-defined]  # its --agent-config keys


class McpTransport:
    name = "mcp"
    summary = "serve the arena over MCP (stdio or streamable HTTP)"

    def add_serve_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--transport",
            choices=["stdio", "http"],
            default="stdio",
            help="stdio for a client that starts this server, http for streamable HTTP at /mcp",
        )
        serve_options.add_address_arguments(parser, 8000, "HTTP: interface to bind", "HTTP: port to listen on")
        add_session_arguments(parser)
        serve_options.add_policy_arguments(parser)
        serve_options.add_store_arguments(parser)
        serve_options.add_exposure_arguments(parser)
        serve_options.add_view_argument(parser)

    def serve(self, registry: Registry, args: argparse.Namespace) -> None:
        from negotiation_mcp.serving import serve_http, serve_stdio

        stdio = args.transport == "stdio"
        play_base_url = None if stdio else f"http://{args.host}:{args.port}"
        arena = Arena(registry, policy=serve_options.policy_from_args(args, play_base_url=play_base_url))
        serve_options.attach_served_store(
            arena, args, default_instance("stdio", os.getpid()) if stdio else default_instance(args.port)
        )
        if stdio:
            serve_stdio(arena)
        else:
            token = serve_options.auth_token(args.auth_token_file)
            serve_http(
                arena,
                host=args.host,
                port=args.port,
                hosts=serve_options.served_hosts(args),
                token=token,
                view=args.view,
                sessions=session_limits(args),
                connections=serve_options.connection_limits(args),
            )

    def connects_to(self, via: str) -> bool:
        return via == "mcp" or (via.startswith(("http://", "https://")) and via.rstrip("/").endswith("/mcp"))

    def connect(self, via: str) -> AbstractAsyncContextManager[ArenaApi]:
        from negotiation_mcp.client import connect

        return connect(via)


def add_session_arguments(parser: argparse.ArgumentParser) -> None:
    """HTTP sessions (the handshake era of MCP has them): bounded in all, per caller and in idle time."""
    parser.add_argument(
        "--max-sessions",
        type=serve_options.count_argument,
        default=DEFAULT_MAX_SESSIONS,
        help="HTTP: open MCP sessions in all (then every new session is refused with 503)",
    )
    parser.add_argument(
        "--max-sessions-per-caller",
        type=serve_options.count_argument,
        default=DEFAULT_MAX_SESSIONS_PER_CALLER,
        help="HTTP: open MCP sessions one caller (client address) may hold; more are refused with 429",
    )
    parser.add_argument(
        "--session-idle-timeout",
        type=serve_options.positive_argument,
        default=DEFAULT_SESSION_IDLE_TIMEOUT,
        help="HTTP: seconds an MCP session lives without a request; then it ends",
    )


def session_limits(args: argparse.Namespace) -> SessionLimits:
    return SessionLimits(args.max_sessions, args.max_sessions_per_caller, args.session_idle_timeout)


@hookimpl
def register_transports() -> dict[str, Any]:
    return {"mcp": McpTransport()}


@hookimpl
def register_agents() -> dict[str, Any]:
    return {"mcp-llm": mcp_llm_agent} if LLM_AVAILABLE else {}
