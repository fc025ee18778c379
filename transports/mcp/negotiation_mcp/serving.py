"""Running the MCP server: stdio for local clients, streamable HTTP (uvicorn) for remote ones."""

from __future__ import annotations

import logging

import anyio
import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from negotiation_mcp.server import build_server
from negotiation_platform.agents.house import HouseSeats
from negotiation_platform.arena import Arena
from negotiation_platform.arena.exposure import announce, bind, is_loopback, require_bearer

LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]


def serve_stdio(arena: Arena) -> None:
    """Serve over stdin/stdout until the client closes the pipe; nothing else may write to stdout."""
    server = build_server(arena, HouseSeats(arena))
    anyio.run(server.run_stdio_async)


def http_app(arena: Arena, host: str = "127.0.0.1", allowed_hosts: list[str] | None = None) -> Starlette:
    """The streamable-HTTP app at /mcp. DNS-rebinding protection is always on: loopback names are
    allowed, plus the bound host and `allowed_hosts` when serving beyond loopback."""
    server = build_server(arena, HouseSeats(arena))
    hosts = list(LOOPBACK_HOSTS)
    if not is_loopback(host):
        hosts.append(f"{host}:*")
    hosts += allowed_hosts or []
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts] + [f"https://{h}" for h in hosts],
    )
    return server.streamable_http_app(host=host, transport_security=security)


def serve_http(arena: Arena, host: str, port: int, allowed_hosts: list[str], token: str | None = None) -> None:
    """Bind first (a taken port is one error line), then announce, then serve; `token` guards every request."""
    sock = bind(host, port)
    app = http_app(arena, host, allowed_hosts)
    announce(f"negotiation-platform MCP server on http://{host}:{port}/mcp", host, token)
    served = require_bearer(app, token) if token else app
    uvicorn.Server(uvicorn.Config(served, log_level=logging.getLogger().getEffectiveLevel())).run(sockets=[sock])
