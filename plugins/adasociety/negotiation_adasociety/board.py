"""AdaSociety's board for the match viewer: the torus with players, piles and event cells, the
inventories once a finished match is revealed, and the groups and their shares as a graph."""

from __future__ import annotations

import math
from html import escape
from typing import Any

from negotiation_platform.games.board_svg import circle, colour, line, rect, svg, table, text

CELL = 36
EVENT_COLOUR = "#f0a500"
RESOURCE_COLOURS = ("#8c6d31", "#7f7f7f", "#d62728", "#17becf", "#bcbd22", "#e377c2")


def adasociety_board(view: dict[str, Any]) -> str:
    caption = f"step {view['step'] + 1} of {view['max_length']}, {view['phase']} phase"  # the header's round
    seats = view.get("seats")
    parts = [f"<p>{escape(caption)}</p>", _grid(view) if view["map_public"] or seats else _hidden_map(view)]
    if seats:
        resources = view["resources"]
        rows = [[p["agent_id"], *seats[p["agent_id"]]["you"]["inventory"].values()] for p in view["players"]]
        parts.append(table(["player", *resources], rows, "inventories"))
    parts.append(_groups(view))
    return "".join(parts)


def you_are_here(cx: float, cy: float) -> str:
    """A ring and a "you" label around the reader's own token."""
    ring = circle(cx, cy, 14, fill="none", stroke="#e00", stroke_width=3)
    label = text(cx - 10, cy - 17, "you", font_size=11, fill="#e00")
    return f'<g data-you="here" aria-label="you are here">{ring}{label}</g>'


def _hidden_map(view: dict[str, Any]) -> str:
    return (
        f"<p>The {view['map_size']}×{view['map_size']} map is not common knowledge in this game "
        "(players see only a window of it); it is shown once the match is over, where the server reveals it.</p>"
    )


def _grid(view: dict[str, Any]) -> str:
    """The map; for a revealed match the positions come from the seats' own views."""
    size = view["map_size"]
    resources: list[str] = view["resources"]
    seats = view.get("seats") or {}
    body = [rect(0, 0, size * CELL, size * CELL, fill="#f7f4ea", stroke="#bbb")]
    for k in range(1, size):
        body.append(line(k * CELL, 0, k * CELL, size * CELL, stroke="#ddd"))
        body.append(line(0, k * CELL, size * CELL, k * CELL, stroke="#ddd"))
    events, piles = view["events"], view["piles"]
    if not view["map_public"]:  # a revealed match: what any seat saw
        events, piles = _seen(seats, "visible_events"), _seen(seats, "visible_piles")
    for event in events:
        row, col = event["position"]
        body.append(rect(col * CELL + CELL - 9, row * CELL + CELL - 9, 7, 7, fill=EVENT_COLOUR))
    for pile in piles:
        row, col = pile["position"]
        r = resources.index(pile["resource"])
        x, y = col * CELL + 4 + 10 * (r % 3), row * CELL + 4
        body.append(rect(x, y, 9, 9, fill=RESOURCE_COLOURS[r % len(RESOURCE_COLOURS)]))
        body.append(text(x, y + 20, pile["amount"], font_size=9))
    for player in view["players"]:
        position = seats[player["agent_id"]]["you"]["position"] if player["agent_id"] in seats else player["position"]
        if position is None:
            continue
        row, col = position
        cx, cy = col * CELL + CELL / 2, row * CELL + CELL / 2 + 4
        body.append(circle(cx, cy, 10, fill=colour(player["index"]), stroke="#222"))
        body.append(text(cx - 3.5, cy + 4, player["index"], font_size=11, fill="#fff"))
        if player["agent_id"] == view.get("you"):  # the play page's reader: "you are here"
            body.append(you_are_here(cx, cy))
    legend_y = size * CELL + 14
    for r, name in enumerate(resources):
        body.append(rect(70 * r, legend_y - 9, 9, 9, fill=RESOURCE_COLOURS[r % len(RESOURCE_COLOURS)]))
        body.append(text(70 * r + 12, legend_y, name, font_size=10))
    body.append(rect(70 * len(resources), legend_y - 9, 9, 9, fill=EVENT_COLOUR))
    body.append(text(70 * len(resources) + 12, legend_y, "event", font_size=10))
    return svg(max(size * CELL, 70 * len(resources) + 60), size * CELL + 20, body, "adasociety map")


def _seen(seats: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """Everything under `key` that any seat's view lists, once each."""
    seen: dict[str, dict[str, Any]] = {}
    for seat in seats.values():
        for item in seat[key]:
            seen.setdefault(repr(sorted(item.items())), item)
    return list(seen.values())


def _groups(view: dict[str, Any]) -> str:
    """Players on a circle, one node per group in the middle, an edge labelled with each member's share;
    dashed edges join bargaining partners."""
    players = view["players"]
    count = max(len(players), 1)
    width, radius = 360, 120
    centre = width / 2
    spot = {
        p["agent_id"]: (
            centre + radius * math.cos(2 * math.pi * p["index"] / count - math.pi / 2),
            centre + radius * math.sin(2 * math.pi * p["index"] / count - math.pi / 2),
        )
        for p in players
    }
    body: list[str] = []
    for bargain in view["bargains"]:
        (x1, y1), (x2, y2) = (spot[a] for a in bargain["players"])
        body.append(line(x1, y1, x2, y2, stroke="#999", stroke_dasharray="5 4"))
    for g, group in enumerate(view["groups"]):
        members = [spot[a] for a in group["shares"]]
        gx = sum(x for x, _ in members) / len(members) + 8 * g
        gy = sum(y for _, y in members) / len(members)
        for agent, share in group["shares"].items():
            x, y = spot[agent]
            body.append(line(gx, gy, x, y, stroke="#555", stroke_width=1 + 4 * share))
            body.append(text((gx + x) / 2 + 4, (gy + y) / 2, f"{share:.2f}", font_size=10))
        body.append(rect(gx - 7, gy - 7, 14, 14, fill="#333"))
        body.append(text(gx - 4, gy + 4, group["group"], font_size=9, fill="#fff"))
    for player in players:
        x, y = spot[player["agent_id"]]
        body.append(circle(x, y, 13, fill=colour(player["index"]), stroke="#222"))
        body.append(text(x - 4, y + 4, player["index"], font_size=11, fill="#fff"))
        body.append(text(x + 15, y - 10, f"{player['agent_id']} ({player['job']})", font_size=10))
    groups, bargains = len(view["groups"]), len(view["bargains"])
    summary = f"{groups} group{'' if groups == 1 else 's'}, {bargains} bargain{'' if bargains == 1 else 's'} under way"
    return f"<p>{escape(summary)}</p>" + svg(width + 120, width, body, "adasociety groups")
