"""The OpenEnv server: each served game's OpenEnv app (OpenEnv's own `create_fastapi_app`) under /GAME.

A client of game G connects to `http://HOST:PORT/G` (its episodes over `/G/ws`; OpenEnv's stateless HTTP
`/G/reset`, `/G/step`, `/G/schema`, `/G/health` beside it); `/` lists the served games. Requests and WebSocket
handshakes are answered only for the allowed Hosts and Origins (DNS-rebinding protection, as on every server
here: a browser may open a WebSocket to any address), with `/healthz` and `/metrics` beside them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from functools import partial

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from negotiation_openenv.environment import NegotiationEnvironment, Table
from negotiation_platform.network.connections import ConnectionLimits
from negotiation_platform.network.exposure import Asgi, Receive, Scope, Send, announce, bind, run_http
from negotiation_platform.network.hosts import host_refusal
from negotiation_platform.observability.http import with_operator_routes

POLICY_VIOLATION = 1008
"""The WebSocket close code of a handshake from a Host or Origin this server does not answer."""


def build_app(tables: Sequence[Table], max_sessions: int) -> Starlette:
    """The games of `tables` as OpenEnv environments under /GAME, each with up to `max_sessions` sessions."""
    from openenv.core.env_server.http_server import create_fastapi_app

    routes: list[Route | Mount] = [Route("/", partial(_index, {t.game: t for t in tables}))]
    for table in tables:
        factory = partial(NegotiationEnvironment, table)
        served = create_fastapi_app(factory, table.action, table.observation, max_sessions, env_name=table.game)
        routes.append(Mount(f"/{table.game}", app=served))
    return Starlette(routes=routes)


async def _index(tables: dict[str, Table], request: Request) -> JSONResponse:
    games = {
        game: {
            "path": f"/{game}",
            "seat": table.seat,
            "opponents": list(table.opponents),
            "grammar": table.grammar,
            "actions": table.actions,
        }
        for game, table in tables.items()
    }
    return JSONResponse({"games": games})


def guard_websockets(app: Asgi, hosts: Iterable[str]) -> Asgi:
    """`app`, closing WebSocket handshakes whose Host or Origin is not among `hosts` (see `host_refusal`)."""
    patterns = tuple(hosts)

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and host_refusal(scope, patterns):
            await receive()  # the handshake
            await send({"type": "websocket.close", "code": POLICY_VIOLATION})
            return
        await app(scope, receive, send)

    return guarded


def run(app: Asgi, host: str, port: int, hosts: tuple[str, ...], connections: ConnectionLimits) -> None:
    """Serve `app` on host:port until stopped (bound first, then announced)."""
    sock = bind(host, port)
    announce(f"OpenEnv environments on http://{host}:{port}/GAME (the list at /)", host, None)
    served = with_operator_routes(guard_websockets(app, hosts), None, None, hosts)
    run_http(served, sock, logging.getLogger().getEffectiveLevel(), connections)
