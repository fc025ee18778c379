"""`mcp-llm:MODEL`: a chat model that plays its seat as an MCP client, by calling the arena's MCP tools.

Where `llm:MODEL` is handed the turn state and answers with a JSON move, this agent plays the way
Claude or Cursor do: it gives the model its seat's tools as functions (OpenAI tool calling), runs
each tool call the model makes (get_turn_state, perform_action, send_public_message, ...) against
the server and feeds the result back as a `tool` message. A refusal comes back as any MCP client
sees it: the arena's `{"error": {code, message, details}}`.

The seat is a sandbox (`seat_tools`): the model reads opponents' text, so it may be steered. It is
offered only its seat's tools, without `match_id` or `token` (filled in here from the seat the
drivers hand over, `driver.seat_in_play()`), and is never told the token; an unknown tool, an extra
argument or an argument carrying the token is refused before anything is sent.
The MCP session: through an MCP connection (`play --via mcp`, `--via http://HOST:PORT/mcp`) the
model's calls go through that same session to that server; with an in-process arena (`play`
without `--via`, tournaments) the agent serves that arena over MCP in memory for the turn (the
SDK's JSON-RPC memory streams, handshake included). Each turn is a fresh conversation.

Bounds: at most `max_calls_per_turn` tool calls in one turn and `max_calls` in the match (an
idle reply, one that calls no tool while the move is open, counts as one: the model is told the
move is still open), and no request once the model's reported tokens (prompt and completion) reach
`max_tokens_per_turn` or `max_tokens_per_match` (the calls of the reply that reached it still run).
Past any bound the seat forfeits its move with that reason (only a host arena can play the
default move: through a remote connection the match stops). `transcript` keeps one entry per
turn: the tool calls (token redacted) with the refusal code of each, idle replies, the model's
requests with their token usage and latency, the bound that stopped the seat (`stopped_by`), and
its texts; `totals(transcript)` sums a match.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import Client
from mcp.server import Server
from mcp.types import CallToolResult

from negotiation_mcp.client import READ_TIMEOUT_SECONDS, McpArena
from negotiation_mcp.mcp_llm_options import McpLlmOptions
from negotiation_mcp.seat_tools import SeatBinding, model_tools
from negotiation_mcp.server import build_server
from negotiation_platform.agents.base import Decision, OutgoingMessage
from negotiation_platform.agents.chat_options import read_options
from negotiation_platform.agents.driver import seat_in_play
from negotiation_platform.agents.llm_calls import CallsFailed, Reply
from negotiation_platform.arena import Arena, ArenaApi
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats

SYSTEM = (
    "You are a negotiator playing one seat of a match on a negotiation arena, through its tools; every "
    "tool acts for your seat. On your turn, read the situation and the rules with get_turn_state, "
    "then make exactly one move with perform_action (a public message first with "
    "send_public_message, or a private one with send_private_message, if the phase allows). "
    'A refused call answers {"error": {...}} saying what was wrong: fix the call and try again.'
)
MOVES = {"perform_action", "send_public_message", "send_private_message"}
"""Tools that change the match: after each, the arena says whether the turn is still the seat's."""
OVERTAKEN = {ErrorCode.NOT_YOUR_TURN.value, ErrorCode.MATCH_OVER.value}
"""Refusals that mean the turn has passed (a clock ran out): the turn ends there."""
_REACHED = {
    "max_calls_per_turn": "reached its bound of {bound} tool calls this turn without a move",
    "max_calls": "used all {bound} tool calls of the match",
    "max_tokens_per_turn": "reached its budget of {bound} tokens this turn without a move",
    "max_tokens_per_match": "used all {bound} tokens of its budget for the match",
}
"""Why a seat forfeits, by the option whose bound it reached."""


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
        self.max_tokens_per_turn = settings.max_tokens_per_turn
        self.max_tokens_per_match = settings.max_tokens_per_match
        self.caller = settings.caller(target)
        self.transcript: list[dict[str, Any]] = []
        self.calls = 0
        """Tool calls (and replies that called none) so far in the match, against `max_calls`."""
        self.tokens = 0
        """Tokens the model reported so far in the match (prompt and completion), against `max_tokens_per_match`."""
        self._served: tuple[Arena, Server[object]] | None = None

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
            "tokens": 0,
            "seconds": 0.0,
            "steps": [],
        }
        self.transcript.append(record)
        failure: Exception | None = None
        async with self._session(seat.arena) as client:
            try:
                binding = SeatBinding(seat, str(turn.get("game_id", "")))
                decision = await _Turn(self, binding, client, record, bool(turn.get("allowed_actions"))).play()
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
        self, agent: McpLlmAgent, seat: SeatBinding, client: Client, record: dict[str, Any], move_open: bool
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
        tools = model_tools()
        conversation: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": _opening(self.seat)},
        ]
        while True:
            over = self._over_bound(asking=True)
            if over:
                return Decision(forfeit=over)
            try:
                reply = await self._ask(conversation, tools)
            except CallsFailed as failed:
                return Decision(forfeit=self.agent.caller.tally.lost(failed))
            step: dict[str, Any] = {"reply": self.seat.redact(reply.text), "calls": []}
            self.record["steps"].append(step)
            calls = [c for c in reply.tool_calls if c.get("type", "function") == "function"]
            if not calls:
                if self.action is not None or not self.move_open:
                    return self._done()
                self._count("idle_replies")
                conversation += [
                    _assistant(self.seat, reply.text, []),
                    {"role": "user", "content": "Your move is still open: make it with perform_action."},
                ]
                continue
            conversation.append(_assistant(self.seat, reply.text, calls))
            for call in calls:
                over = self._over_bound(asking=False)
                if over:
                    return Decision(forfeit=over)
                ended = await self._run(call, step, conversation)
                if ended:
                    return self._done()

    def _over_bound(self, *, asking: bool) -> str | None:
        """Why the seat must forfeit now, if a bound is reached (an idle reply counts as a call; the token
        budgets bound the requests, `asking`), recording the bound as `stopped_by`."""
        agent, record = self.agent, self.record
        bounds = [
            ("max_calls_per_turn", record["tool_calls"] + record["idle_replies"], agent.max_calls_per_turn),
            ("max_calls", agent.calls, agent.max_calls),
        ]
        if asking:
            bounds += [
                ("max_tokens_per_turn", record["tokens"], agent.max_tokens_per_turn),
                ("max_tokens_per_match", agent.tokens, agent.max_tokens_per_match),
            ]
        for option, used, bound in bounds:
            if used >= bound:
                record["stopped_by"] = option
                return f"{agent.name} {_REACHED[option].format(bound=bound)}"
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
        spent = reply.usage.get("prompt_tokens", 0) + reply.usage.get("completion_tokens", 0)
        record["tokens"] += spent
        agent.tokens += spent
        return reply

    async def _run(self, call: dict[str, Any], step: dict[str, Any], conversation: list[dict[str, Any]]) -> bool:
        """Run one tool call and feed its result back; whether the seat's turn is over."""
        self._count()
        function = call.get("function") or {}
        name, text = str(function.get("name")), function.get("arguments") or "{}"
        code: str | None
        body: dict[str, Any] = {}
        bound: dict[str, Any] = {}
        try:
            bound = self.seat.bind(name, text)
        except NegotiationError as refused:  # nothing is sent
            result_text, code = json.dumps(refused.to_dict()), refused.code.value
        else:
            result = await self.client.call_tool(name, bound, read_timeout_seconds=READ_TIMEOUT_SECONDS)
            result_text, code, body = _result(result)
        step["calls"].append({"tool": name, "arguments": _redacted(self.seat, text), "refusal": code})
        conversation.append({"role": "tool", "tool_call_id": call.get("id"), "content": self.seat.redact(result_text)})
        if code is not None:
            self.refusals[code] += 1
            self.record["refusals"] = dict(self.refusals)
            self.overtaken = code in OVERTAKEN
            return self.overtaken
        if name not in MOVES:
            return False
        if name == "perform_action":
            self.action = (str(bound.get("action_type")), dict(bound.get("payload") or {}))
        else:
            self.messages.append(OutgoingMessage(str(bound.get("content")), bound.get("to")))
        self.move_open = bool(body.get("your_turn")) and body.get("status") == "running"
        return not self.move_open

    def _done(self) -> Decision:
        """What the seat did this turn, done already; nothing done (and not overtaken) is a pass."""
        action, payload = self.action or (None, {})
        performed = self.overtaken or action is not None or bool(self.messages)
        return Decision(messages=self.messages, action=action, payload=payload, performed=performed)


def _serve_in_memory(arena: Arena) -> Server[object]:
    """An MCP server over an in-process arena, leaving the arena's own house seats (if any) in charge."""
    house_driver = arena.house_driver
    server = build_server(arena, HouseSeats(arena))
    arena.house_driver = house_driver
    return server


def _opening(seat: SeatBinding) -> str:
    return (
        f"It is your turn: you play {json.dumps(seat.agent_id)} in a match of {json.dumps(seat.game_id)}. "
        "Look at the match with get_turn_state, then make your move."
    )


def _assistant(seat: SeatBinding, content: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The model's reply as the conversation repeats it to the model: never with the seat's token."""
    said: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        said["content"] = content or None
        said["tool_calls"] = [
            {"id": c.get("id"), "type": "function", "function": dict(c.get("function") or {})} for c in calls
        ]
    redacted: dict[str, Any] = json.loads(seat.redact(json.dumps(said)))
    return redacted


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


def _redacted(seat: SeatBinding, text: str) -> Any:
    """The call's arguments as kept in the transcript (their text where it is not JSON): never the token."""
    kept = seat.redact(text)
    try:
        return json.loads(kept)
    except json.JSONDecodeError:
        return kept


def _outcome(decision: Decision) -> str:
    if decision.forfeit is not None:
        return "forfeit"
    return "moved" if decision.action is not None else "talked" if decision.messages else "passed"


def totals(transcript: list[dict[str, Any]]) -> dict[str, Any]:
    """A match's sums over an mcp-llm transcript: turns, model requests, tool calls, idle replies,
    refusals by code, forfeits and the bounds that stopped the seat (by option), tokens (by kind, and
    the prompt and completion ones the budgets count) and seconds waited on the model."""
    refusals: Counter[str] = Counter()
    usage: Counter[str] = Counter()
    stopped: Counter[str] = Counter()
    for entry in transcript:
        refusals.update(entry.get("refusals", {}))
        usage.update(entry.get("usage", {}))
        if "stopped_by" in entry:
            stopped[entry["stopped_by"]] += 1
    return {
        "turns": len(transcript),
        "requests": sum(entry.get("requests", 0) for entry in transcript),
        "tool_calls": sum(entry.get("tool_calls", 0) for entry in transcript),
        "idle_replies": sum(entry.get("idle_replies", 0) for entry in transcript),
        "refusals": dict(refusals),
        "forfeits": sum(entry.get("outcome") == "forfeit" for entry in transcript),
        "stopped_by": dict(stopped),
        "usage": dict(usage),
        "tokens": sum(entry.get("tokens", 0) for entry in transcript),
        "seconds": round(sum(entry.get("seconds", 0.0) for entry in transcript), 6),
    }
