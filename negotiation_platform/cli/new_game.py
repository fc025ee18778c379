"""`negotiation-platform new-game NAME [--dir D]`: scaffold a game package that passes its own tests."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from negotiation_platform.kit import ScaffoldRefused, scaffold_game
from negotiation_platform.registry import Registry

if TYPE_CHECKING:
    from negotiation_platform.cli.parsing import Subcommands


def add_new_game_command(sub: Subcommands) -> None:
    new_game = sub.add_parser("new-game", help="write a new game package, ready to install and test")
    new_game.add_argument("name", help="the game id and package name, a lowercase identifier such as my_game")
    new_game.add_argument("--dir", type=Path, default=Path("."), help="where to create the package's directory")


def cmd_new_game(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    try:
        if args.name in registry.games():
            raise ScaffoldRefused(f"a game {args.name!r} is already installed; pick another name")
        root = scaffold_game(args.name, args.dir)
    except ScaffoldRefused as refusal:
        print(f"negotiation-platform new-game: {refusal}", file=sys.stderr)
        return 2
    print(f"created {root}")
    print(f"next: cd {root} && pip install -e '.[test]' && pytest && negotiation-platform play {args.name}")
    return 0
