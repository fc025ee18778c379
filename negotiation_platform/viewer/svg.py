"""The board drawing helpers' former name, kept for game plugins written against it: they now live in
`negotiation_platform.svg`, below `games`, so a game's board can use them without importing the viewer."""

from negotiation_platform.svg import circle, colour, line, polyline, rect, svg, table, text

__all__ = ["circle", "colour", "line", "polyline", "rect", "svg", "table", "text"]
