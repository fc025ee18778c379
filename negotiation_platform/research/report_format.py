"""How the tournament report writes numbers and pages: each column has a unit, each unit one format.

A reader compares agents by their numbers, so a number is written for what it measures: money and
utilities with thousands separators (38,710, not 3.871e+04), shares and mixture weights as
percentages, counts as whole numbers, ratings rounded, a mean with its 95% interval as
"36.25 [25.94, 45.94]", p-values to three decimals (below 0.001 as "<0.001"). The HTML page carries its one small style
sheet inline, so the report opens offline and can be mailed as one file with its figures folder.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from enum import Enum


class Unit(Enum):
    TEXT = "text"
    COUNT = "count"
    SHARE = "share"
    """A fraction of 1, written as a percentage."""
    AMOUNT = "amount"
    """Money, utility or payoff: separators, cents only for small amounts."""
    ROUNDS = "rounds"
    RATING = "rating"
    SECONDS = "seconds"
    USD = "usd"
    """Dollars: cents, or four decimals for the fractions of a cent a few tokens cost."""
    P_VALUE = "p"


@dataclass(frozen=True)
class Column:
    title: str
    unit: Unit = Unit.AMOUNT


@dataclass(frozen=True)
class Estimate:
    """A mean and its 95% interval (bounds None where too few values), written in its column's unit."""

    mean: float
    low: float | None
    high: float | None


Cell = str | int | float | bool | Estimate | None
"""One value of a report table: a number (of the column's unit), an estimate, a text, or None (a dash)."""


@dataclass(frozen=True)
class Section:
    title: str
    columns: list[Column]
    rows: list[list[Cell]]
    figures: list[str] = field(default_factory=list)
    note: str = ""


def cell(value: Cell, unit: Unit) -> str:
    """`value` as the report writes a number of `unit` (a dash where there is none)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, Estimate):
        if value.low is None or value.high is None:
            return cell(value.mean, unit)
        return f"{cell(value.mean, unit)} [{cell(value.low, unit)}, {cell(value.high, unit)}]"
    if unit is Unit.TEXT or isinstance(value, str | bool):
        return str(value)
    number = float(value)
    if unit is Unit.COUNT:
        return f"{round(number):,}"
    if unit is Unit.SHARE:
        return f"{number:.1%}"
    if unit is Unit.ROUNDS:
        return f"{number:,.1f}"
    if unit is Unit.RATING:
        return f"{number:,.0f}"
    if unit is Unit.P_VALUE:
        return "<0.001" if number < 0.001 else f"{number:.3f}"
    if unit is Unit.SECONDS:
        return f"{number:,.1f} s"
    if unit is Unit.USD:
        return f"${number:,.2f}" if abs(number) >= 1 or number == 0 else f"${number:.4f}"
    return f"{number:,.0f}" if abs(number) >= 1_000 else f"{number:,.2f}"


def axis_amount(value: float, _position: int = 0) -> str:
    """An axis tick of an amount (matplotlib's FuncFormatter signature)."""
    return cell(value, Unit.AMOUNT) if abs(value) >= 1_000 else f"{value:g}"


CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2330; background: #f6f7f9;
       margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 24px; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
h2 { font-size: 1.2em; margin: 32px 0 8px; border-bottom: 1px solid #d5d9e0; padding-bottom: 4px; }
p.note { color: #535b6b; margin: 4px 0 10px; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; background: #fff; box-shadow: 0 1px 2px rgba(0, 0, 0, .08); }
th, td { padding: 5px 10px; border-bottom: 1px solid #e6e9ee; }
th { background: #eef1f5; text-align: left; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:hover td { background: #f9fafb; }
figure { margin: 14px 0; }
figure img { max-width: 100%; height: auto; background: #fff; border: 1px solid #e6e9ee; }
""".strip()


def markdown_page(title: str, sections: list[Section]) -> str:
    lines = [f"# {title}", ""]
    for section in sections:
        lines += [f"## {section.title}", ""]
        if section.note:
            lines += [section.note, ""]
        lines += ["| " + " | ".join(c.title for c in section.columns) + " |"]
        lines += ["|" + "".join("---|" if c.unit is Unit.TEXT else "---:|" for c in section.columns)]
        # A cell's own "|" (a match key's) would split it: escaped, as Markdown tables allow.
        lines += [
            "| " + " | ".join(t.replace("|", "\\|") for t in _cells(row, section.columns)) + " |"
            for row in section.rows
        ]
        lines += ["", *(f"![{name}](figures/{name})" for name in section.figures), ""]
    return "\n".join(lines)


def html_page(title: str, sections: list[Section]) -> str:
    escape = html.escape
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>\n{CSS}\n</style></head>",
        f"<body><main><h1>{escape(title)}</h1>",
    ]
    for section in sections:
        parts.append(f"<section><h2>{escape(section.title)}</h2>")
        if section.note:
            parts.append(f'<p class="note">{escape(section.note)}</p>')
        kinds = ["" if c.unit is Unit.TEXT else ' class="num"' for c in section.columns]
        head = "".join(f"<th{k}>{escape(c.title)}</th>" for c, k in zip(section.columns, kinds, strict=True))
        parts.append(f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>')
        for row in section.rows:
            cells = zip(_cells(row, section.columns), kinds, strict=True)
            parts.append("<tr>" + "".join(f"<td{k}>{escape(text)}</td>" for text, k in cells) + "</tr>")
        parts.append("</tbody></table></div>")
        parts += [
            f"<figure><img src='figures/{escape(name)}' alt='{escape(name)}'></figure>" for name in section.figures
        ]
        parts.append("</section>")
    parts.append("</main></body></html>")
    return "\n".join(parts)


def _cells(row: list[Cell], columns: list[Column]) -> list[str]:
    return [cell(value, column.unit) for value, column in zip(row, columns, strict=True)]
