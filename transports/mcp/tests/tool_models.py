"""Scripted tool-calling models for the `mcp-llm` tests, served by `tests.fake_openai` on a real socket.

`ToolModel` plays like a model given the seat's tools: first its scripted `mistakes` (once each in
the match), then get_turn_state and a move read from its answer (accept when an offer stands, else
propose). It never names a match or a token: the seat's client fills them in.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fake_openai import FakeModel, completion

Call = tuple[str, dict[str, Any]]
"""A scripted tool call: the tool's name and its arguments."""


def tool_calls(*calls: Call, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    """A chat completion whose assistant message calls tools."""
    reply = completion("", usage)
    reply["choices"][0]["finish_reason"] = "tool_calls"
    reply["choices"][0]["message"] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for i, (name, args) in enumerate(calls)
        ],
    }
    return reply


class ToolModel(FakeModel):
    """Scripted: first the `mistakes` (once each in the match), then get_turn_state and a move read from it."""

    def __init__(self, mistakes: list[Call] | None = None, usage: dict[str, Any] | None = None) -> None:
        super().__init__(usage=usage)
        self.mistakes = list(mistakes or [])

    def mistake(self) -> Call:
        return self.mistakes.pop(0)

    def reply(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.requests.append(request)
        if self.mistakes:
            return 200, tool_calls(self.mistake(), usage=self.usage)
        last = request["messages"][-1]
        state = json.loads(last["content"]) if last["role"] == "tool" else {}
        if "allowed_actions" not in state:
            return 200, tool_calls(("get_turn_state", {}), usage=self.usage)
        names = {action["name"] for action in state["allowed_actions"]}
        move = ("accept", {}) if "accept" in names else ("propose", {"mine": 60})
        return 200, tool_calls(("perform_action", {"action_type": move[0], "payload": move[1]}), usage=self.usage)


class Dawdler(ToolModel):
    """Only ever looks at the match: never moves."""

    def reply(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.requests.append(request)
        return 200, tool_calls(("get_turn_state", {}), usage=self.usage)
