"""Small helpers to draw game boards as inline SVG: every text is escaped, every number rounded.

Boards are HTML fragments returned by the `render_board` hook; these helpers keep them short
and safe to embed (player names and messages are untrusted).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")
"""Player colours, by seat index (repeating beyond nine)."""


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _attributes(attributes: dict[str, object]) -> str:
    return "".join(
        f' {name.rstrip("_").replace("_", "-")}="{escape(_number(v) if isinstance(v, float) else str(v))}"'
        for name, v in attributes.items()
    )


def svg(width: float, height: float, body: list[str], label: str) -> str:
    """An SVG element of the given size holding `body`; `label` names it for screen readers and tests."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_number(width)} {_number(height)}" '
        f'width="{_number(width)}" height="{_number(height)}" role="img" aria-label="{escape(label)}">'
        + "".join(body)
        + "</svg>"
    )


def rect(x: float, y: float, width: float, height: float, **attributes: object) -> str:
    box = {"x": float(x), "y": float(y), "width": float(width), "height": float(height)}
    return f"<rect{_attributes({**box, **attributes})}/>"


def circle(x: float, y: float, radius: float, **attributes: object) -> str:
    return f"<circle{_attributes({'cx': float(x), 'cy': float(y), 'r': float(radius), **attributes})}/>"


def line(x1: float, y1: float, x2: float, y2: float, **attributes: object) -> str:
    return f"<line{_attributes({'x1': float(x1), 'y1': float(y1), 'x2': float(x2), 'y2': float(y2), **attributes})}/>"


def text(x: float, y: float, content: object, **attributes: object) -> str:
    return f"<text{_attributes({'x': float(x), 'y': float(y), **attributes})}>{escape(str(content))}</text>"


def polyline(points: list[tuple[float, float]], **attributes: object) -> str:
    path = " ".join(f"{_number(x)},{_number(y)}" for x, y in points)
    return f'<polyline points="{path}"{_attributes(attributes)}/>'


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], caption: str) -> str:
    """A plain HTML table; cells are escaped, floats shortened."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(_number(c) if isinstance(c, float) else str(c))}</td>" for c in row) + "</tr>"
        for row in rows
    )
    return f"<table><caption>{escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
