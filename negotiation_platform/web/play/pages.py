"""The play page's HTML shell; static/play.js fills it in from the seat's turn state and keeps it current.

The shell holds no match data and no token (the token is in the URL fragment, read by the script),
so it is the same for everyone and escapes the one value it shows, the match id.
"""

from __future__ import annotations

from html import escape

PREFIX = "/play"


def play_page(match_id: str) -> str:
    match = escape(match_id)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Play {match}</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<link rel="stylesheet" href="{PREFIX}/static/play.css">
<script src="{PREFIX}/static/forms.js" defer></script>
<script src="{PREFIX}/static/pad.js" defer></script>
<script src="{PREFIX}/static/play.js" defer></script>
</head>
<body data-match="{match}">
<header>
<h1><span id="game">Match</span> <small>{match}</small></h1>
<p id="summary">
<span>status: <strong data-status id="status">waiting</strong></span>
<span>you: <strong id="me">-</strong></span>
<span>round <strong id="round">-</strong></span>
<span>phase <strong id="phase">-</strong></span>
<span id="turn" aria-live="polite">-</span>
<span>clock: <strong data-deadline id="deadline">-</strong></span>
</p>
<p id="problem" role="alert" hidden></p>
</header>
<main>
<section id="play" aria-labelledby="play-title">
<h2 id="play-title">Your move</h2>
<div id="pad" hidden></div>
<div id="actions"><p class="muted">Waiting for the match to start.</p></div>
<div id="chat"></div>
<div id="outcome" hidden><h2>Outcome</h2><ul id="payoffs"></ul><p id="agreement"></p></div>
</section>
<section id="you" aria-labelledby="you-title">
<div id="board-panel" hidden><h2>Board</h2><div id="board"></div></div>
<h2 id="you-title">What you know</h2>
<div id="view"><p class="muted">Nothing yet.</p></div>
</section>
<section id="log" aria-labelledby="log-title">
<h2 id="log-title">Transcript</h2>
<ol id="transcript" aria-live="polite"></ol>
</section>
<details id="rules-panel">
<summary>Rules and briefing</summary>
<pre id="rules"></pre>
</details>
</main>
</body>
</html>
"""
