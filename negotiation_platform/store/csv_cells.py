"""CSV files a spreadsheet may open: no cell of ours is read as a formula (CSV injection).

A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage return
before one) as a formula: a participant id `=HYPERLINK(...)` in links.csv would become a link
the researcher clicks. Every CSV the project writes goes through `write_rows`, which puts a `'`
before such a cell (OWASP's advice; numbers such as `-1.5` are left as they are, a spreadsheet
reads them as numbers), and `restored` reads it back as it was: a cell of ours that already began
with `'` before one of those characters, or before another `'`, gets one more, so the mapping is
one to one.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from typing import TextIO

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def neutral(cell: object) -> object:
    """`cell` as written: text a spreadsheet would run as a formula gets a leading `'` (see the module)."""
    if not isinstance(cell, str) or _NUMBER.fullmatch(cell):
        return cell
    if cell.startswith(FORMULA_STARTS) or (cell.startswith(QUOTE) and cell[1:].startswith((*FORMULA_STARTS, QUOTE))):
        return QUOTE + cell
    return cell


def restored(cell: str) -> str:
    """A cell `neutral` wrote, as it was before."""
    if cell.startswith(QUOTE) and cell[1:].startswith((*FORMULA_STARTS, QUOTE)):
        return cell[1:]
    return cell


def write_rows(out: TextIO, rows: Iterable[Sequence[object]]) -> None:
    """Write `rows` (the header first) as CSV, every cell `neutral`: RFC 4180 lines (CRLF, so that a
    cell holding a lone CR is quoted too; `out` opened with `newline=""`)."""
    writer = csv.writer(out)
    writer.writerows([neutral(cell) for cell in row] for row in rows)
