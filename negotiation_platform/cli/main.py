"""`negotiation-platform`: one command line over the registry, the arena and the agents."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any, cast

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from negotiation_platform.agents.base import Agent
from negotiation_platform.agents.catalog import make_agent
from negotiation_platform.agents.driver import play_match
from negotiation_platform.arena import Arena, ArenaApi
from negotiation_platform.cli.new_game import add_new_game_command, cmd_new_game
from negotiation_platform.cli.research import add_research_commands, cmd_report, cmd_tournament
from negotiation_platform.errors import NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.transports import Transport

Command = Callable[[argparse.Namespace, Registry, Console], int]


def build_parser(registry: Registry) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="negotiation-platform", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    games = sub.add_parser("games", help="list the installed games")
    games.add_argument("--json", action="store_true")

    rules = sub.add_parser("rules", help="show a game's rules (or its spec as JSON)")
    rules.add_argument("game")
    rules.add_argument("--config", type=_json_object, default=None, help="config as a JSON object")
    rules.add_argument("--json", action="store_true")

    sub.add_parser("agents", help="list the built-in agents")

    play = sub.add_parser("play", help="play a match between built-in agents")
    play.add_argument("game")
    play.add_argument(
        "--agents",
        nargs="+",
        default=["concession"],
        help="one per seat, the last repeats: a built-in name, or a2a:URL for a remote A2A agent",
    )
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--config", type=_json_object, default=None, help="config as a JSON object")
    play.add_argument("--json", action="store_true", help="print one JSON object")
    play.add_argument(
        "--via", default=None, help="play through a transport: 'mcp' (spawns a stdio server) or a server's URL"
    )

    simulate = sub.add_parser("simulate", help="run many matches at once with the game's JAX kernel")
    simulate.add_argument("game")
    simulate.add_argument("--batch", type=int, default=4096, help="matches stepped together")
    simulate.add_argument("--steps", type=int, default=1000, help="env-steps per match (finished matches restart)")
    simulate.add_argument(
        "--policy",
        default="random",
        help="'random' (uniform legal actions) or module:function naming a jittable policy(key, obs, state) -> actions",
    )
    simulate.add_argument("--seed", type=int, default=0)
    simulate.add_argument("--config", type=_json_object, default=None, help="config as a JSON object")
    simulate.add_argument("--json", action="store_true")

    agent = sub.add_parser("agent", help="serve a built-in agent to play in remote matches")
    agent_commands = agent.add_subparsers(dest="agent_command", required=True)
    serve_agent = agent_commands.add_parser("serve", help="serve a built-in agent, e.g. as an A2A agent")
    serve_agent.add_argument("name", help="a built-in agent, e.g. concession")
    serve_agent.add_argument("--transport", default="a2a", help="an installed transport that can serve agents")
    serve_agent.add_argument("--host", default="127.0.0.1")
    serve_agent.add_argument("--port", type=int, default=9001)
    serve_agent.add_argument("--seed", type=int, default=0)

    add_research_commands(sub)
    add_new_game_command(sub)

    serve = sub.add_parser("serve", help="serve the arena over an installed transport")
    transports = serve.add_subparsers(dest="serve_transport", required=True)
    for name, transport in sorted(registry.transports().items()):
        transport.add_serve_arguments(transports.add_parser(name, help=transport.summary))
    return parser


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def cmd_games(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    games = [entry.summary() for entry in registry.games().values()]
    if args.json:
        print(json.dumps({"games": games}, indent=2))
    else:
        table = Table("id", "title", "roles", "source")
        for game in games:
            roles = game["roles"]
            table.add_row(
                game["id"], game["title"], ", ".join(roles) if isinstance(roles, list) else roles, game["source"]
            )
        console.print(table)
    for problem in registry.problems:
        console.print(
            f"[yellow]plugin {problem.plugin!r} ({problem.source}) left out: {problem.reason}[/]", soft_wrap=True
        )
    return 0


def cmd_rules(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    rules = asyncio.run(Arena(registry).get_game_rules(args.game, args.config))
    if args.json:
        print(json.dumps(rules["spec"], indent=2))
    else:
        print(rules["rules"])
    return 0


def cmd_agents(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    table = Table("name", "description")
    for name, factory in sorted(registry.agents().items()):
        table.add_row(name, (factory.__doc__ or "").strip().splitlines()[0] if factory.__doc__ else "")
    console.print(table)
    return 0


def cmd_play(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    if args.via is None:
        # One match per run: a stable match id keeps the output reproducible.
        connect: AbstractAsyncContextManager[ArenaApi] = nullcontext(Arena(registry, new_match_id=lambda: "match-1"))
    else:
        connect = _transport_for(registry, args.via).connect(args.via)
    result = asyncio.run(_play(connect, registry, args, seed))
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        print_transcript(console, result)
    return 0


def _transport_for(registry: Registry, via: str) -> Transport:
    for transport in registry.transports().values():
        if transport.connects_to(via):
            return cast(Transport, transport)
    raise SystemExit(f"no installed transport handles --via {via!r}; installed: {sorted(registry.transports())}")


async def _play(
    connect: AbstractAsyncContextManager[ArenaApi], registry: Registry, args: argparse.Namespace, seed: int
) -> dict[str, Any]:
    async with connect as api:
        rules = await api.get_game_rules(args.game, args.config)
        agents = make_agents(registry, args.agents, rules["spec"]["roles"]["min_players"], seed)
        result = await play_match(api, args.game, agents, config=args.config, seed=seed)
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
    }


def cmd_simulate(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    try:
        from negotiation_platform.kernels.simulate import simulate
    except ImportError as exc:
        raise SystemExit(str(exc)) from None
    if args.batch < 1 or args.steps < 1:
        raise SystemExit("--batch and --steps must be positive")
    with Progress(console=Console(stderr=True), transient=True, disable=args.json) as bar:
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
        )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        console.print(
            f"{report['game']}: {report['env_steps']:,} env-steps ({report['batch']:,} matches x {report['steps']:,}), "
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
        raise SystemExit(f"no installed transport {args.transport!r} can serve agents")
    transport.serve_agent(make_agent(registry, args.name, args.seed), args.host, args.port)
    return 0


def cmd_serve(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    registry.transports()[args.serve_transport].serve(Arena(registry), args)
    return 0


def make_agents(registry: Registry, specs: list[str], seats: int, seed: int) -> list[Agent]:
    """One agent per seat (the last spec repeats), each seeded from the match seed and its seat."""
    specs = (specs + [specs[-1]] * seats)[:seats]
    return [
        make_agent(registry, spec, random.Random(f"{seed}:{seat}").getrandbits(32)) for seat, spec in enumerate(specs)
    ]


def print_transcript(console: Console, result: dict[str, Any]) -> None:
    console.print(f"[bold]{result['game']}[/] seed={result['seed']} players={result['players']}")
    for event in result["events"]:
        console.print(_event_line(event), soft_wrap=True)
    table = Table("agent", "payoff")
    for agent, payoff in result["payoffs"].items():
        table.add_row(agent, f"{payoff:g}")
    console.print(table)
    console.print(
        f"agreement: {result['agreement']}  terms: {result['terms']}  "
        f"winner: {result['winner']}  rounds: {result['rounds']}"
    )


def _event_line(event: dict[str, Any]) -> str:
    kind, data, actor = event["kind"], event["data"], event["actor"]
    where = f"[dim]#{event['seq']:>3} r{event['round']} {event['phase'] or '-'}[/]"
    if kind == "message":
        to = "everyone" if data["to"] is None else ", ".join(data["to"])
        return f"{where} {actor} → {to}: {data['content']}"
    if kind == "action":
        late = " (timed out)" if data.get("timed_out") else ""
        return f"{where} {actor} {data['action_type']} {json.dumps(data['payload'])}{late}"
    if kind == "match_ended":
        return f"{where} match ended"
    return f"{where} {kind} {json.dumps(data) if data else ''}".rstrip()


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
    "new-game": cmd_new_game,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure is one line on stderr and a non-zero exit, never a traceback.

    A refusal by the arena prints its structured error as one JSON line (exit 2); a bad argument
    exits 2 too; anything else (an unreachable server, a port taken) prints what failed (exit 1).
    """
    registry = Registry()
    args = build_parser(registry).parse_args(argv)
    console = Console(stderr=False)
    port = getattr(args, "port", None)
    if isinstance(port, int) and not 1 <= port <= MAX_PORT:
        return _fail(args, f"--port must be between 1 and {MAX_PORT}, got {port}", 2)
    try:
        return COMMANDS[args.command](args, registry, console)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the one place that turns any failure into one line
        leaf = _innermost(exc)
        if isinstance(leaf, NegotiationError):
            print(json.dumps(leaf.to_dict()), file=sys.stderr)
            return 2
        reason = " ".join(str(leaf).split()) or "(no message)"
        via = getattr(args, "via", None)
        return _fail(args, f"{type(leaf).__name__}: {reason}" + (f" (via {via})" if via else ""), 1)


MAX_PORT = 65_535


def _fail(args: argparse.Namespace, reason: str, code: int) -> int:
    print(f"negotiation-platform {args.command}: {reason}", file=sys.stderr)
    return code


def _innermost(exc: BaseException) -> BaseException:
    """The first leaf of nested exception groups (task groups wrap a connection's failure)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


if __name__ == "__main__":
    sys.exit(main())
