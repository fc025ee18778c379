"""The viewer's charts, as inline SVG: offers over time, and a finished match's outcome against the
Pareto frontier (from `negotiation_platform.research.analysis.outcomes`, where the game has an exact outcome
space). Both read only what a spectator may see: the events shown and the published result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from negotiation_platform.agents.turns import SeenEvent
from negotiation_platform.games.board_svg import circle, colour, line, polyline, rect, svg, text
from negotiation_platform.registry import Registry
from negotiation_platform.research.analysis.metrics import role_point
from negotiation_platform.research.analysis.outcomes import outcome_space
from negotiation_platform.research.rows import Seating

WIDTH, HEIGHT, MARGIN = 460, 260, 40
MAX_OUTCOME_DOTS = 1500
"""Outcome spaces can hold many thousand agreements; a thinned sample is drawn behind the frontier."""


def offer_series(events: Sequence[SeenEvent], players: list[str]) -> dict[str, list[tuple[int, float]]]:
    """Every number in the payload of every action shown, as series `player: action.field` of
    (event sequence number, value): a player's proposals over time are its concession curve."""
    series: dict[str, list[tuple[int, float]]] = {}
    for event in events:
        if event["kind"] != "action" or event["actor"] not in players:
            continue
        payload = event["data"].get("payload")
        for field, value in _numbers(payload if isinstance(payload, dict) else {}):
            key = f"{event['actor']}: {event['data']['action_type']}.{field}"
            series.setdefault(key, []).append((event["seq"], value))
    return series


def _numbers(payload: Mapping[str, object], prefix: str = "") -> list[tuple[str, float]]:
    found: list[tuple[str, float]] = []
    for key, value in payload.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            found += _numbers(value, f"{name}.")
        elif isinstance(value, int | float) and not isinstance(value, bool):
            found.append((name, float(value)))
    return found


def offers_chart(events: Sequence[SeenEvent], players: list[str], last_seq: int) -> str | None:
    """Offers over time (x: event number up to `last_seq`), one line per player and payload field."""
    series = offer_series(events, players)
    if not series:
        return None
    values = [v for points in series.values() for _, v in points]
    low, high = min(values), max(values)
    span = high - low or 1.0

    def place(seq: int, value: float) -> tuple[float, float]:
        x = MARGIN + (WIDTH - 2 * MARGIN) * seq / max(last_seq, 1)
        return x, HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * (value - low) / span

    body = _axes(f"event (1..{last_seq})", f"offered ({low:g}..{high:g})")
    for k, (name, points) in enumerate(sorted(series.items())):
        seat = next((i for i, p in enumerate(players) if name.startswith(f"{p}: ")), k)
        placed = [place(seq, value) for seq, value in points]
        body.append(polyline(placed, fill="none", stroke=colour(seat), stroke_width=2))
        body += [circle(x, y, 3, fill=colour(seat)) for x, y in placed]
        body.append(text(WIDTH + 4, 16 + 14 * k, name, font_size=11, fill=colour(seat)))
    return svg(WIDTH + 220, HEIGHT, body, "offers over time")


def outcome_chart(
    game_id: str,
    config: Mapping[str, object] | None,
    result: dict[str, Any],
    role_order: list[int] | None,
    registry: Registry,
) -> str | None:
    """The outcome (and the BATNAs) of a finished two-player match over the game's outcome space, its
    Pareto frontier and Nash point; None where the game has no exact outcome space."""
    players = result["players"]
    space = outcome_space(game_id, config, registry) if len(players) == 2 else None
    if space is None:
        return None
    row: Seating = {"roles": role_order}
    point = role_point(row, [float(result["final_scores"][p]) for p in players])
    batnas = role_point(row, [float(result["game_data"]["batnas"].get(p, 0.0)) for p in players])
    everything = np.vstack([space.utilities, point[None, :], batnas[None, :]])
    low, high = everything.min(axis=0), everything.max(axis=0)
    span = np.where(high - low > 0, high - low, 1.0)

    def place(u: np.ndarray) -> tuple[float, float]:
        x = MARGIN + (WIDTH - 2 * MARGIN) * (u[0] - low[0]) / span[0]
        return float(x), float(HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * (u[1] - low[1]) / span[1])

    body = _axes(f"utility, role 1 ({low[0]:g}..{high[0]:g})", f"utility, role 2 ({low[1]:g}..{high[1]:g})")
    step = max(1, len(space.utilities) // MAX_OUTCOME_DOTS)
    body += [circle(*place(u), 1.5, fill="#c9c9c9") for u in space.utilities[::step]]
    body.append(polyline([place(u) for u in space.frontier], fill="none", stroke="#222", stroke_width=1.5))
    nash = space.nash_point((float(batnas[0]), float(batnas[1])))
    legend = [("Pareto frontier", "#222"), ("outcome", "#e15759"), ("BATNAs", "#4e79a7")]
    if nash is not None:
        body.append(rect(place(nash)[0] - 4, place(nash)[1] - 4, 8, 8, fill="#59a14f"))
        legend.append(("Nash point", "#59a14f"))
    body.append(circle(*place(batnas), 5, fill="#4e79a7"))
    body.append(circle(*place(point), 6, fill="#e15759", stroke="#222"))
    for k, (name, fill) in enumerate(legend):
        body.append(rect(WIDTH + 4, 8 + 16 * k, 10, 10, fill=fill))
        body.append(text(WIDTH + 18, 17 + 16 * k, name, font_size=11))
    return svg(WIDTH + 120, HEIGHT, body, "outcome against the Pareto frontier")


def _axes(x_label: str, y_label: str) -> list[str]:
    bottom, right = HEIGHT - MARGIN, WIDTH - MARGIN
    return [
        rect(0, 0, WIDTH, HEIGHT, fill="#fff"),
        line(MARGIN, bottom, right, bottom, stroke="#888"),
        line(MARGIN, MARGIN, MARGIN, bottom, stroke="#888"),
        text(MARGIN, HEIGHT - 12, x_label, font_size=11),
        text(4, MARGIN - 10, y_label, font_size=11),
    ]
