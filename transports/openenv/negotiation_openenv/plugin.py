"""Entry-point target: `negotiation-platform serve openenv [GAME ...]`, games as OpenEnv environments."""

from __future__ import annotations

import argparse
from contextlib import AbstractAsyncContextManager

from negotiation_platform.arena import ArenaApi
from negotiation_platform.cli import serve_options
from negotiation_platform.registry import Registry, hookimpl
from negotiation_platform.serving.transport_plugin import Transport

DEFAULT_PORT = 8000
INSTALL_HINT = 'pip install --no-deps "openenv==0.4.1" (see negotiation-platform-openenv\'s README in docs)'


class OpenEnvTransport:
    name = "openenv"
    summary = "serve games as OpenEnv environments (typed actions, one episode per WebSocket session)"

    def add_serve_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "games", nargs="*", metavar="GAME", help="the games to serve (default: every installed one)"
        )
        parser.add_argument("--seat", type=int, default=0, help="the learner's seat, by index (default: 0, the first)")
        parser.add_argument(
            "--opponents",
            nargs="+",
            default=["concession"],
            metavar="AGENT",
            help="who plays the other seats: one agent for all, or one per other seat (built-in names, llm:URL)",
        )
        parser.add_argument(
            "--grammar",
            choices=["json", "compact"],
            default="json",
            help="the reply format the prompts ask for and a raw `reply` is read in",
        )
        parser.add_argument(
            "--actions",
            choices=["typed", "text"],
            default="typed",
            help="the action model: the game's typed actions (`action`, `payload`, `message`, or a `reply`), or "
            "text: the `reply` alone, its one required field (for learners that send a model's raw text as the "
            "schema's single required field, such as verifiers' openenv taskset)",
        )
        parser.add_argument(
            "--max-retries",
            type=int,
            default=2,
            help="refused moves the learner may follow with another try; the next plays the phase's default move",
        )
        parser.add_argument(
            "--max-sessions", type=serve_options.count_argument, default=64, help="concurrent sessions per game"
        )
        serve_options.add_address_arguments(parser, DEFAULT_PORT)
        parser.add_argument(
            "--allowed-host",
            action="append",
            default=[],
            metavar="HOST",
            help="a further Host header value to answer, as name:port or name:* (repeatable; DNS-rebinding "
            "protection). OpenEnv's client sends no credentials: bind to loopback or put a proxy in front.",
        )
        serve_options.add_connection_arguments(parser)

    def serve(self, registry: Registry, args: argparse.Namespace) -> None:
        try:
            import openenv  # noqa: F401  (the server is OpenEnv's own)
        except ImportError:
            raise SystemExit(f"serve openenv needs the openenv package: {INSTALL_HINT}") from None
        from negotiation_openenv.app import build_app, run
        from negotiation_openenv.environment import make_table

        # a bad game, seat or agent is refused here with its code, before anything listens
        tables = [
            make_table(
                registry,
                game,
                seat=args.seat,
                opponents=args.opponents,
                grammar=args.grammar,
                max_retries=args.max_retries,
                actions=args.actions,
            )
            for game in args.games or sorted(registry.games())
        ]
        app = build_app(tables, args.max_sessions)
        run(app, args.host, args.port, serve_options.served_hosts(args), serve_options.connection_limits(args))

    def connects_to(self, via: str) -> bool:
        """Matches are played on an OpenEnv server by OpenEnv clients (`NegotiationEnvClient`), not by `play --via`."""
        return False

    def connect(self, via: str) -> AbstractAsyncContextManager[ArenaApi]:
        raise SystemExit("an OpenEnv server is played by OpenEnv clients, not through play --via")


@hookimpl
def register_transports() -> dict[str, Transport]:
    return {"openenv": OpenEnvTransport()}
