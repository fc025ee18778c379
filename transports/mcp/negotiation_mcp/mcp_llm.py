"""`mcp-llm:MODEL`: a chat model that plays its seat as an MCP client, by calling the arena's MCP tools.

Where `llm:MODEL` is handed the turn state and answers with a JSON move, this agent plays the way
Claude or Cursor do: it gives the model the MCP server's tool list as functions (OpenAI tool
calling), runs each tool call the model makes (get_turn_state, perform_action,
send_public_message, ...) against the server and feeds the result back as a `tool` message. A
refusal comes back as any MCP client sees it: the arena's `{"error": {code, message, details}}`.

The seat is handed over by the drivers (`driver.seat_in_play()`): its match id, token and arena.
The model is told the match id and token in its first message and must pass them to the tools.
The MCP session: through an MCP connection (`play --via mcp`, `--via http://HOST:PORT/mcp`) the
model's calls go through that same session to that server; with an in-process arena (`play`
without `--via`, tournaments) the agent serves that arena over MCP in memory for the turn (the
SDK's JSON-RPC memory streams, handshake included). Each turn is a fresh conversation.

Bounds: at most `max_calls_per_turn` tool calls in one turn and `max_calls` in the match (an
idle reply, one that calls no tool while the move is open, counts as one: the model is told the
move is still open). Past either, the seat forfeits its move with that reason (only a host arena can play the
default move: through a remote connection the match stops). `transcript` keeps one entry per
turn: the tool calls (token redacted) with the refusal code of each, idle replies, the model's
requests with their token usage and latency, and its texts; `totals(transcript)` sums a match.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult

from negotiation_mcp.client import READ_TIMEOUT_SECONDS, McpArena
from negotiation_mcp.mcp_llm_options import McpLlmOptions
from negotiation_mcp.server import build_server
from negotiation_platform.agents.base import Decision, OutgoingMessage
from negotiation_platform.agents.chat_options import read_options
from negotiation_platform.agents.driver import SeatInPlay, seat_in_play
from negotiation_platform.agents.house import HouseSeats
from negotiation_platform.agents.llm_calls import CallsFailed, Reply
from negotiation_platform.arena import Arena, ArenaApi
from negotiation_platform.errors import ErrorCode, NegotiationError

SYSTEM = (
    "You are a negotiator playing one seat of a match on a negotiation arena, through its tools. "
    "You already hold your seat: do not call start_game or join_game. On your turn, read the situation "
    "with get_turn_state, then make exactly one move with perform_action (a public message first with "
    "send_public_message if you like). Pass your match_id and token to every tool that takes them. "
    'A refused call answers {"error": {...}} saying what was wrong: fix the call and try again.'
)
MOVES = {"perform_action", "send_public_message", "send_private_message"}
"""Tools that change the match: after each, the arena says whether the turn is still the seat's."""
OVERTAKEN = {ErrorCode.NOT_YOUR_TURN.value, ErrorCode.MATCH_OVER.value}
"""Refusals that mean the turn has passed (a clock ran out): the turn ends there."""


class McpLlmAgent:
    """Plays its seat as an MCP client: an OpenAI-compatible chat model calling the arena's MCP tools."""

    needs_target = True
    """Named as `mcp-llm:MODEL`: the kind alone is not a playable agent."""
    bills_tokens = True
    """Its transcript reports token usage: a tournament's price table must price its model."""

    Options = McpLlmOptions

    def __init__(self, seed: int = 0, name: str = "mcp-llm", target: str = "", **options: Any) -> None:
        """`options` are `McpLlmOptions`' fields: `llm:`'s endpoint and call options (retries with backoff
        on 429, 5xx and timeouts, a per-endpoint concurrency limit, an on-disk reply cache) and the bounds
        on tool calls."""
        if not target:
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "mcp-llm agents need a model: mcp-llm:MODEL.")
        settings = read_options(McpLlmOptions, "mcp-llm", options)
        self.name = name
        self.model = target
        self.seed = seed
        self.temperature = settings.temperature
        self.max_tokens = settings.max_tokens
        self.max_calls_per_turn = settings.max_calls_per_turn
        self.max_calls = settings.max_calls
        self.caller = settings.caller(target)
        self.transcript: list[dict[str, Any]] = []
        self.calls = 0
        """Tool calls (and replies that called none) so far in the match, against `max_calls`."""
        self._served: tuple[Arena, MCPServer] | None = None

    async def decide(self, turn: dict[str, Any]) -> Decision:
        seat = seat_in_play()
        if seat is None:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT, "mcp-llm plays only through the drivers, which hand it its seat."
            )
        self.caller.tally.moves += 1
        record: dict[str, Any] = {
            "round": turn.get("round"),
            "phase": turn.get("phase"),
            "tool_calls": 0,
            "idle_replies": 0,
            "refusals": {},
            "requests": 0,
            "usage": {},
            "seconds": 0.0,
            "steps": [],
        }
        self.transcript.append(record)
        failure: Exception | None = None
        async with self._session(seat.arena) as client:
            try:
                decision = await _Turn(self, seat, client, record, bool(turn.get("allowed_actions"))).play()
            except Exception as exc:  # raised past the session, whose task group would wrap it in a group
                failure = exc
        if failure is not None:
            raise failure
        record["outcome"] = _outcome(decision)
        if decision.forfeit is not None:
            record["reason"] = decision.forfeit
        return decision

    @asynccontextmanager
    async def _session(self, arena: ArenaApi) -> AsyncIterator[Client]:
        """An MCP session with the server serving `arena` (see the module's docstring)."""
        if isinstance(arena, McpArena):
            yield arena.client
            return
        if not isinstance(arena, Arena):
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT,
                f"mcp-llm plays through MCP: in-process or via an MCP server, not through {type(arena).__name__}.",
            )
        if self._served is None or self._served[0] is not arena:
            self._served = (arena, _serve_in_memory(arena))
        async with Client(self._served[1], mode="legacy") as client:
            yield client


class _Turn:
    """One turn's conversation: the model's requests, its tool calls and their results."""

    def __init__(
        self, agent: McpLlmAgent, seat: SeatInPlay, client: Client, record: dict[str, Any], move_open: bool
    ) -> None:
        self.agent = agent
        self.seat = seat
        self.client = client
        self.record = record
        self.move_open = move_open
        """Whether an action is still to be made this turn (the arena's answer to each move says)."""
        self.overtaken = False
        self.refusals: Counter[str] = Counter()
        self.action: tuple[str, dict[str, Any]] | None = None
        self.messages: list[OutgoingMessage] = []

    async def play(self) -> Decision:
        tools = await _tools(self.client)
        conversation: list[dict[str, Any]] = [
            {"role": "system", "content": f"{SYSTEM}\n\nThe server's instructions:\n{self.client.instructions or ''}"},
            {"role": "user", "content": _opening(self.seat)},
        ]
        while True:
            over = self._over_bound()
            if over:
                return Decision(forfeit=over)
            try:
                reply = await self._ask(conversation, tools)
            except CallsFailed as failed:
                return Decision(forfeit=self.agent.caller.tally.lost(failed))
            step: dict[str, Any] = {"reply": reply.text, "calls": []}
            self.record["steps"].append(step)
            calls = [c for c in reply.tool_calls if c.get("type", "function") == "function"]
            if not calls:
                if self.action is not None or not self.move_open:
                    return self._done()
                self._count("idle_replies")
                conversation += [
                    {"role": "assistant", "content": reply.text},
                    {"role": "user", "content": "Your move is still open: make it with perform_action."},
                ]
                continue
            conversation.append(_assistant(reply.text, calls))
            for call in calls:
                over = self._over_bound()
                if over:
                    return Decision(forfeit=over)
                ended = await self._run(call, step, conversation)
                if ended:
                    return self._done()

    def _over_bound(self) -> str | None:
        """Why the seat must forfeit now, if a bound is reached (an idle reply counts as a call)."""
        agent = self.agent
        if self.record["tool_calls"] + self.record["idle_replies"] >= agent.max_calls_per_turn:
            return f"{agent.name} reached its bound of {agent.max_calls_per_turn} tool calls this turn without a move"
        if agent.calls >= agent.max_calls:
            return f"{agent.name} used all {agent.max_calls} tool calls of the match"
        return None

    def _count(self, what: str = "tool_calls") -> None:
        self.record[what] += 1
        self.agent.calls += 1

    async def _ask(self, conversation: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        agent = self.agent
        request: dict[str, Any] = {"messages": conversation, "tools": tools, "temperature": agent.temperature}
        if agent.max_tokens is not None:
            request["max_tokens"] = agent.max_tokens
        draw = agent.seed if agent.temperature > 0 else None
        reply = await agent.caller.complete(request, None, draw=draw)
        record = self.record
        record["requests"] += 1
        record["seconds"] = round(record["seconds"] + reply.seconds, 6)
        for kind, tokens in reply.usage.items():
            record["usage"][kind] = record["usage"].get(kind, 0) + tokens
        return reply

    async def _run(self, call: dict[str, Any], step: dict[str, Any], conversation: list[dict[str, Any]]) -> bool:
        """Run one tool call and feed its result back; whether the seat's turn is over."""
        self._count()
        function = call.get("function") or {}
        name, text = str(function.get("name")), function.get("arguments") or "{}"
        arguments = _arguments(name, text)
        code: str | None
        body: dict[str, Any] = {}
        if isinstance(arguments, NegotiationError):
            result_text, code = json.dumps(arguments.to_dict()), arguments.code.value
        else:
            result = await self.client.call_tool(name, arguments, read_timeout_seconds=READ_TIMEOUT_SECONDS)
            result_text, code, body = _result(result)
        step["calls"].append({"tool": name, "arguments": _redacted(arguments, text, self.seat.token), "refusal": code})
        conversation.append({"role": "tool", "tool_call_id": call.get("id"), "content": result_text})
        if code is not None:
            self.refusals[code] += 1
            self.record["refusals"] = dict(self.refusals)
            self.overtaken = code in OVERTAKEN
            return self.overtaken
        if name not in MOVES or not isinstance(arguments, dict):
            return False
        if name == "perform_action":
            self.action = (str(arguments.get("action_type")), dict(arguments.get("payload") or {}))
        else:
            self.messages.append(OutgoingMessage(str(arguments.get("content")), arguments.get("to")))
        self.move_open = bool(body.get("your_turn")) and body.get("status") == "running"
        return not self.move_open

    def _done(self) -> Decision:
        """What the seat did this turn, done already; nothing done (and not overtaken) is a pass."""
        action, payload = self.action or (None, {})
        performed = self.overtaken or action is not None or bool(self.messages)
        return Decision(messages=self.messages, action=action, payload=payload, performed=performed)


def _serve_in_memory(arena: Arena) -> MCPServer:
    """An MCP server over an in-process arena, leaving the arena's own house seats (if any) in charge."""
    house_driver = arena.house_driver
    server = build_server(arena, HouseSeats(arena))
    arena.house_driver = house_driver
    return server


async def _tools(client: Client) -> list[dict[str, Any]]:
    """The server's tools as OpenAI functions: name, description, and the input schema as parameters."""
    tools, cursor = [], None
    while True:
        listed = await client.list_tools(cursor=cursor)
        tools += [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description or "", "parameters": t.input_schema},
            }
            for t in listed.tools
        ]
        cursor = listed.next_cursor
        if cursor is None:
            return tools


def _opening(seat: SeatInPlay) -> str:
    you = {"match_id": seat.match_id, "token": seat.token, "agent_id": seat.agent_id}
    return (
        f"It is your turn. Your seat: {json.dumps(you)}. Keep the token secret. "
        "Look at the match with get_turn_state, then make your move."
    )


def _assistant(content: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content or None,
        "tool_calls": [
            {"id": c.get("id"), "type": "function", "function": dict(c.get("function") or {})} for c in calls
        ],
    }


def _arguments(name: str, text: str) -> dict[str, Any] | NegotiationError:
    """The model's arguments as an object, or the refusal an MCP server would give unreadable ones."""
    try:
        arguments = json.loads(text)
    except json.JSONDecodeError as exc:
        return NegotiationError(ErrorCode.INVALID_ARGUMENT, f"The arguments of {name} are not JSON ({exc}).")
    if not isinstance(arguments, dict):
        return NegotiationError(ErrorCode.INVALID_ARGUMENT, f"The arguments of {name} must be a JSON object.")
    return arguments


def _result(result: CallToolResult) -> tuple[str, str | None, dict[str, Any]]:
    """(the text the model sees, the refusal code or None, the structured answer) of a tool call."""
    text = "".join(getattr(block, "text", "") for block in result.content)
    body: dict[str, Any] = dict(result.structured_content or {})
    if not result.is_error:
        return text, None, body
    error: Any = body.get("error")
    if not isinstance(error, dict):
        try:
            error = json.loads(text).get("error")
        except (json.JSONDecodeError, AttributeError):
            error = None
    code = error.get("code") if isinstance(error, dict) else None
    return text, str(code) if code else "tool_error", body


def _redacted(arguments: dict[str, Any] | NegotiationError, text: str, token: str) -> Any:
    """The call's arguments as kept in the transcript: the seat's token never is."""
    if isinstance(arguments, NegotiationError):
        return text.replace(token, "<token>")
    return {k: "<token>" if k == "token" and v == token else v for k, v in arguments.items()}


def _outcome(decision: Decision) -> str:
    if decision.forfeit is not None:
        return "forfeit"
    return "moved" if decision.action is not None else "talked" if decision.messages else "passed"


def totals(transcript: list[dict[str, Any]]) -> dict[str, Any]:
    """A match's sums over an mcp-llm transcript: turns, model requests, tool calls, idle replies,
    refusals by code, forfeits, tokens and seconds waited on the model."""
    refusals: Counter[str] = Counter()
    usage: Counter[str] = Counter()
    for entry in transcript:
        refusals.update(entry.get("refusals", {}))
        usage.update(entry.get("usage", {}))
    return {
        "turns": len(transcript),
        "requests": sum(entry.get("requests", 0) for entry in transcript),
        "tool_calls": sum(entry.get("tool_calls", 0) for entry in transcript),
        "idle_replies": sum(entry.get("idle_replies", 0) for entry in transcript),
        "refusals": dict(refusals),
        "forfeits": sum(entry.get("outcome") == "forfeit" for entry in transcript),
        "usage": dict(usage),
        "seconds": round(sum(entry.get("seconds", 0.0) for entry in transcript), 6),
    }
