"""Entry-point target: `negotiation-platform serve view`, the match viewer on its own.

It serves the viewer over an arena in this process. `--store PATH` is meant to show the
matches a server records in a durable store; the viewer cannot read one yet, so the option says
so and stops instead of showing a misleading empty list.
"""

from __future__ import annotations

import argparse
from contextlib import AbstractAsyncContextManager
from typing import Any

from negotiation_platform.arena import Arena, ArenaApi
from negotiation_platform.arena.exposure import add_exposure_arguments, auth_token
from negotiation_platform.arena.policy import ArenaPolicy, add_reveal_argument
from negotiation_platform.registry import hookimpl


class ViewerTransport:
    name = "view"
    summary = "serve the match viewer (live and finished matches in a browser)"

    def add_serve_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="interface to bind (loopback by default)")
        parser.add_argument("--port", type=int, default=8080)
        parser.add_argument("--store", default=None, metavar="PATH", help="show the matches recorded in this store")
        add_reveal_argument(parser)
        add_exposure_arguments(parser)

    def serve(self, arena: Arena, args: argparse.Namespace) -> None:
        if args.store is not None:
            raise SystemExit(
                "--store needs the durable match store, which this viewer cannot read yet; "
                "without --store it shows the matches of its own process"
            )
        from negotiation_platform.viewer.serving import serve_viewer

        arena.policy = ArenaPolicy(reveal_finished=args.reveal_finished)
        serve_viewer(arena, args.host, args.port, auth_token(args.auth_token_file))

    def connects_to(self, via: str) -> bool:
        """The viewer only shows matches: nothing plays through it."""
        return False

    def connect(self, via: str) -> AbstractAsyncContextManager[ArenaApi]:
        raise SystemExit("the viewer cannot be played through; use an MCP or A2A server")


@hookimpl
def register_transports() -> dict[str, Any]:
    return {"view": ViewerTransport()}
