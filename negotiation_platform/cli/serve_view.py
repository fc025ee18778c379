"""Entry-point target: `negotiation-platform serve view`, the match viewer on its own.

It shows the matches that arena servers keep in a store (`--store`, the same default as `serve
mcp|a2a`), reading only: live matches are followed as their server plays them, finished ones are
replayed from their stored events. A command of the CLI (the viewer package below it only serves
pages), registered like a transport so that `serve` lists it beside them.
"""

from __future__ import annotations

import argparse
from contextlib import AbstractAsyncContextManager

from negotiation_platform.arena import Arena, ArenaApi
from negotiation_platform.arena.persistence import attach_store, default_instance
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.cli.parsing import add_store_argument
from negotiation_platform.cli.serve_options import (
    add_address_arguments,
    add_exposure_arguments,
    add_reveal_argument,
    auth_token,
    connection_limits,
    served_hosts,
)
from negotiation_platform.registry import Registry, hookimpl
from negotiation_platform.serving.transport_plugin import Transport
from negotiation_platform.store import default_location, masked


class ViewerTransport:
    name = "view"
    summary = "serve the match viewer (live and finished matches in a browser)"

    def add_serve_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_address_arguments(parser, 8080, host_help="interface to bind (loopback by default)")
        add_store_argument(
            parser,
            f"the store whose matches to show: an SQLite file or a postgresql:// URL "
            f"(default: $NEGOTIATION_STORE, else {masked(default_location())})",
        )
        add_reveal_argument(parser)
        add_exposure_arguments(parser)

    def serve(self, registry: Registry, args: argparse.Namespace) -> None:
        from negotiation_platform.web.viewer.hosting import serve_viewer

        arena = Arena(registry, policy=ArenaPolicy(reveal_finished=args.reveal_finished))
        attach_store(arena, args.store, default_instance("viewer", args.port), read_only=True)
        serve_viewer(
            arena, args.host, args.port, auth_token(args.auth_token_file), served_hosts(args), connection_limits(args)
        )

    def connects_to(self, via: str) -> bool:
        """The viewer only shows matches: nothing plays through it."""
        return False

    def connect(self, via: str) -> AbstractAsyncContextManager[ArenaApi]:
        raise SystemExit("the viewer cannot be played through; use an MCP or A2A server")


@hookimpl
def register_transports() -> dict[str, Transport]:
    return {"view": ViewerTransport()}
