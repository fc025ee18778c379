"""The auction's board for the match viewer: the bidders, then the opened bids with the winner and price."""

from __future__ import annotations

from html import escape
from typing import Any

from negotiation_platform.games.board_svg import colour, line, rect, svg, table, text

BAR_WIDTH = 320


def auction_board(view: dict[str, Any]) -> str:
    bidders: list[str] = view["bidders"]
    sale = view.get("sale")
    if sale is None:
        state = "bids sealed" if view.get("phase") == "bid" else "discussing"
        rows = [[bidder, state] for bidder in bidders]
        return table(["bidder", "status"], rows, f"{len(bidders)} bidders, {view['pricing']}-price sealed bids")
    bids: dict[str, int] = sale["bids"]
    top = max([*bids.values(), 1])
    height = 28 * len(bids) + 30
    body: list[str] = []
    for row, (bidder, amount) in enumerate(sorted(bids.items(), key=lambda kv: -kv[1])):
        y = 10 + 28 * row
        width = BAR_WIDTH * amount / top
        fill = colour(bidders.index(bidder)) if bidder in bidders else "#999"
        body.append(text(0, y + 15, bidder, font_size=12))
        body.append(rect(120, y, max(width, 1), 20, fill=fill, opacity=1.0 if bidder == sale["winner"] else 0.5))
        body.append(text(126 + width, y + 15, amount, font_size=12))
    price_x = 120 + BAR_WIDTH * sale["price"] / top
    body.append(line(price_x, 4, price_x, height - 16, stroke="#222", stroke_dasharray="4 3"))
    body.append(text(price_x + 4, height - 4, f"price {sale['price']}", font_size=11))
    chart = svg(120 + BAR_WIDTH + 60, height, body, "auction bids")
    seats = view.get("seats")
    values = (
        ""
        if not seats
        else table(["bidder", "value"], [[b, seats[b]["your_value"]] for b in bidders if b in seats], "private values")
    )
    return f"<p>{escape(sale['winner'])} wins and pays {sale['price']}.</p>{chart}{values}"
