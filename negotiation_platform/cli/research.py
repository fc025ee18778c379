"""The research subcommands: `tournament` (play a round-robin into a folder) and `report` (analyse it)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from negotiation_platform.cli.parsing import json_object
from negotiation_platform.registry import Registry


def add_research_commands(sub: Any) -> None:
    """Add `tournament` and `report` to the CLI's subcommands."""
    tournament = sub.add_parser("tournament", help="play every agent against every other over seats and seeds")
    tournament.add_argument("--games", nargs="+", required=True, help="game ids, as `games` lists them")
    tournament.add_argument("--agents", nargs="+", required=True, help="agent specs, e.g. concession or llm:MODEL")
    tournament.add_argument("--seeds", type=int, default=1, help="matches per line-up (seeds 0..N-1)")
    tournament.add_argument("--swap-roles", action="store_true", help="every agent plays every seat")
    tournament.add_argument("--workers", type=int, default=1, help="processes for scripted matches; remote concurrency")
    tournament.add_argument("--out", default="tournament", help="folder for matches.jsonl (re-runs resume)")
    tournament.add_argument(
        "--config", action="append", default=[], type=_game_config, help="GAME=JSON config for one game (repeatable)"
    )
    tournament.add_argument(
        "--agent-config", type=json_object, default=None, help="options for llm/remote agents as a JSON object"
    )
    report = sub.add_parser("report", help="write report.md, report.html and figures for a tournament folder")
    report.add_argument("dir", help="a folder written by `tournament`")
    report.add_argument("--samples", type=int, default=200, help="bootstrap resamples for rating intervals")


def _game_config(text: str) -> tuple[str, dict[str, Any]]:
    game, sep, config = text.partition("=")
    if not sep or not game:
        raise argparse.ArgumentTypeError("expected GAME=JSON")
    return game, json_object(config)


def cmd_tournament(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    from negotiation_platform.tournament import run_tournament

    agreed = new = 0
    columns = (
        TextColumn("[bold]tournament"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[agreements]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    bar = Progress(*columns, console=Console(stderr=True))
    task = bar.add_task("matches", total=None, agreements="")

    def scheduled(total: int, to_play: int) -> None:
        # Started only once the schedule is valid, so a refused tournament prints just its error.
        bar.start()
        bar.update(task, total=to_play, agreements=f"{total - to_play} of {total} done before")

    def landed(row: dict[str, Any]) -> None:
        nonlocal agreed, new
        new += 1
        agreed += bool(row["agreement"])
        bar.update(task, advance=1, agreements=f"agreements {agreed}/{new}")

    try:
        rows = run_tournament(
            args.games,
            args.agents,
            seeds=args.seeds,
            swap_roles=args.swap_roles,
            workers=args.workers,
            out=args.out,
            configs=dict(args.config),
            agent_options=args.agent_config,
            registry=registry,
            on_schedule=scheduled,
            progress=landed,
        )
    finally:
        if bar.live.is_started:  # stopping a bar never started still prints an empty line
            bar.stop()
    share = sum(r["agreement"] for r in rows) / len(rows) if rows else 0.0
    console.print(
        f"{len(rows)} matches ({new} new), {share:.0%} agreements → {Path(args.out) / 'matches.jsonl'}", soft_wrap=True
    )
    return 0


def cmd_report(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    try:
        from negotiation_platform.report import write_report
    except ImportError as exc:
        raise SystemExit(
            f"report needs matplotlib and scipy: pip install 'negotiation-platform[report]' ({exc})"
        ) from None
    written = write_report(args.dir, samples=args.samples, registry=registry)
    console.print(f"wrote {len(written)} files: " + ", ".join(str(path) for path in written[:3]) + ", figures/…")
    return 0
