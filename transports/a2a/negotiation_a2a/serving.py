"""Running an A2A app with uvicorn: bound first, announced, optionally behind a bearer token."""

from __future__ import annotations

import logging

import uvicorn
from starlette.applications import Starlette

from negotiation_platform.arena.exposure import announce, bind, one_line_logs, require_bearer

JSONRPC_LOGGER = "a2a.server.routes.jsonrpc_dispatcher"
"""Logs a full traceback for every malformed JSON-RPC body; a client's mistake gets one line."""


def run(app: Starlette, host: str, port: int, banner: str, token: str | None = None) -> None:
    sock = bind(host, port)
    one_line_logs(JSONRPC_LOGGER)
    announce(banner, host, token)
    served = require_bearer(app, token) if token else app
    uvicorn.Server(uvicorn.Config(served, log_level=logging.getLogger().getEffectiveLevel())).run(sockets=[sock])
