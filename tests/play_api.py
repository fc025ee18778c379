"""A person's seat played through the play page's JSON API over real HTTP (the `X-Seat-Token` header),
for the tests of `play --human` and of studies: what the page's script does, without a browser."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

Choice = Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]


def split_link(link: str) -> tuple[str, str, str]:
    """A play link's base URL, match id and seat token (`{base}/play/{match_id}#token={token}`)."""
    parts = urlsplit(link)
    base, _, match_id = link.split("#")[0].rpartition("/play/")
    return base, match_id, parse_qs(parts.fragment)["token"][0]


def split_100_move(state: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Take any standing offer, else ask for 60: against `concession` a deal comes in a few rounds."""
    allowed = {action["name"] for action in state["allowed_actions"]}
    return ("accept", {}) if "accept" in allowed and state["round"] > 1 else ("propose", {"mine": 60})


def play_link(link: str, choose: Choice = split_100_move, seconds: float = 30) -> dict[str, Any]:
    """Play the seat of `link` to the end of its match, each move from `choose(turn state)`; the last state."""
    base, match_id, token = split_link(link)
    api = f"{base}/play/api/matches/{match_id}"
    deadline = time.monotonic() + seconds
    with httpx.Client(headers={"X-Seat-Token": token}, timeout=10) as client:
        while time.monotonic() < deadline:
            answer = client.get(f"{api}/state", params={"wait": 2})
            answer.raise_for_status()
            state: dict[str, Any] = answer.json()
            if state["status"] == "finished":
                return state
            if state["your_turn"]:
                action_type, payload = choose(state)
                client.post(f"{api}/action", json={"action_type": action_type, "payload": payload}).raise_for_status()
    raise AssertionError(f"the match of {link} did not end in {seconds} s")
