"""`matches` and `export`: reading the match store from the command line (no server needed)."""

from __future__ import annotations

import argparse
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from negotiation_platform.cli.parsing import add_store_argument
from negotiation_platform.cli.transcript import shown
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.store import MEMORY, STATUSES, STORE_ENV, MatchQuery, default_location, masked, open_store

if TYPE_CHECKING:
    from negotiation_platform.cli.parsing import Subcommands

if TYPE_CHECKING:
    from negotiation_platform.store.sql import SqlStore


def add_store_option(parser: argparse.ArgumentParser, purpose: str) -> None:
    add_store_argument(parser, f"{purpose}: an SQLite file or a postgresql:// URL")


def add_store_commands(sub: Subcommands) -> None:
    matches = sub.add_parser("matches", help="list the matches of a store, newest first")
    add_store_option(matches, f"the store to read (default: $NEGOTIATION_STORE, else {masked(default_location())})")
    matches.add_argument("--game", default=None, help="only this game")
    matches.add_argument("--status", choices=STATUSES, default=None, help="only matches in this status")
    matches.add_argument("--limit", type=int, default=100, help="at most this many (newest first)")
    matches.add_argument("--json", action="store_true", help="one JSON object per line, seeds of running ones left out")

    export = sub.add_parser("export", help="write the store's finished matches for analysis (.jsonl or .parquet)")
    add_store_option(export, f"the store to read (default: $NEGOTIATION_STORE, else {masked(default_location())})")
    export.add_argument("--out", required=True, type=Path, help="results.jsonl, or results.parquet (needs pyarrow)")
    export.add_argument("--game", default=None, help="only this game")
    export.add_argument("--events", action="store_true", help="add each match's event log")


def open_existing(location: str | None) -> SqlStore:
    """The store to read; refuses `:memory:` and an SQLite file that does not exist (reading creates nothing):
    bad arguments, so `invalid_argument` (exit 2), saying where the path came from."""
    where = location or default_location()
    if where == MEMORY:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "--store :memory: keeps nothing to read")
    if "://" not in where and not where.startswith("sqlite:") and not Path(where).expanduser().exists():
        if location is not None:
            origin = "check --store"
        elif os.environ.get(STORE_ENV, "").strip():
            origin = f"from ${STORE_ENV}; check it, or pass --store"
        else:
            origin = f"the default; pass --store, or set ${STORE_ENV}"
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"no store at {where} ({origin}; a store is made by `serve ... --store {where}` or `play --store {where}`)",
        )
    store = open_store(where)
    assert store is not None
    return store


def cmd_matches(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    store = open_existing(args.store)
    try:
        page = store.list_matches(MatchQuery(status=args.status, game_id=args.game, limit=max(1, args.limit)))
    finally:
        store.close()
    if args.json:
        for record in page.matches:
            print(json.dumps(record.public()))
        return 0
    table = Table("match", "game", "status", "players", "round", "created (UTC)", "payoffs")
    for record in page.matches:
        payoffs = (record.result or {}).get("payoffs") or {}
        table.add_row(  # a shared store holds what other processes wrote: shown literally
            *map(
                shown,
                (
                    record.match_id,
                    record.game_id,
                    record.status,
                    ", ".join(record.players),
                    record.round,
                    datetime.fromtimestamp(record.created_at, UTC).strftime("%Y-%m-%d %H:%M:%S"),
                    ", ".join(f"{agent} {value:g}" for agent, value in payoffs.items()),
                ),
            )
        )
    console.print(table)
    if page.next_cursor is not None:
        console.print(f"[dim]newest {len(page.matches)} shown; --limit shows more[/]")
    return 0


def cmd_export(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    from negotiation_platform.store.export import FORMATS, rows, write

    if args.out.suffix not in FORMATS:  # before the store is opened: a bad argument changes nothing
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"--out must end in {' or '.join(FORMATS)}, got {args.out.name!r}"
        )
    store = open_existing(args.store)
    try:
        count = write(args.out, rows(store, args.game, events=args.events))
    except ValueError as refused:
        raise SystemExit(str(refused)) from None
    finally:
        store.close()
    Console(stderr=True).print(f"{count} finished match(es) written to {args.out}")
    return 0
