"""`negotiation-platform`: one command line over the registry, the arena and the agents."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib.metadata
import json
import os
import random
import secrets
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, cast

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Column, Table

from negotiation_platform.agents.base import Agent
from negotiation_platform.agents.catalog import agent_description, check_agent_options, known_agent, make_agent
from negotiation_platform.agents.driver import play_match
from negotiation_platform.agents.llm_failures import FIELD as ENDPOINT_FAILURES
from negotiation_platform.agents.llm_failures import MarkedMatch, row_failures, seat_failures
from negotiation_platform.agents.seating import SeatedBy
from negotiation_platform.arena import Arena, ArenaApi
from negotiation_platform.arena.persistence import attach_store, default_instance
from negotiation_platform.cli.new_game import add_new_game_command, cmd_new_game
from negotiation_platform.cli.parsing import CliParser, UsageError, json_object, wants_json
from negotiation_platform.cli.progress import stderr_progress
from negotiation_platform.cli.research import (
    add_llm_options,
    add_research_commands,
    cmd_eval_social,
    cmd_report,
    cmd_tournament,
    cmd_train_llm,
    llm_agent_options,
    tell_endpoint_failures,
)
from negotiation_platform.cli.serve_options import add_address_arguments
from negotiation_platform.cli.store_commands import add_store_commands, add_store_option, cmd_export, cmd_matches
from negotiation_platform.cli.study import add_study_commands, cmd_study
from negotiation_platform.cli.train import add_train_command, cmd_train
from negotiation_platform.cli.transcript import print_outcome, print_transcript, shown
from negotiation_platform.errors import CannotStart, ErrorCode, NegotiationError
from negotiation_platform.observability.logs import add_log_arguments, configure_logging
from negotiation_platform.registry import FORMULATIONS, Registry
from negotiation_platform.registry.registry import OWN_DISTRIBUTION
from negotiation_platform.serving.transport_plugin import SHIPPED_TRANSPORTS, Transport, install_hint
from negotiation_platform.store import masked
from negotiation_platform.wire.unicode_text import terminal_safe

Command = Callable[[argparse.Namespace, Registry, Console], int]


def build_parser(registry: Registry) -> argparse.ArgumentParser:
    parser = CliParser(prog="negotiation-platform", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    add_log_arguments(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    games = sub.add_parser("games", help="list the installed games")
    games.add_argument(
        "--json", action="store_true", help="print one JSON object: the games, and the plugins left out as problems"
    )

    rules = sub.add_parser("rules", help="show a game's rules (or its spec as JSON)")
    rules.add_argument("game", help="a game id, as `games` lists them")
    rules.add_argument("--config", type=json_object, default=None, help="config as a JSON object")
    rules.add_argument("--json", action="store_true", help="print the spec, with each payload's JSON Schema")

    agents = sub.add_parser("agents", help="list the installed agents")
    agents.add_argument("--json", action="store_true", help="print one JSON object: the agents and their descriptions")

    play = sub.add_parser(
        "play",
        help="play a match between built-in agents, or yourself in the browser (--human)",
        description="Play one match. LLM seats that lost moves to their endpoint are named on stderr (and under "
        "endpoint_failures with --json); exit 1 when one got no usable answer at all.",
    )
    play.add_argument("game", help="a game id, as `games` lists them")
    play.add_argument(
        "--agents",
        nargs="+",
        default=["concession"],
        help="one per seat (with --human: per seat after yours), the last repeats: a built-in name, llm:MODEL or "
        "mcp-llm:MODEL (an LLM, directly or as an MCP client; OPENAI_BASE_URL picks the endpoint), a2a:URL for a "
        "remote A2A agent, or policy:DIR for a policy trained by `train`",
    )
    play.add_argument("--seed", type=int, default=None, help="the match seed (random when left out)")
    play.add_argument("--config", type=json_object, default=None, help="config as a JSON object")
    play.add_argument("--json", action="store_true", help="print one JSON object")
    play.add_argument(
        "--via", default=None, help="play through a transport: 'mcp' (spawns a stdio server) or a server's URL"
    )
    add_store_option(play, "also keep the match in this store (in-process play only; none by default)")
    play.add_argument(
        "--human",
        action="store_true",
        help="play the first seat yourself on a play page served on a free loopback port, --agents the others; "
        "its link is printed (and opened in a browser when one is available), the result when the match ends",
    )
    play.add_argument(
        "--no-browser",
        dest="browser",
        action="store_false",
        help="with --human: print the play link but do not open a browser",
    )
    play.add_argument(
        "--agent-config", type=json_object, default=None, help="options for llm/remote agents as a JSON object"
    )
    add_llm_options(play)

    simulate = sub.add_parser("simulate", help="run many matches at once with the game's JAX kernel")
    simulate.add_argument("game", help="a game with a JAX kernel")
    simulate.add_argument("--batch", type=int, default=4096, help="matches stepped together")
    simulate.add_argument("--steps", type=int, default=1000, help="env-steps per match (finished matches restart)")
    simulate.add_argument(
        "--policy",
        default="random",
        help="'random' (uniform legal actions) or module:function naming a jittable policy(key, obs, state) -> actions",
    )
    simulate.add_argument(
        "--formulation",
        choices=FORMULATIONS,
        default=None,
        help="for a game whose kernel offers both (adasociety): 'cpu' (loops that stop early) or 'accelerator' "
        "(fixed work, compact arrays); default: JAX's backend picks",
    )
    simulate.add_argument("--seed", type=int, default=0, help="seed of the batch's random keys")
    simulate.add_argument("--config", type=json_object, default=None, help="config as a JSON object")
    simulate.add_argument("--json", action="store_true", help="print the report as one JSON object")

    agent = sub.add_parser("agent", help="serve a built-in agent to play in remote matches")
    agent_commands = agent.add_subparsers(dest="agent_command", required=True, metavar="COMMAND")
    serve_agent = agent_commands.add_parser("serve", help="serve a built-in agent, e.g. as an A2A agent")
    serve_agent.add_argument("name", help="a built-in agent, e.g. concession")
    serve_agent.add_argument("--transport", default="a2a", help="an installed transport that can serve agents")
    add_address_arguments(serve_agent, 9001)
    serve_agent.add_argument("--seed", type=int, default=0, help="the agent's seed")

    add_research_commands(sub)
    add_store_commands(sub)
    add_study_commands(sub)
    add_new_game_command(sub)
    add_train_command(sub)

    serve = sub.add_parser("serve", help="serve the arena over an installed transport")
    transports = serve.add_subparsers(dest="serve_transport", required=True, metavar="TRANSPORT")
    installed = registry.transports()
    for name, transport in sorted(installed.items()):
        transport.add_serve_arguments(serving := transports.add_parser(name, help=transport.summary))
        add_log_arguments(serving, inherited=True)
    for name in sorted(SHIPPED_TRANSPORTS.keys() - installed.keys()):
        # Accepts any options, so that `serve mcp --transport stdio` says what to install, not which option is unknown.
        transports.add_parser(name, add_help=False, help=f"not installed: {install_hint([name])}")
    return parser


def _version() -> str:
    try:
        return importlib.metadata.version(OWN_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed as a distribution)"


def cmd_games(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    games = [entry.summary() for entry in registry.games().values()]
    problems = registry.problems
    if args.json:
        print(json.dumps({"games": games, "problems": [dataclasses.asdict(p) for p in problems]}, indent=2))
    else:
        table = Table(Column("id", overflow="fold"), "title", "roles", Column("source", overflow="fold"))
        for game in games:
            roles = game["roles"]
            roles = ", ".join(roles) if isinstance(roles, list) else roles
            table.add_row(*map(shown, (game["id"], game["title"], roles, game["source"])))
        console.print(table)
    for problem in problems:
        print(f"plugin {problem.plugin!r} ({problem.source}) left out: {problem.reason}", file=sys.stderr)
    return 0


def cmd_rules(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    rules = asyncio.run(Arena(registry).get_game_rules(args.game, args.config))
    if args.json:
        print(json.dumps(rules["spec"], indent=2))
    else:
        print(rules["rules"])
    return 0


def cmd_agents(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    agents = [{"name": name, "description": agent_description(factory)} for name, factory in registry.agents().items()]
    agents.sort(key=lambda agent: agent["name"])
    if args.json:
        print(json.dumps({"agents": agents}, indent=2))
        return 0
    table = Table(Column("name", overflow="fold"), "description")
    for agent in agents:
        table.add_row(agent["name"], agent["description"])
    console.print(table)
    return 0


def cmd_play(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    from negotiation_platform.research.tournament import REMOTE_KINDS

    options = llm_agent_options(args)
    if options:  # refused before a match is started, like a tournament's
        known = [spec.partition(":")[0] for spec in args.agents if known_agent(registry, spec)]
        check_agent_options(registry, set(known) & REMOTE_KINDS, options)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    if args.human:
        return _play_human(args, registry, console, seed)
    if args.via is not None and args.store is not None:
        raise SystemExit("--store is for in-process play; a server keeps matches in its own store")
    if args.via is None:
        # One match per run: a stable match id keeps the output reproducible (unless it is stored with others).
        arena = Arena(registry) if args.store is not None else Arena(registry, new_match_id=lambda: "match-1")
        if args.store is not None:
            attach_store(arena, args.store, default_instance("play", os.getpid()))
        connect: AbstractAsyncContextManager[ArenaApi] = _in_process(arena)
    else:
        connect = _transport_for(registry, args.via).connect(args.via)
    columns = (SpinnerColumn(), TextColumn(f"playing {args.game}" + "{task.description}"), TimeElapsedColumn())
    with stderr_progress(*columns, transient=True) as bar:
        task = bar.add_task("")

        def follow(turn: Mapping[str, object]) -> None:
            bar.update(task, description=f", round {turn['round']} {turn.get('phase') or ''}".rstrip())

        result = asyncio.run(_play(connect, registry, args, seed, follow))
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        print_transcript(console, result, registry)
    lost = row_failures(result)
    marked = [MarkedMatch(key=f"{result['game']} seed {result['seed']}", seats=lost)] if lost else []
    # Told on stderr: stdout may be --json's one object.
    return tell_endpoint_failures(Console(stderr=True), marked, "its outcome says more about the endpoint")


def _play_human(args: argparse.Namespace, registry: Registry, console: Console, seed: int) -> int:
    from negotiation_platform.cli.human import play_with_human  # the web stack only when a person plays

    if args.via is not None or args.store is not None:
        raise SystemExit("--human plays in this process: it takes neither --via nor --store")
    arena = Arena(registry, new_match_id=lambda: "match-1")

    async def play() -> dict[str, Any]:
        try:
            return await play_with_human(
                arena,
                args.game,
                lambda seats: make_agents(
                    registry, args.agents, seats, seed, llm_agent_options(args), game=args.game, beside_yours=True
                ),
                config=args.config,
                seed=seed,
                open_browser=args.browser,
            )
        finally:
            await arena.close()

    result = asyncio.run(play())
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        game, players = shown(result["game_id"]), shown(result["players"])
        console.print(f"[bold]{game}[/] seed={shown(result['seed'])} players={players}")
        print_outcome(console, result)
    return 0


@asynccontextmanager
async def _in_process(arena: Arena) -> AsyncIterator[Arena]:
    try:
        yield arena
    finally:
        await arena.close()


def _transport_for(registry: Registry, via: str) -> Transport:
    for transport in registry.transports().values():
        if transport.connects_to(via):
            return cast(Transport, transport)
    installed = registry.transports().keys()
    hint = install_hint(SHIPPED_TRANSPORTS.keys() - installed)
    raise SystemExit(
        f"no installed transport handles --via {via!r} (installed: {sorted(installed)})" + (hint and f"; {hint}")
    )


async def _play(
    connect: AbstractAsyncContextManager[ArenaApi],
    registry: Registry,
    args: argparse.Namespace,
    seed: int,
    on_turn: Callable[[Mapping[str, Any]], None],
) -> dict[str, Any]:
    async with connect as api:
        rules = await api.get_game_rules(args.game, args.config)
        seats = rules["spec"]["roles"]["min_players"]
        agents = make_agents(registry, args.agents, seats, seed, llm_agent_options(args), game=args.game)
        result = await play_match(api, args.game, agents, config=args.config, seed=seed, on_turn=on_turn)
    lost = seat_failures(agents, seat_specs(args.agents, len(agents)))
    return {
        "game": result["game_id"],
        "seed": result["seed"],
        "config": result["config"],
        "players": result["players"],
        "agreement": result["agreement"],
        "terms": result["terms"],
        "payoffs": result["payoffs"],
        "winner": result["winner"],
        "rounds": result["rounds"],
        "events": result["events"],
        **({ENDPOINT_FAILURES: [failure.model_dump() for failure in lost]} if lost else {}),
    }


def cmd_simulate(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    try:
        from negotiation_platform.kernels.simulate import simulate
    except ImportError as exc:
        raise SystemExit(str(exc)) from None
    if args.batch < 1 or args.steps < 1:
        raise SystemExit("--batch and --steps must be positive")
    with stderr_progress(*Progress.get_default_columns(), transient=True) as bar:
        task = bar.add_task(f"simulating {args.game}", total=args.steps)
        report = simulate(
            registry,
            args.game,
            batch=args.batch,
            steps=args.steps,
            seed=args.seed,
            config=args.config,
            policy=args.policy,
            progress=lambda done: bar.update(task, completed=done),
            formulation=args.formulation,
        )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        formulation = f" ({report['formulation']} formulation)" if report["formulation"] else ""
        console.print(
            f"{report['game']}{formulation}: {report['env_steps']:,} env-steps "
            f"({report['batch']:,} matches x {report['steps']:,}), "
            f"{report['env_steps_per_second']:,.0f} env-steps/s after compilation "
            f"({report['first_chunk_seconds']:.2f} s in chunks that compiled), "
            f"{report['episodes_finished']:,} matches finished, "
            f"mean return {[round(x, 2) for x in report['mean_return_per_episode']]} "
            f"on {len(report['devices'])} device(s)"
        )
    return 0


def cmd_agent(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    transport = registry.transports().get(args.transport)
    if transport is None or not hasattr(transport, "serve_agent"):
        hint = "" if transport else install_hint([args.transport])
        raise SystemExit(f"no installed transport {args.transport!r} can serve agents" + (hint and f"; {hint}"))
    transport.serve_agent(make_agent(registry, args.name, args.seed, by=SeatedBy.OPERATOR), args.host, args.port)
    return 0


def cmd_serve(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    transport = registry.transports().get(args.serve_transport)
    if transport is None:
        raise SystemExit(
            f"the {args.serve_transport} transport is not installed: {install_hint([args.serve_transport])}"
        )
    transport.serve(registry, args)
    return 0


def make_agents(
    registry: Registry,
    specs: list[str],
    seats: int,
    seed: int,
    options: Mapping[str, object] | None = None,
    *,
    game: str = "the game",
    beside_yours: bool = False,
) -> list[Agent]:
    """One agent per seat (the last spec repeats), each seeded from the match seed and its seat; `options`
    go to the agents of remote kinds (an `llm` agent's endpoint, temperature...), as in a tournament.
    More specs than seats are refused, never cut (`beside_yours`: the seats left when a person plays one)."""
    from negotiation_platform.research.tournament import REMOTE_KINDS

    if len(specs) > seats:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"{game} has {seats} seat(s){' beside yours' if beside_yours else ''} but --agents names {len(specs)}: "
            f"name at most {seats} (the last one repeats to fill the seats).",
        )
    return [
        make_agent(
            registry,
            spec,
            random.Random(f"{seed}:{seat}").getrandbits(32),
            options if spec.partition(":")[0] in REMOTE_KINDS else None,
            by=SeatedBy.OPERATOR,
        )
        for seat, spec in enumerate(seat_specs(specs, seats))
    ]


def seat_specs(specs: list[str], seats: int) -> list[str]:
    """The agent spec of each seat: `--agents` in order, the last one repeated."""
    return (specs + [specs[-1]] * seats)[:seats]


COMMANDS: dict[str, Command] = {
    "games": cmd_games,
    "rules": cmd_rules,
    "agents": cmd_agents,
    "play": cmd_play,
    "serve": cmd_serve,
    "agent": cmd_agent,
    "simulate": cmd_simulate,
    "tournament": cmd_tournament,
    "report": cmd_report,
    "eval-social": cmd_eval_social,
    "train-llm": cmd_train_llm,
    "matches": cmd_matches,
    "export": cmd_export,
    "new-game": cmd_new_game,
    "study": cmd_study,
    "train": cmd_train,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure is one line on stderr and a non-zero exit, never a traceback.

    The line is plain text (`negotiation-platform COMMAND: what failed`), or with `--json` the JSON
    object `{"error": {"code": ..., "message": ...}}`. A refusal by the arena (its stable code) or a
    bad argument exits 2; anything else (an unreachable server, a port taken, a transport not
    installed: code `command_failed`) exits 1. Output whose reader left (`| head`) ends quietly with
    READER_LEFT_EXIT, the status of a Unix tool that SIGPIPE stopped.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    registry = Registry()
    parser = build_parser(registry)
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown and not _serving_a_missing_transport(args, registry):
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except UsageError as refused:
        _print_error(wants_json(argv), str(refused), refused.message, "invalid_argument")
        return 2
    configure_logging(args.log_level, args.log_format)
    port = getattr(args, "port", None)
    if isinstance(port, int) and not 1 <= port <= MAX_PORT:
        return _fail(args, 2, f"--port must be between 1 and {MAX_PORT}, got {port}", "invalid_argument")
    try:
        status = COMMANDS[args.command](args, registry, _stdout_console())
        sys.stdout.flush()  # inside the try: a reader that left shows here, not at the interpreter's exit
        return status
    except KeyboardInterrupt:
        return 130
    except SystemExit as exc:  # raised with a one-line reason by the commands and their option helpers
        if not isinstance(exc.code, str):
            raise
        return _fail(args, 1, exc.code)
    except CannotStart as exc:  # the serving helpers and the arena's store: what the command cannot start with
        return _fail(args, 1, str(exc))
    except Exception as exc:  # the one place that turns any failure into one line
        leaf = _innermost(exc)
        if isinstance(leaf, BrokenPipeError):
            return _reader_left()
        if isinstance(leaf, NegotiationError):
            return _fail(args, 2, leaf.message, leaf.code.value, leaf.details)
        reason = " ".join(str(leaf).split()) or "(no message)"
        via = getattr(args, "via", None)
        return _fail(args, 1, f"{type(leaf).__name__}: {reason}" + (f" (via {via})" if via else ""))


READER_LEFT_EXIT = 141
"""128 + SIGPIPE: what a shell reports for `yes | head -1`'s `yes` (so `set -o pipefail` treats both alike)."""


def _reader_left() -> int:
    """Stdout's reader closed the pipe: say nothing more, and point stdout at /dev/null so that the
    interpreter's last flush of what is still buffered fails silently too (Python's documented recipe)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return READER_LEFT_EXIT


MAX_PORT = 65_535
UNBOUNDED_WIDTH = 10_000


def _serving_a_missing_transport(args: argparse.Namespace, registry: Registry) -> bool:
    return args.command == "serve" and args.serve_transport not in registry.transports()


def _stdout_console() -> Console:
    """The terminal's width on a terminal; on a pipe or a file, as wide as each table needs, so no id is cut."""
    console = _StdoutConsole()
    return console if console.is_terminal else _StdoutConsole(width=UNBOUNDED_WIDTH)


class _StdoutConsole(Console):
    def on_broken_pipe(self) -> None:
        """Leave ending to `main`, as for `print` (rich would exit with status 1)."""
        self.quiet = True
        raise BrokenPipeError


def _fail(
    args: argparse.Namespace,
    status: int,
    message: str,
    code: str = "command_failed",
    details: Mapping[str, object] | None = None,
) -> int:
    """Print one line on stderr: the structured error with `--json` or `--log-format json` (where every
    line on stderr is JSON), else the message; return `status`."""
    text = f"negotiation-platform {args.command}: {message}"
    as_json = getattr(args, "json", False) or getattr(args, "log_format", None) == "json"
    _print_error(as_json, text, message, code, details)
    return status


def _print_error(
    as_json: bool, text: str, message: str, code: str, details: Mapping[str, object] | None = None
) -> None:
    """One line on stderr: `{"error": {code, message, details}}` when `as_json`, else `text` made safe for a
    terminal; a password in either (a store URL's) masked."""
    if as_json:
        error: dict[str, Any] = {"code": code, "message": masked(message)}
        if details:
            error["details"] = details
        print(json.dumps({"error": error}), file=sys.stderr)
    else:
        print(terminal_safe(masked(text)), file=sys.stderr)


def _innermost(exc: BaseException) -> BaseException:
    """The first leaf of nested exception groups (task groups wrap a connection's failure)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


if __name__ == "__main__":
    sys.exit(main())
