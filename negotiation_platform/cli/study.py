"""`study create` and `study export`: running a human-AI negotiation study from the command line.

The logic is in `negotiation_platform.research.study`; here are the options, the files and the store.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from rich.console import Console

from negotiation_platform.arena import Arena
from negotiation_platform.arena.persistence import ReadOnlyPersistence, attach_store, default_instance
from negotiation_platform.cli.parsing import json_object
from negotiation_platform.cli.store_commands import open_existing
from negotiation_platform.registry import Registry
from negotiation_platform.research.study import (
    StudyLink,
    checked_participants,
    create_study,
    export_study,
    participant_ids,
    read_links,
    write_links,
)
from negotiation_platform.store import masked

if TYPE_CHECKING:
    from negotiation_platform.cli.parsing import Subcommands

DEFAULT_BASE_URL = "http://127.0.0.1:8000"


def add_study_commands(sub: Subcommands) -> None:
    study = sub.add_parser("study", help="run a human-AI negotiation study: matches with a seat link per participant")
    commands = study.add_subparsers(dest="study_command", required=True, metavar="COMMAND")

    create = commands.add_parser(
        "create", help="start one match per participant in a store, the other seats played by the opponents"
    )
    create.add_argument("--game", required=True, help="a game id, as `games` lists them")
    create.add_argument(
        "--opponents",
        nargs="+",
        required=True,
        metavar="SPEC",
        help="one per seat after the participant's, the last repeats: a built-in name, llm:MODEL, mcp-llm:MODEL, "
        "policy:DIR or a2a:URL (played by the server that serves the study, with its model endpoint)",
    )
    who = create.add_mutually_exclusive_group(required=True)
    who.add_argument("--participants", type=int, metavar="N", help="how many participants (ids P001, P002, ...)")
    who.add_argument(
        "--participants-file", type=Path, metavar="FILE", help="the participant ids, one per line (one match each)"
    )
    create.add_argument(
        "--store",
        required=True,
        metavar="PATH|URL",
        help="the store the study's server will serve (SQLite or PostgreSQL)",
    )
    create.add_argument(
        "--base-url",
        default=DEFAULT_BASE_URL,
        help="where the study will be served, the start of every link",
    )
    create.add_argument(
        "--seed", type=int, default=None, help="draw every match's seed from this one (random if left out)"
    )
    create.add_argument("--config", type=json_object, default=None, help="the game's config as a JSON object")
    create.add_argument(
        "--out",
        type=Path,
        default=Path("links.csv"),
        help="the links CSV to write (never overwritten)",
    )

    export = commands.add_parser("export", help="write each participant's transcript and outcome as JSONL (no tokens)")
    export.add_argument("--store", required=True, metavar="PATH|URL", help="the study's store")
    export.add_argument("--links", required=True, type=Path, help="the links CSV `study create` wrote")
    export.add_argument("--out", required=True, type=Path, help="the JSONL file to write, one participant a line")


def cmd_study(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    if args.study_command == "create":
        return _create(args, registry)
    return _export(args, registry)


def _create(args: argparse.Namespace, registry: Registry) -> int:
    if args.participants_file is not None:
        try:
            participants = checked_participants(args.participants_file.read_text(encoding="utf-8").splitlines())
        except (OSError, UnicodeDecodeError) as failure:
            raise SystemExit(f"cannot read --participants-file {args.participants_file}: {failure}") from None
    else:
        participants = participant_ids(args.participants)
    try:  # opened first: links that could not be written would be seats nobody can reach
        out = args.out.open("x", newline="", encoding="utf-8")
    except FileExistsError:
        raise SystemExit(f"{args.out} exists: it may hold the links of another study (pick another --out)") from None
    except OSError as failure:
        raise SystemExit(f"cannot write --out {args.out}: {failure.strerror or failure}") from None
    with out:
        try:
            links = asyncio.run(_create_matches(args, registry, participants))
        except BaseException:
            out.close()
            args.out.unlink()
            raise
        write_links(links, out)
    port = urlsplit(args.base_url).port or 8000
    remote = "".join(
        f" --allow-remote-agent {spec[4:]}" for spec in dict.fromkeys(args.opponents) if spec.startswith("a2a:")
    )
    store = masked(args.store)
    print(
        f"{len(links)} match(es) of {args.game} in {store}; their links are in {args.out} (a link plays its "
        f"seat: send each participant only their own). Serve them with:\n  negotiation-platform serve mcp "
        f"--transport http --port {port} --store {store} --turn-timeout 86400{remote}",
        file=sys.stderr,
    )
    return 0


async def _create_matches(args: argparse.Namespace, registry: Registry, participants: list[str]) -> list[StudyLink]:
    arena = Arena(registry)
    attach_store(arena, args.store, default_instance("study", os.getpid()))
    try:
        return await create_study(
            arena, args.game, args.opponents, participants, args.base_url, seed=args.seed, config=args.config
        )
    finally:
        await arena.close()  # gives up the matches' leases: the study's server takes them at once


def _export(args: argparse.Namespace, registry: Registry) -> int:
    links = read_links(args.links)
    arena = Arena(registry)
    arena.use_store(ReadOnlyPersistence(open_existing(args.store), default_instance("study-export", os.getpid())))
    records = asyncio.run(export_study(arena, links))
    with args.out.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, sort_keys=True) + "\n")
    finished = sum(record["status"] == "finished" for record in records)
    print(f"{len(records)} participant(s) written to {args.out}, {finished} match(es) finished", file=sys.stderr)
    return 0
