"""What players send never steers the operator's terminal, and chat must be something a reader sees.

`play` printed chat as it came: an ESC sequence retitled the window and recoloured the screen, a
bidi override reversed the line, `[bold]` was read as rich markup. Now every printer of the CLI
shows such characters as escapes (`terminal_safe`), and the engine refuses a message holding a NUL
or nothing visible (white space, zero-width characters) as `invalid_argument`, storing nothing.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from rich.console import Console

from negotiation_platform.arena import Arena
from negotiation_platform.cli.main import _print_error
from negotiation_platform.cli.transcript import print_transcript
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.wire.unicode_text import terminal_safe
from tests.fake_openai import FakeModel, completion, serve

HOSTILE = "\x1b]0;pwned\x07 \x1b[31mred\x1b[0m \u202eevil\u202c [bold]loud[/bold]"
"""A window title change, a colour, a right-to-left override and rich markup."""
SHOWN = "\\x1b]0;pwned\\x07 \\x1b[31mred\\x1b[0m \\u202eevil\\u202c [bold]loud[/bold]"


class ChattyModel(FakeModel):
    """Plays like `FakeModel`, and sends `HOSTILE` with every move."""

    def reply(self, request: dict[str, Any]) -> Any:
        status, body = super().reply(request)[:2]
        move = json.loads(body["choices"][0]["message"]["content"].strip("`").removeprefix("json"))
        return status, completion(json.dumps({**move, "message": HOSTILE}))


def test_play_prints_a_players_escape_sequences_bidi_and_markup_as_text() -> None:
    play = ["play", "split_100", "--agents", "llm:fake-model", "concession", "--seed", "1"]
    for endpoint in serve(ChattyModel(malformed_first=False)):
        done = subprocess.run(
            [sys.executable, "-m", "negotiation_platform.cli.main", *play],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "OPENAI_BASE_URL": endpoint, "OPENAI_API_KEY": "test"},
        )
    assert done.returncode == 0, done.stderr
    assert SHOWN in done.stdout
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout


def test_the_transcript_printer_escapes_controls_nul_and_markup_wherever_they_come_from() -> None:
    """A server played through (`--via`) may send anything: names, payloads, chat, the outcome."""
    result = {
        "game": "g[bold]",
        "seed": 1,
        "players": ["[red]a\x1b[2J", "b"],
        "events": [
            {"seq": 1, "round": 1, "phase": "talk", "kind": "message", "actor": "[red]a\x1b[2J",
             "data": {"content": "hi\x00there\u2066", "to": None}},
            {"seq": 2, "round": 1, "phase": "talk", "kind": "action", "actor": "b",
             "data": {"action_type": "say\x9b", "payload": {"text": "\x1b"}}},
        ],
        "payoffs": {"[red]a\x1b[2J": 1.0, "b": 0.0},
        "agreement": True,
        "terms": {"note": "\u202e[blink]x"},
        "winner": "b",
        "rounds": 1,
    }  # fmt: skip
    out = io.StringIO()
    print_transcript(Console(file=out, width=200, color_system=None), result)
    text = out.getvalue()
    for raw in ("\x1b", "\x00", "\x9b", "\u202e", "\u2066"):
        assert raw not in text
    for literal in ("g[bold]", "[red]a\\x1b[2J", "hi\\x00there\\u2066", "say\\x9b", "\\u202e[blink]x"):
        assert literal in text


def test_an_error_line_from_a_server_is_printed_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    _print_error(False, f"negotiation-platform play: {HOSTILE}", HOSTILE, "invalid_argument")
    assert capsys.readouterr().err == f"negotiation-platform play: {SHOWN}\n"
    assert terminal_safe("tab\there\nnew line \u061c\u200e\u200f\u2069 é 日本") == (
        "tab\\x09here\\x0anew line \\u061c\\u200e\\u200f\\u2069 é 日本"
    )


@pytest.mark.parametrize(
    "content", ["a\x00b", "", " \t\n", "\u200b\u200c\u200d", "\ufeff\u2060 \u00ad", "\u3164", "\ufe0f"]
)
@pytest.mark.anyio
async def test_chat_without_visible_text_or_with_a_nul_is_refused_and_nothing_is_logged(content: str) -> None:
    arena = Arena()
    first = await arena.start_game("split_100", seed=1, name="a")
    second = await arena.join_game(first["match_id"], name="b")
    turn = await arena.get_turn_state(first["match_id"], first["token"])
    seat = first if turn["your_turn"] else second
    logged = len(arena.events(first["match_id"]))
    with pytest.raises(NegotiationError) as refused:
        await arena.send_public_message(first["match_id"], seat["token"], content)
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT and refused.value.details == {"field": "content"}
    assert len(arena.events(first["match_id"])) == logged
    await arena.send_public_message(first["match_id"], seat["token"], "x\u200b")  # visible text goes through
    assert len(arena.events(first["match_id"])) == logged + 1
