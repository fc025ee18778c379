"""Running an A2A app with uvicorn: bound first, announced, optionally behind a bearer token, with the
request body limit (`run_http`) and the Host/Origin check (`with_operator_routes`) every HTTP server
here has."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from negotiation_platform.network.connections import ConnectionLimits
from negotiation_platform.network.exposure import (
    Asgi,
    announce,
    bind,
    one_line_logs,
    require_bearer,
    run_http,
)
from negotiation_platform.network.hosts import allowed_hosts
from negotiation_platform.observability.http import with_operator_routes
from negotiation_platform.web.viewer.hosting import with_viewer
from negotiation_platform.web.viewer.source import MatchSource

if TYPE_CHECKING:
    from negotiation_platform.arena.arena import Arena

JSONRPC_LOGGER = "a2a.server.routes.jsonrpc_dispatcher"
"""Logs a full traceback for every malformed JSON-RPC body; a client's mistake gets one line."""


def run(
    app: Asgi,
    host: str,
    port: int,
    banner: str,
    token: str | None = None,
    viewer: MatchSource | None = None,
    play: tuple[Arena, str] | None = None,
    hosts: tuple[str, ...] | None = None,
    connections: ConnectionLimits | None = None,
) -> None:
    """Serve `app` (behind `token` if given); with `viewer`, the match viewer of that source at /view;
    with `play` (an arena and its public base URL), the play page at /play, outside the token guard
    (the seat token is the credential there). Every request is answered only for `hosts` (Host
    patterns; default: loopback names and `host`), against DNS rebinding; `connections`: how long
    and how many connections a client may hold."""
    sock = bind(host, port)
    one_line_logs(JSONRPC_LOGGER)
    announce(banner, host, token)
    guarded = require_bearer(app, token) if token else app
    served = with_viewer(guarded, viewer, f"http://{host}:{port}")
    if play is not None:
        from negotiation_platform.serving.peer_route import with_peers
        from negotiation_platform.web.play import with_play

        arena, base = play
        served = with_play(served, arena, base)
        served = with_peers(served, arena)  # calls forwarded by the other processes on the store (signed)
    served = with_operator_routes(served, play[0] if play else None, token, hosts or allowed_hosts(host))
    run_http(served, sock, logging.getLogger().getEffectiveLevel(), connections)
