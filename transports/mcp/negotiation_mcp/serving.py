"""Running the MCP server: stdio for local clients, streamable HTTP (uvicorn) for remote ones."""

from __future__ import annotations

import logging

import anyio
from mcp.server.transport_security import TransportSecuritySettings

from negotiation_mcp.limits import SessionLimits
from negotiation_mcp.server import build_server
from negotiation_mcp.sessions import per_caller_sessions
from negotiation_mcp.stdio import run_stdio
from negotiation_platform.arena import Arena
from negotiation_platform.network.connections import ConnectionLimits
from negotiation_platform.network.exposure import (
    MAX_REQUEST_BYTES,
    Asgi,
    announce,
    bind,
    require_bearer,
    run_http,
    start_arena,
    with_lifespan,
)
from negotiation_platform.observability.http import with_operator_routes
from negotiation_platform.serving.house_seats import HouseSeats


def serve_stdio(arena: Arena) -> None:
    """Serve over stdin/stdout until the client closes the pipe; nothing else may write to stdout."""
    server = build_server(arena, HouseSeats(arena))

    async def run() -> None:
        await start_arena(arena)
        try:
            await run_stdio(server)
        finally:
            await arena.close()

    anyio.run(run)


def http_app(arena: Arena, host: str = "127.0.0.1", sessions: SessionLimits | None = None) -> Asgi:
    """The streamable-HTTP app at /mcp. Its Host and Origin are checked around the whole server (by
    `with_operator_routes`, the same check as every other surface's), not by the SDK. Sessions are
    bounded in all, per caller and in idle time (`sessions`, see `negotiation_mcp.sessions`)."""
    sessions = sessions or SessionLimits()
    server = build_server(arena, HouseSeats(arena))
    app = server.streamable_http_app(
        host=host,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=MAX_REQUEST_BYTES,
        max_sessions=sessions.max_sessions,
        session_idle_timeout=sessions.idle_timeout,
    )
    return per_caller_sessions(app, sessions)


def serve_http(
    arena: Arena,
    host: str,
    port: int,
    hosts: tuple[str, ...],
    token: str | None = None,
    view: bool = True,
    sessions: SessionLimits | None = None,
    connections: ConnectionLimits | None = None,
) -> None:
    """Bind first (a taken port is one error line), then announce, then serve; `token` guards every MCP
    request; the match viewer (public data only) answers at /view unless `view` is off, and the play
    page (a seat's token is its credential) at /play; all of them only for `hosts` (Host patterns,
    see `negotiation_platform.network.hosts`). Stored matches are resumed when the server starts,
    before it answers. `connections`: how long and how many connections a client may hold
    (defaults: `ConnectionLimits()`)."""
    sock = bind(host, port)
    app = with_lifespan(http_app(arena, host, sessions), arena)
    announce(f"negotiation-platform MCP server on http://{host}:{port}/mcp", host, token)
    guarded = require_bearer(app, token) if token else app
    from negotiation_platform.serving.peer_route import with_peers
    from negotiation_platform.web.play import with_play  # HTTP only: stdio needs no web pages
    from negotiation_platform.web.viewer.hosting import with_viewer

    base = f"http://{host}:{port}"
    served = with_play(with_viewer(guarded, arena if view else None, base), arena, base)
    served = with_peers(served, arena)  # calls forwarded by the other processes on the store (signed)
    served = with_operator_routes(served, arena, token, hosts)
    run_http(served, sock, logging.getLogger().getEffectiveLevel(), connections)
