"""Entry-point target: the A2A transport (`serve a2a`, `agent serve`, `play --via a2a:URL`) and the
`a2a` agent kind that seats a remote A2A agent (`--agents a2a:http://127.0.0.1:9001`)."""

from __future__ import annotations

import argparse
from contextlib import AbstractAsyncContextManager
from typing import Any

from negotiation_platform.agents.base import Agent
from negotiation_platform.arena import Arena, ArenaApi
from negotiation_platform.arena.persistence import default_instance
from negotiation_platform.cli import serve_options
from negotiation_platform.network.exposure import with_lifespan
from negotiation_platform.registry import Registry, hookimpl
from negotiation_platform.wire.allowlist import AllowList

VIA_PREFIX = "a2a:"


def remote_agent(seed: int = 0, name: str = "a2a", target: str = "", allow: AllowList | None = None) -> Agent:
    """A seat played by the remote A2A agent at `target`, contacting only URLs `allow` allows (None: any).
    Imported lazily: a2a-sdk is heavy."""
    from negotiation_a2a.client import RemoteA2aAgent

    return RemoteA2aAgent(seed=seed, name=name, target=target, allow=allow)


remote_agent.needs_target = True  # type: ignore[attr-defined]  # named as a2a:URL, never alone
remote_agent.checks_urls = True  # type: ignore[attr-defined]  # a served arena hands it its allow-list


class A2aTransport:
    name = "a2a"
    summary = "serve the arena as an A2A agent (agent card + JSON-RPC)"

    def add_serve_arguments(self, parser: argparse.ArgumentParser) -> None:
        serve_options.add_address_arguments(parser, 9000)
        parser.add_argument(
            "--public-url", default=None, help="base URL written into the agent card (http://HOST:PORT when left out)"
        )
        serve_options.add_policy_arguments(parser)
        serve_options.add_store_arguments(parser)
        serve_options.add_exposure_arguments(parser)
        serve_options.add_view_argument(parser)

    def serve(self, registry: Registry, args: argparse.Namespace) -> None:
        from negotiation_a2a.arena_server import build_arena_app
        from negotiation_a2a.serving import run

        base = args.public_url or f"http://{args.host}:{args.port}"
        arena = Arena(registry, policy=serve_options.policy_from_args(args, play_base_url=base))
        serve_options.attach_served_store(arena, args, default_instance(args.port))
        token = serve_options.auth_token(args.auth_token_file)
        app = with_lifespan(build_arena_app(arena, base), arena)
        viewer = arena if args.view else None
        hosts = serve_options.served_hosts(args, base)
        connections = serve_options.connection_limits(args)
        banner = f"arena A2A agent on {base}"
        run(app, args.host, args.port, banner, token, viewer, (arena, base), hosts, connections)

    def serve_agent(self, agent: Agent, host: str, port: int) -> None:
        from negotiation_a2a.agent_server import build_agent_app
        from negotiation_a2a.serving import run

        base = f"http://{host}:{port}"
        run(build_agent_app(agent, base), host, port, f"{agent.name} A2A agent on {base}")

    def connects_to(self, via: str) -> bool:
        return via.startswith(VIA_PREFIX)

    def connect(self, via: str) -> AbstractAsyncContextManager[ArenaApi]:
        from negotiation_a2a.client import connect

        return connect(via.removeprefix(VIA_PREFIX))


@hookimpl
def register_transports() -> dict[str, Any]:
    return {"a2a": A2aTransport()}


@hookimpl
def register_agents() -> dict[str, Any]:
    return {"a2a": remote_agent}
