"""`negotiation-platform train GAME --algo ippo`: train a policy on a game's kernel and write DIR's files."""

from __future__ import annotations

import argparse
import json
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from rich.console import Console

from negotiation_platform.cli.parsing import json_object
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry

if TYPE_CHECKING:
    from negotiation_platform.cli.parsing import Subcommands
    from negotiation_platform.research.rows import Interval
    from negotiation_platform.training.artifacts import TrainSummary
    from negotiation_platform.training.ippo import TrainConfig


class TableResult(TypedDict):
    """DIR/table.json: the trained team and the scripted team at the engine's table, over the same seeds."""

    seeds: int
    scripted_agent: str
    policy: Interval
    scripted: Interval


def add_train_command(sub: Subcommands) -> None:
    train = sub.add_parser("train", help="train a policy for every seat on a game's JAX kernel (the `rl` extra)")
    train.add_argument("game", help="a game with a JAX kernel")
    train.add_argument(
        "--algo", choices=["ippo"], default="ippo", help="independent PPO, one policy shared by all seats"
    )
    train.add_argument("--total-steps", type=int, default=200_000, help="env-steps over the whole run")
    train.add_argument("--num-envs", type=int, default=64, help="matches stepped together")
    train.add_argument("--num-steps", type=int, default=16, help="env-steps per match between updates")
    train.add_argument("--lr", type=float, default=3e-3, help="Adam's learning rate")
    train.add_argument("--ent-coef", type=float, default=0.01, help="weight of the entropy bonus (exploration)")
    train.add_argument(
        "--team-reward",
        type=float,
        default=0.0,
        help="weight of the seats' mean reward in each seat's training reward (0: its own, 1: the team's)",
    )
    train.add_argument(
        "--shaping",
        type=float,
        default=0.0,
        help="weight of potential-based shaping from the kernel's shaping_potential (0: off; AdaSociety: "
        "crafted items on the ground)",
    )
    train.add_argument("--hidden", type=int, nargs="+", default=[64, 64], help="widths of the network's layers")
    train.add_argument("--seed", type=int, default=0, help="seed of the run (same seed, same run on one device)")
    train.add_argument("--config", type=json_object, default=None, help="game config as a JSON object")
    train.add_argument("--out", type=Path, default=None, help="where to write the run's files (default: runs/GAME)")
    train.add_argument(
        "--scripted", default="concession", help="the scripted agent measured in every seat as a baseline"
    )
    train.add_argument(
        "--scripted-matches", type=int, default=50, help="engine matches for the scripted baseline (0: skip it)"
    )
    train.add_argument(
        "--table-seeds",
        type=int,
        default=0,
        help="after training, play this many engine matches (seeds 0..N-1) with the policy in every seat and "
        "as many with --scripted in every seat, and write each team's mean per seat with its 95%% bootstrap "
        "interval to DIR/table.json (0: skip)",
    )
    train.add_argument(
        "--fast-compile",
        action="store_true",
        help="compile without XLA's optimizations: starts sooner, steps slower (short runs, tests)",
    )
    train.add_argument(
        "--devices",
        type=int,
        default=1,
        help="split the matches over this many devices of each process, parameters replicated and gradients "
        "averaged across them (the same run as on 1 device up to float rounding); --num-envs must divide evenly "
        "over all devices; on a CPU, start with XLA_FLAGS=--xla_force_host_platform_device_count=N",
    )
    train.add_argument(
        "--coordinator",
        metavar="HOST:PORT",
        default=None,
        help="join a run over several processes or hosts (jax.distributed): process 0's address, the same "
        "for every process; the mesh then spans every process's devices and only process 0 writes files",
    )
    train.add_argument(
        "--num-processes", type=int, default=1, help="with --coordinator: how many processes join the run"
    )
    train.add_argument(
        "--process-id", type=int, default=0, help="with --coordinator: this process's number, 0..num-processes-1"
    )
    train.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def cmd_train(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    try:
        from negotiation_platform.training.devices import Hosts, join, native_stdout_to_stderr
    except ImportError as exc:
        raise SystemExit(f"train needs the rl extra (pip install 'negotiation-platform[rl]'): {exc}") from None
    if args.table_seeds < 0:
        raise SystemExit("--table-seeds must be 0 or more")
    if min(args.total_steps, args.num_envs, args.num_steps, *args.hidden) < 1:
        raise SystemExit("--total-steps, --num-envs, --num-steps and --hidden must be positive")
    if not args.coordinator and (args.num_processes, args.process_id) != (1, 0):
        raise SystemExit("--num-processes and --process-id need --coordinator HOST:PORT")
    hosts = Hosts(args.coordinator, args.num_processes, args.process_id) if args.coordinator else None
    if hosts:  # before the trainer's imports: importing jaxmarl (the JaxMARL base) already starts a backend
        with native_stdout_to_stderr():
            join(hosts)
    from negotiation_platform.training.ippo import TrainConfig

    train_config = TrainConfig(
        total_steps=args.total_steps,
        num_envs=args.num_envs,
        num_steps=args.num_steps,
        lr=args.lr,
        ent_coef=args.ent_coef,
        team_reward=args.team_reward,
        shaping=args.shaping,
        hidden=tuple(args.hidden),
    )
    with native_stdout_to_stderr() if hosts else nullcontext():
        summary, out = _run(args, registry, train_config)
    table = _table(args, registry, out) if args.table_seeds and args.process_id == 0 else None
    if args.json:
        print(json.dumps(summary | ({"table": table} if table else {}), indent=2, sort_keys=True))
    else:
        _print_summary(console, summary, out if args.process_id == 0 else None)
        if table:
            _print_table(console, table)
    return 0


def _table(args: argparse.Namespace, registry: Registry, out: Path) -> TableResult:
    """The trained policy and the scripted agent, each in every seat, over the same `--table-seeds` engine
    matches: each team's mean payoff per seat with its 95% bootstrap interval; also DIR/table.json."""
    from negotiation_platform.research.analysis.intervals import mean_interval
    from negotiation_platform.training.run import team_payoffs

    def team(agent: str) -> Interval:
        interval = mean_interval(team_payoffs(registry, args.game, agent, args.table_seeds, args.config or {}, 0))
        if interval is None:
            raise SystemExit("--table-seeds played no match")
        return interval

    table: TableResult = {
        "seeds": args.table_seeds,
        "scripted_agent": args.scripted,
        "policy": team(f"policy:{out}"),
        "scripted": team(args.scripted),
    }
    (out / "table.json").write_text(json.dumps(table, indent=2, sort_keys=True) + "\n")
    return table


def _print_table(console: Console, table: TableResult) -> None:
    console.print(f"  at the table, {table['seeds']} engine matches, mean per seat [95% interval]:")
    for name, value in (("policy", table["policy"]), (table["scripted_agent"], table["scripted"])):
        low, high = (f"{bound:.3f}" if bound is not None else "-" for bound in (value["low"], value["high"]))
        console.print(f"    {name:<8} {value['mean']:.3f} [{low}, {high}]")


def _run(args: argparse.Namespace, registry: Registry, train_config: TrainConfig) -> tuple[TrainSummary, Path]:
    """Baselines and training, the processes already joined; (summary, DIR)."""
    from negotiation_platform.kernels.marl import make
    from negotiation_platform.training.devices import training_mesh, writes_files
    from negotiation_platform.training.run import scripted_return, train

    mesh = training_mesh(args.devices, args.num_envs)
    config = args.config or {}
    env = make(args.game, registry=registry, **config)
    if env.num_agents * args.num_envs % train_config.minibatches:
        raise SystemExit(f"--num-envs × seats must split into {train_config.minibatches} minibatches")
    if (args.scripted_matches > 0 or args.table_seeds > 0) and args.scripted not in registry.agents():
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"Unknown scripted agent {args.scripted!r}.")
    scripted = None
    if args.scripted_matches > 0 and writes_files():  # engine matches, measured once per run
        value = scripted_return(registry, args.game, args.scripted, args.scripted_matches, config, args.seed)
        scripted = (args.scripted, value)
    out = args.out or Path("runs") / args.game
    summary = train(
        env,
        config,
        train_config,
        seed=args.seed,
        out=out,
        scripted=scripted,
        fast_compile=args.fast_compile,
        mesh=mesh,
    )
    return summary, out


def _print_summary(console: Console, summary: TrainSummary, out: Path | None) -> None:
    """`out`: where this process wrote the files, None where another process writes them."""
    console.print(
        f"[bold]{summary['game']}[/] ippo, {summary['env_steps']:,} env-steps on {summary['devices']} × "
        f"{summary['device']} ({summary['processes']} process(es))"
    )
    console.print(f"  random   {summary['random_return']:.3f}")
    if summary["scripted_return"] is not None:
        console.print(f"  {summary['scripted']:<8} {summary['scripted_return']:.3f} (engine matches)")
    console.print(f"  trained  {summary['final_return']:.3f}")
    console.print(
        f"  {summary['env_steps_per_second']:,.0f} env-steps/s (compiling took {summary['compile_seconds']:.1f} s)"
    )
    if out:
        console.print(f"  wrote {out}/curve.csv, summary.json, curve.png, policy.json, params.msgpack")
    else:
        console.print("  process 0 writes the run's files")
