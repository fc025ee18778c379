"""`play GAME --human` as a real subprocess: it prints a seat link, the link's page and API answer, a
person (here the page's JSON API over HTTP) plays the seat through to the end against `concession`,
and the command prints the result and exits by itself."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import httpx
import pytest

from tests.play_api import play_link, split_link


def _link(proc: subprocess.Popen[str], seconds: float = 30) -> str:
    """The play link the command prints on stderr."""
    assert proc.stderr is not None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        assert "MATCH_ID" not in line  # the seat's own link is printed once, with no placeholder before it
        if "#token=" in line:
            return line.strip()
        if not line and proc.poll() is not None:
            break
    raise AssertionError(f"no play link printed (exit {proc.poll()})")


def test_play_human_serves_a_link_plays_to_the_end_and_exits() -> None:
    command = [sys.executable, "-m", "negotiation_platform.cli.main", "play", "split_100", "--human"]
    proc = subprocess.Popen(
        [*command, "--agents", "concession", "--seed", "4", "--no-browser", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        link = _link(proc)
        base, match_id, token = split_link(link)
        assert base.startswith("http://127.0.0.1:") and token not in link.split("#")[0]
        page = httpx.get(f"{base}/play/{match_id}", timeout=10)
        assert page.status_code == 200 and "data-status" in page.text
        icon = httpx.get(f"{base}/favicon.ico", timeout=10)
        assert (icon.status_code, icon.headers["content-type"]) == (200, "image/svg+xml")
        assert icon.text.startswith("<svg") and 'rel="icon"' in page.text
        refused = httpx.get(f"{base}/play/api/matches/{match_id}/state", timeout=10)
        assert refused.status_code == 403  # the API acts only with the seat's token

        final = play_link(link)
        assert final["result"]["agreement"] is True

        out, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0
    result = json.loads(out)
    assert result["status"] == "finished" and result["game_id"] == "split_100"
    assert result["payoffs"] == final["result"]["payoffs"]
    assert set(result["players"]) == {"human", "concession"}
    assert token not in out


def test_no_browser_help_says_what_it_does() -> None:
    command = [sys.executable, "-m", "negotiation_platform.cli.main", "play", "--help"]
    shown = " ".join(subprocess.run(command, capture_output=True, text=True, timeout=60, check=True).stdout.split())
    assert "--no-browser with --human: print the play link but do not open a browser --" in shown  # no default


def test_ctrl_c_stops_play_human_cleanly() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "negotiation_platform.cli.main", "play", "split_100", "--human", "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _link(proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err


def test_no_browser_is_opened_without_a_display(monkeypatch: pytest.MonkeyPatch) -> None:
    from negotiation_platform.cli.human import browser_available

    monkeypatch.setattr(sys, "platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(name, raising=False)
    assert browser_available() is False  # the link is only printed
