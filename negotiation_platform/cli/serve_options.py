"""The options every `serve` command shares, and what they become: the arena's policy, its store, its token.

Each transport's `serve NAME` command adds the groups it needs (`add_policy_arguments`,
`add_store_arguments`, `add_exposure_arguments`...) and builds its arena from the parsed options,
policy first: the arena's policy is fixed when it is made (`Arena(registry, policy=...)`). The arena
itself parses nothing and never ends the process; what it cannot start with (a store it must not
use, a port taken) it raises as `CannotStart`, which the command line turns into its exit.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from negotiation_platform.arena import Arena
from negotiation_platform.arena.forwarding import peers_for
from negotiation_platform.arena.persistence import LEASE_SECONDS, attach_store
from negotiation_platform.arena.policy import (
    ADDRESS_SHARE,
    CALLER_SHARE,
    DEFAULT_FINISHED_TTL,
    DEFAULT_MAX_LIVE_MATCHES,
    DEFAULT_MAX_WAITING_PER_CALLER,
    DEFAULT_TURN_TIMEOUT,
    ArenaPolicy,
)
from negotiation_platform.catalogue.entries import answer_model
from negotiation_platform.cli.parsing import add_store_argument
from negotiation_platform.network.connections import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT,
    MIN_BODY_RATE,
    PER_ADDRESS_SHARE,
    ConnectionLimits,
)
from negotiation_platform.network.hosts import allowed_hosts, netloc
from negotiation_platform.store import MEMORY, default_location, masked
from negotiation_platform.wire.allowlist import AllowList, UrlRefused

TOKEN_ENV = "NEGOTIATION_AUTH_TOKEN"
MAX_LEASE_SECONDS = 86_400
Number = TypeVar("Number", int, float)
POLICY_OPTIONS = (
    "reproducible",
    "turn_timeout",
    "max_live_matches",
    "max_live_per_caller",
    "max_live_per_address",
    "max_waiting_per_caller",
    "finished_ttl",
    "reveal_finished",
    "offered_agents",
)
"""The options of `add_policy_arguments` that are `ArenaPolicy.served`'s keywords of the same names."""


def add_address_arguments(
    parser: argparse.ArgumentParser,
    port: int,
    host_help: str = "interface to bind",
    port_help: str = "port to listen on",
) -> None:
    """`--host` (loopback by default) and `--port`: where a server listens."""
    parser.add_argument("--host", default="127.0.0.1", help=host_help)
    parser.add_argument("--port", type=int, default=port, help=port_help)


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a served arena's policy (see `ArenaPolicy.served`)."""
    parser.add_argument(
        "--reproducible",
        action="store_true",
        help="draw from the client's seed (lets a match creator rebuild other seats' secrets: trusted use only)",
    )
    parser.add_argument(
        "--turn-timeout", type=positive_argument, default=DEFAULT_TURN_TIMEOUT, help="seconds a seat has to move"
    )
    parser.add_argument(
        "--max-live-matches",
        type=count_argument,
        default=DEFAULT_MAX_LIVE_MATCHES,
        help="unfinished matches at once (more are refused)",
    )
    parser.add_argument(
        "--max-live-per-caller",
        type=count_argument,
        default=None,
        help="unfinished matches one caller (its address and MCP session or A2A context) may hold a seat in "
        f"(default: 1/{CALLER_SHARE} of --max-live-matches)",
    )
    parser.add_argument(
        "--max-live-per-address",
        type=count_argument,
        default=None,
        help="unfinished matches the callers of one network address may hold seats in, all sessions together "
        f"(default: 1/{ADDRESS_SHARE} of --max-live-matches)",
    )
    parser.add_argument(
        "--max-waiting-per-caller",
        type=count_argument,
        default=DEFAULT_MAX_WAITING_PER_CALLER,
        help="matches one caller may have waiting for players",
    )
    parser.add_argument(
        "--finished-ttl",
        type=positive_argument,
        default=DEFAULT_FINISHED_TTL,
        help="seconds a finished match (or one still waiting for players) stays in memory",
    )
    parser.add_argument(
        "--allow-remote-agent",
        action="append",
        default=[],
        type=url_prefix_argument,
        metavar="URL_PREFIX",
        help="allow a2a:URL opponents under this URL prefix, and contact them and the endpoints their "
        "cards name only there (repeatable; none allowed by default)",
    )
    parser.add_argument(
        "--offer-opponent",
        action="append",
        default=[],
        dest="offered_agents",
        metavar="SPEC",
        help="let clients name exactly this opponent, although it spends this server's model budget or reads "
        "its files, e.g. llm:gpt-4o-mini (repeatable; by default only the operator seats llm:, mcp-llm: "
        "and policy: agents)",
    )
    add_reveal_argument(parser)


def add_reveal_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--reveal-finished",
        action="store_true",
        help="show spectators a finished match's private messages, sealed moves and every seat's view",
    )


def policy_from_args(args: argparse.Namespace, play_base_url: str | None = None) -> ArenaPolicy:
    """The served policy the options of `add_policy_arguments` ask for; `play_base_url` where the
    server serves the play page (None: seats get no play links)."""
    chosen = {name: getattr(args, name) for name in POLICY_OPTIONS}
    return ArenaPolicy.served(**chosen, remote_agents=tuple(args.allow_remote_agent), play_base_url=play_base_url)


def add_store_arguments(parser: argparse.ArgumentParser) -> None:
    """`--store`, `--instance` and `--lease-seconds`: where a server keeps its matches, and as whom."""
    add_store_argument(
        parser,
        f"where matches are kept: an SQLite file, a postgresql:// URL, or {MEMORY} for none "
        f"(default: $NEGOTIATION_STORE, else {masked(default_location())})",
    )
    parser.add_argument(
        "--instance",
        default=None,
        metavar="NAME",
        help="this process's name in the store's match leases: the http(s) URL the other processes reach it at "
        "(needed by --peer-secret-file), or any name (default: HOST:PORT; a restart under the same name resumes "
        "its matches at once)",
    )
    parser.add_argument(
        "--lease-seconds",
        type=lease_seconds_argument,
        default=LEASE_SECONDS,
        help="how long after this process's last sign of life another process may take over its matches",
    )
    parser.add_argument(
        "--peer-secret-file",
        default=None,
        metavar="PATH",
        help="HTTP: a secret shared by the processes on one store (at least 16 characters): a call that changes "
        "a match another process holds is forwarded to it (its --instance, then an http(s) URL) and answered, "
        "instead of refused with wrong_owner",
    )


def attach_served_store(arena: Arena, args: argparse.Namespace, instance: str) -> None:
    """Keep `arena`'s matches where the options of `add_store_arguments` say, as `instance` unless
    --instance names one (a store that cannot be used is `CannotStart`: the command's exit); with
    --peer-secret-file, calls for matches other processes hold are forwarded to them."""
    persistence = attach_store(arena, args.store, args.instance or instance, args.lease_seconds)
    arena.peers = peers_for(args.peer_secret_file, args.instance, persistence, answer_model)


def add_exposure_arguments(parser: argparse.ArgumentParser) -> None:
    """`--auth-token-file` and `--allowed-host`: who may use an HTTP server, and under which names."""
    parser.add_argument(
        "--auth-token-file",
        default=None,
        metavar="PATH",
        help=f"HTTP: require 'Authorization: Bearer <the file's content>' (or set {TOKEN_ENV})",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST",
        help="HTTP: a further Host header value to answer, as name:port or name:* (repeatable; loopback names "
        "and --host are always answered, any other Host is refused: DNS-rebinding protection)",
    )
    add_connection_arguments(parser)


def served_hosts(args: argparse.Namespace, public_url: str | None = None) -> tuple[str, ...]:
    """The Host patterns a server answers: loopback names, --host, the host of `public_url` and of an
    http(s) --instance (the other processes forward calls to it), and each --allowed-host."""
    named = [*netloc(public_url), *netloc(getattr(args, "instance", None))]
    return allowed_hosts(args.host, [*named, *args.allowed_host])


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    """What one HTTP connection may hold (see `ConnectionLimits`)."""
    parser.add_argument(
        "--header-timeout",
        type=positive_argument,
        default=DEFAULT_HEADER_TIMEOUT,
        help="HTTP: seconds a connection has to send a request's headers (from when it opens or its last answer "
        "ends); then it is closed",
    )
    parser.add_argument(
        "--idle-timeout",
        type=positive_argument,
        default=DEFAULT_IDLE_TIMEOUT,
        help="HTTP: seconds a kept-alive connection may stay silent between requests",
    )
    parser.add_argument(
        "--body-timeout",
        type=positive_argument,
        default=DEFAULT_BODY_TIMEOUT,
        help=f"HTTP: seconds a request body has, plus one per {MIN_BODY_RATE} bytes received; a slower one is "
        "cut off with 408 (answers, streams and long polls are never timed)",
    )
    parser.add_argument(
        "--max-connections",
        type=count_argument,
        default=None,
        help="HTTP: open connections in all; more are refused with 503 at once "
        "(default: 3/4 of the process's file descriptor limit, at most 10000)",
    )
    parser.add_argument(
        "--max-connections-per-address",
        type=count_argument,
        default=None,
        help="HTTP: open connections from one client address; more are refused with 429 at once (default: "
        f"1/{PER_ADDRESS_SHARE} of --max-connections; behind a reverse proxy, every connection is the proxy's)",
    )


def connection_limits(args: argparse.Namespace) -> ConnectionLimits:
    """The bounds the options of `add_connection_arguments` ask for."""
    return ConnectionLimits(
        header_timeout=args.header_timeout,
        idle_timeout=args.idle_timeout,
        body_timeout=args.body_timeout,
        max_connections=args.max_connections,
        max_connections_per_address=args.max_connections_per_address,
    )


def add_view_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-view",
        dest="view",
        action="store_false",
        help="HTTP: do not serve the match viewer at /view (it shows public match data to anyone)",
    )


def auth_token(path: str | None) -> str | None:
    """The bearer token from `path` (--auth-token-file, stripped), else from the environment, else None."""
    if path is not None:
        try:
            token = Path(path).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise SystemExit(f"cannot read --auth-token-file {path}: {exc.strerror or exc}") from None
        if not token:
            raise SystemExit(f"--auth-token-file {path} is empty")
        return token
    return os.environ.get(TOKEN_ENV, "").strip() or None


def positive_argument(text: str) -> float:
    """An argparse type: a positive finite number of seconds or the like."""
    value = _parsed(text, float, "a number")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive finite number, got {text!r}")
    return value


def count_argument(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = _parsed(text, int, "an integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
    return value


def lease_seconds_argument(text: str) -> float:
    value = _parsed(text, float, "a number")
    if not 1 <= value <= MAX_LEASE_SECONDS:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_LEASE_SECONDS} seconds, got {text!r}")
    return value


def url_prefix_argument(text: str) -> str:
    """An argparse type: a URL prefix remote agents may live under, in the spelling it is compared in."""
    try:
        [prefix] = AllowList.of([text]).prefixes
    except UrlRefused as why:
        raise argparse.ArgumentTypeError(f"not a usable URL prefix ({why}): {text!r}") from None
    return str(prefix)


def _parsed(text: str, kind: Callable[[str], Number], what: str) -> Number:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
