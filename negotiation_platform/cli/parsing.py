"""Argument parsing shared by every subcommand: help that shows defaults, usage errors in one line."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from pydantic import JsonValue


class DefaultsShown(argparse.ArgumentDefaultsHelpFormatter):
    """Appends "(default: X)" to an option's help, except where there is no default worth reading (a flag's
    help says what giving it does: "--no-browser ... (default: True)" read as the opposite)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default == [] or action.nargs == 0:
            return action.help
        return super()._get_help_string(action)


class CliParser(argparse.ArgumentParser):
    """The parser of the command and, through `add_subparsers`, of every subcommand."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsShown)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Raise the usage error for the command to print in one line (argparse would print the whole usage
        first): as text, or as the JSON error when the command line asked for `--json`."""
        raise UsageError(self.prog, f"{message} (see {self.prog} --help)")


if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[CliParser]  # noqa: SLF001 (argparse gives this type no public name)
    """What `add_subparsers()` returns: the CLI's commands are added to it."""


class UsageError(Exception):
    """A command line the parser refused: `prog` is the (sub)command, `message` what was wrong (exit status 2)."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(f"{prog}: {message}")
        self.prog = prog
        self.message = message


def wants_json(argv: Sequence[str]) -> bool:
    """Whether a command line asked for `--json` (before any `--`), even one the parser refuses."""
    options = list(argv)[: list(argv).index("--")] if "--" in argv else argv
    return "--json" in options


def add_store_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """`--store PATH|URL`, left out by default (each command says what it then uses)."""
    parser.add_argument("--store", default=None, metavar="PATH|URL", help=help)


def json_object(text: str) -> dict[str, JsonValue]:
    """An argument that must be a JSON object, e.g. `--config '{"rounds": 4}'`."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value
