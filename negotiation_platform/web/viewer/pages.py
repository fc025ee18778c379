"""The viewer's two HTML pages; the script in static/viewer.js fills in and updates the match page.

Every value that reaches a page is escaped here; the script writes player text with textContent.
Links are relative to /view so the pages work wherever the viewer is mounted behind that prefix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from typing import Any

PREFIX = "/view"


def _page(title: str, body: str, data: Mapping[str, object]) -> str:
    attributes = "".join(f' data-{name}="{escape(json.dumps(value))}"' for name, value in data.items())
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<link rel="stylesheet" href="{PREFIX}/static/viewer.css">
<script src="{PREFIX}/static/viewer.js" defer></script>
</head>
<body{attributes}>
<header><a href="{PREFIX}/">Matches</a></header>
<main>
{body}
</main>
</body>
</html>
"""


def payoffs_text(payoffs: dict[str, float] | None) -> str:
    if not payoffs:
        return ""
    return ", ".join(f"{agent} {value:g}" for agent, value in payoffs.items())


def match_row(match: dict[str, Any]) -> str:
    match_id = escape(match["match_id"])
    return (
        f'<tr data-status="{escape(match["status"])}">'
        f'<td><a href="{PREFIX}/match/{match_id}">{match_id}</a></td>'
        f"<td>{escape(match['game_id'])}</td>"
        f"<td>{escape(', '.join(match['players']))}</td>"
        f'<td class="status">{escape(match["status"])}</td>'
        f"<td>{match['round']}</td>"
        f"<td>{escape(payoffs_text(match.get('payoffs')))}</td></tr>"
    )


def list_page(matches: list[dict[str, Any]], games: list[str], game: str | None) -> str:
    options = "".join(
        f'<option value="{escape(g)}"{" selected" if g == game else ""}>{escape(g)}</option>' for g in games
    )
    rows = "".join(match_row(m) for m in matches)
    body = f"""<h1>Matches</h1>
<form method="get" action="{PREFIX}/" id="filter">
<label>Game <select name="game"><option value="">all games</option>{options}</select></label>
<button type="submit">Filter</button>
</form>
<table id="matches">
<thead><tr><th>match</th><th>game</th><th>agents</th><th>status</th><th>round</th><th>payoffs</th></tr></thead>
<tbody>{rows}</tbody>
</table>
<p id="empty"{" hidden" if matches else ""}>No matches yet.</p>"""
    return _page("Matches", body, {"page": "list", "game": game or ""})


def match_page(state: dict[str, Any]) -> str:
    """The page of one match; the script loads its events, board and charts and keeps them current."""
    match_id = state["match_id"]
    body = f"""<h1>{escape(state["game_id"])} <small>{escape(match_id)}</small></h1>
<p id="summary"><span id="status">{escape(state["status"])}</span>
 · round <span id="round">{state["round"]}</span> · phase <span id="phase">{escape(str(state["phase"] or "-"))}</span>
 · to act: <span id="acting">{escape(", ".join(state["acting"]) or "-")}</span></p>
<p id="players">players: {escape(", ".join(state["players"]))}</p>
<p id="payoffs"></p>
<div id="replay" hidden>
<label for="step">Replay: event <output id="step-label"></output></label>
<input type="range" id="step" min="0" max="0" value="0">
</div>
<div class="columns">
<section id="transcript-panel"><h2>Transcript</h2><div id="transcript"></div></section>
<section id="panels">
<h2>Board</h2><div id="board"><p class="muted">No board for this game.</p></div>
<h2>Offers over time</h2><div id="offers"><p class="muted">No offers yet.</p></div>
<div id="outcome-panel" hidden><h2>Outcome and the Pareto frontier</h2><div id="outcome"></div></div>
</section>
</div>"""
    return _page(f"{state['game_id']} {match_id}", body, {"page": "match", "match": match_id})
