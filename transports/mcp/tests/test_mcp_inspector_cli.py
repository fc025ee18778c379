"""The MCP Inspector's CLI (`mcp-inspector --cli`, tests/js) against a real `serve mcp --transport http`
subprocess: a whole split_100 match made from the command line, every optional argument given.

The Inspector pinned in tests/js (0.16.5) sends each `--tool-arg key=value` as text and converts it by the
property's plain `type` only (integer and number: `Number`, boolean, object and array: JSON), as clients
that read a schema naively do; a property declared `anyOf [T, null]` reached the strict server as a string
and was refused, so `opponents`, `seed`, `config` and `payload` could not be given from it."""

from __future__ import annotations

import json
import subprocess
from contextlib import nullcontext
from typing import Any

from tests.js_clients import JS, NODE, RUN_SECONDS, require_js

INSPECTOR = JS / "node_modules" / ".bin" / "mcp-inspector"
INSPECTOR_CLI = JS / "node_modules" / "@modelcontextprotocol" / "inspector" / "cli" / "build" / "index.js"
"""The program that `mcp-inspector --cli URL --transport http ...` starts (one node process, not two)."""


def tool_call(url: str, tool: str, launcher: bool = False, **arguments: Any) -> dict[str, Any]:
    """The structured answer of `tool` called from the Inspector's command line, each argument typed as a
    person types it (`seed=7`, `opponents=["concession"]`, `payload={"mine":50}`); a refusal fails the test.
    With `launcher`, through `mcp-inspector --cli` as a person runs it; else straight to the CLI program it starts."""
    if launcher:
        command = [str(INSPECTOR), "--cli", url, "--transport", "http"]
    else:
        command = [str(NODE), str(INSPECTOR_CLI), "--transport", "http", url]
    command += ["--method", "tools/call", "--tool-name", tool]
    for key, value in arguments.items():
        command += ["--tool-arg", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_SECONDS)
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    assert not answer.get("isError"), f"{tool}: {answer['content'][0]['text']}"
    structured: dict[str, Any] = answer["structuredContent"]
    return structured


def test_the_inspector_cli_plays_a_whole_match_with_every_optional_argument(shared_mcp_url: str) -> None:
    require_js("@modelcontextprotocol/inspector")
    with nullcontext(shared_mcp_url) as url:  # the session's server: this test reads only its match
        started = tool_call(
            url,
            "start_game",
            launcher=True,
            game_id="split_100",
            opponents=["concession"],
            seed=7,
            config={"rounds": 2},
        )
        assert started["opponents"] == ["concession"]
        seat = {"match_id": started["match_id"], "token": started["token"]}
        state = tool_call(url, "get_turn_state", **seat, wait_seconds=10, include_prompt=False)
        moves: list[str] = []
        for _ in range(6):  # two rounds: our offer, the opponent's counter-offer, our acceptance
            if state["status"] == "finished":
                break
            if state["your_turn"]:  # a turn state (split_100 never gives a player two turns in a row)
                names = [action["name"] for action in state["allowed_actions"]]
                move = ("accept", {}) if "accept" in names else ("propose", {"mine": 50})
                state = tool_call(url, "perform_action", **seat, action_type=move[0], payload=move[1])
                moves.append(move[0])
            else:
                state = tool_call(url, "get_turn_state", **seat, since=state["cursor"], wait_seconds=10)
        result = tool_call(url, "get_result", match_id=seat["match_id"])
    assert moves == ["propose", "accept"] and state["status"] == "finished"
    assert result["status"] == "finished" and result["match_id"] == started["match_id"]
