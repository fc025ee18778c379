"""Progress on stderr for the commands that take a while, drawn only when stderr is a terminal: on a
pipe, a file or a test's capture it draws nothing, so what is read there holds only what was said."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import Progress, ProgressColumn


def stderr_progress(*columns: str | ProgressColumn, transient: bool = False) -> Progress:
    """A rich progress display on stderr, disabled (it draws nothing, even when stopped) off a terminal."""
    terminal = sys.stderr is not None and sys.stderr.isatty()
    return Progress(*columns, console=Console(stderr=True), transient=transient, disable=not terminal)
