"""The CLI reference, generated from the `negotiation-platform` argparse parser.

Used as an MkDocs hook (see mkdocs.yml): it replaces the marker line in docs/cli.md with the
`--help` text of every command and subcommand, so the reference can never drift from the parser.
Run it directly (`python scripts/cli_reference.py`) to print the same Markdown.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from typing import Any

MARKER = "<!-- cli-reference -->"
HELP_WIDTH = "100"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands of `parser` by name, in the order they were added."""
    for action in parser._actions:  # noqa: SLF001 (argparse lists a parser's arguments under no public name)
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001 (nor names the subcommands' type)
            return dict(action.choices)
    return {}


def _walk(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """`parser` and every subcommand below it, depth first."""
    yield parser
    for child in _subcommands(parser).values():
        yield from _walk(child)


def cli_markdown() -> str:
    """One section per command: its name as a heading and its `--help` output."""
    from negotiation_platform.cli.main import build_parser
    from negotiation_platform.registry import Registry

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH  # argparse wraps help text to the terminal's width
    try:
        sections = []
        for parser in _walk(build_parser(Registry())):
            level = "#" * min(2 + parser.prog.count(" "), 4)
            sections.append(f"{level} `{parser.prog}`\n\n```text\n{parser.format_help().rstrip()}\n```\n")
        return "\n".join(sections)
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """MkDocs hook: fill the CLI reference page."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, cli_markdown())


if __name__ == "__main__":
    print(cli_markdown())
