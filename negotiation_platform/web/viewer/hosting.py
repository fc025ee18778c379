"""Running the viewer with uvicorn, alone or beside a transport's HTTP app."""

from __future__ import annotations

import logging

from negotiation_platform.network.connections import ConnectionLimits
from negotiation_platform.network.exposure import Asgi, announce, announce_line, bind, require_bearer, run_http
from negotiation_platform.observability.http import with_operator_routes
from negotiation_platform.web.favicon import with_favicon
from negotiation_platform.web.viewer.app import beside, viewer_app
from negotiation_platform.web.viewer.source import MatchSource


def with_viewer(app: Asgi, source: MatchSource | None, base_url: str) -> Asgi:
    """`app` with the viewer of `source` at /view, said on stderr; `app` alone when there is no source
    (`--no-view`). The viewer shows public data only and needs no token."""
    if source is None:
        return app
    announce_line(f"match viewer on {base_url}/view/ (public, no token needed)")
    return with_favicon(beside(app, viewer_app(source)))


def serve_viewer(
    source: MatchSource,
    host: str,
    port: int,
    token: str | None,
    hosts: tuple[str, ...],
    connections: ConnectionLimits | None = None,
) -> None:
    """Serve the viewer of `source` (behind `token` if given) for requests to `hosts` (Host patterns);
    `connections`: how long and how many connections a client may hold."""
    from negotiation_platform.arena.arena import Arena

    sock = bind(host, port)
    app: Asgi = with_favicon(viewer_app(source))
    announce(f"negotiation-platform match viewer on http://{host}:{port}/view/", host, token)
    served = require_bearer(app, token) if token else app
    arena = source if isinstance(source, Arena) else None  # a viewer of a store reads through an arena
    served = with_operator_routes(served, arena, token, hosts)
    run_http(served, sock, logging.getLogger().getEffectiveLevel(), connections)
