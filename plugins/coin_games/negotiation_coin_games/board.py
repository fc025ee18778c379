"""The coin games' board for the match viewer: the pool on the table and the claims of past rounds."""

from __future__ import annotations

from html import escape
from typing import Any

from negotiation_platform.games.board_svg import colour, rect, svg, table, text

BAR_WIDTH = 300
ROW = 34


def coin_board(view: dict[str, Any]) -> str:
    """The current pool as bars, under it the last resolved round's claims per player (scaled to the
    pool), then every past round's claims and allocations; seats' totals once revealed."""
    players: list[str] = view["players"]
    stock: dict[str, int] = view.get("stock") or {}
    history: list[dict[str, Any]] = view["history"]
    last = history[-1] if history else None
    body: list[str] = []
    for row, (item, amount) in enumerate(stock.items()):
        y = 10 + ROW * row
        body.append(text(0, y + 14, f"{item}: {amount}", font_size=12))
        body.append(rect(110, y, BAR_WIDTH, 10, fill="#d9c36a"))
        if last is not None and item in last["stock"]:
            pool = max(last["stock"][item], sum(c.get(item, 0) for c in last["claims"].values()), 1)
            x = 110.0
            for seat, player in enumerate(players):
                width = BAR_WIDTH * last["claims"].get(player, {}).get(item, 0) / pool
                body.append(rect(x, y + 12, width, 10, fill=colour(seat)))
                x += width
    legend_y = 10 + ROW * len(stock)
    for seat, player in enumerate(players):
        body.append(rect(110 + 120 * seat, legend_y, 10, 10, fill=colour(seat)))
        body.append(text(124 + 120 * seat, legend_y + 9, player, font_size=11))
    caption = f"round {view['round']} of {view['rounds']}, phase {view['phase']}"
    pool = svg(110 + BAR_WIDTH + 20, legend_y + 20, body, "coin pool and claims")
    rows = [
        [r["round"], player, _items(r["claims"].get(player, {})), _items(r["allocations"].get(player, {}))]
        for r in history
        for player in players
    ]
    past = table(["round", "player", "claimed", "allocated"], rows, "claims and allocations") if rows else ""
    seats = view.get("seats")
    totals = (
        table(["player", "total"], [[p, float(seats[p]["your_total"])] for p in players if p in seats], "payoffs")
        if seats
        else ""
    )
    starter = escape(view["starting_agent"] or "-")
    return f"<p>{escape(caption)}; starting agent: {starter}</p>{pool}{past}{totals}"


def _items(amounts: dict[str, float]) -> str:
    return ", ".join(f"{item} {amount:g}" for item, amount in amounts.items())
