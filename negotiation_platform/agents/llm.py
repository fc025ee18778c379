"""`llm:MODEL`: an agent that asks a chat model through any OpenAI-compatible chat-completions endpoint.

It plays any game from the turn state alone: the game's prompt, the legal actions with their
payload JSON Schemas, the messaging allowance and, after a refusal, the arena's error. The model
answers with one JSON object {"action_type": NAME, "payload": {...}, "message": optional text}: perform_action's
arguments, as the games' prompts show them, plus a public message. JSON mode
(`response_format={"type": "json_object"}`) is asked for and dropped for good if the endpoint
refuses it. An unreadable reply is answered with what was wrong, up to `max_replies` times per
decision; a move the arena refuses comes back through the driver with the refusal, up to
`max_refusals` times per turn; past either bound the agent forfeits its move (the game's default
action is played, the reason logged). Calls go through `llm_calls.Caller`: retried on 429, 5xx and
timeouts, limited per endpoint, bounded by the move's deadline, optionally cached on disk
(`llm_cache`); a move whose calls all fail is forfeited too, and counted as lost to the endpoint
(`caller.tally`: a tournament marks the match, see `llm_failures`). Every raw reply is kept in
`transcript` with its token usage and latency (the tournament stores it per seat and totals it).

Needs the `llm` extra (`openai`). The endpoint comes from `base_url`/`api_key` options or the
environment (OPENAI_BASE_URL, OPENAI_API_KEY). Sampled replies (temperature > 0) are cached only
with `cache_sampled`: a cache would otherwise replay one sample for ever.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from pydantic import Field

from negotiation_platform.agents.base import Decision, OutgoingMessage
from negotiation_platform.agents.chat_options import EndpointOptions, read_options
from negotiation_platform.agents.llm_calls import CallsFailed, JsonModeRefused, Reply
from negotiation_platform.agents.turns import allowed_actions, messaging, refusal_error, seen_events
from negotiation_platform.arena.turn_state import TurnState
from negotiation_platform.errors import ErrorCode, NegotiationError

SYSTEM = (
    "You are a negotiator playing a game against other agents. Each turn you get the situation and the moves "
    "you may make now. Reply with exactly one JSON object and nothing else: "
    '{"action_type": "<one allowed action name, or null to only talk>", "payload": {<fields matching that action\'s '
    'payload_schema>}, "message": "<optional text the other players will read>"}.'
)
FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


class LLMAgentOptions(EndpointOptions):
    """The `llm:` agent's options: the endpoint's (see `EndpointOptions`) and these.

    Attributes:
        max_replies: unusable replies (no JSON, no legal action) per move before it is forfeited.
        max_refusals: moves the arena refuses in a row before the next one is forfeited.
        json_mode: ask for `response_format={"type": "json_object"}` (dropped if the endpoint refuses it).
        move_seconds: the most one move's calls may take, retries included (None: no bound but the
            turn clock, whose default move comes after the turn state's `deadline_seconds`).
    """

    max_replies: int = Field(3, ge=1, le=100)
    max_refusals: int = Field(3, ge=0, le=100)
    json_mode: bool = True
    move_seconds: float | None = Field(None, gt=0.0, le=3600.0)


class LLMAgent:
    """Plays any game by asking an OpenAI-compatible chat model for a JSON move.

    `options` are `LLMAgentOptions`' fields, also the `--agent-config` keys of `negotiation-platform
    tournament` and `play`; a key not among them is refused before the first match.

    Args:
        seed: the seat's seed (set by the tournament; used for nothing the endpoint sees).
        name: the seat's name.
        target: the model, as in `llm:MODEL`.
        **options: see `LLMAgentOptions`.
    """

    needs_target = True
    """Named as `llm:MODEL`: the kind alone is not a playable agent."""
    bills_tokens = True
    """Its transcript reports token usage: a tournament's price table must price its model."""
    spends_operator_budget = True
    """It calls the server's endpoint with the operator's key: only the operator seats one (see `seating`)."""
    Options = LLMAgentOptions

    def __init__(self, seed: int = 0, name: str = "llm", target: str = "", **options: object) -> None:
        if not target:
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "llm agents need a model: llm:MODEL.")
        settings = read_options(LLMAgentOptions, "llm", options)
        self.name = name
        self.model = target
        self.seed = seed
        self.temperature = settings.temperature
        self.max_replies = settings.max_replies
        self.max_refusals = settings.max_refusals
        self.json_mode = settings.json_mode
        self.max_tokens = settings.max_tokens
        self.move_seconds = settings.move_seconds
        self.transcript: list[dict[str, object]] = []
        """One entry per reply asked for: the raw reply, what was wrong with it, its usage and latency."""
        self._refusals = 0
        self.caller = settings.caller(target)
        """Its calls to the endpoint; `caller.tally` counts the moves and calls the endpoint cost it."""

    async def decide(self, turn: dict[str, Any]) -> Decision:
        self.caller.tally.moves += 1
        self._refusals, forfeit = refusal_forfeit(self._refusals, self.max_refusals, turn)
        if forfeit is not None:
            return forfeit
        deadline = move_deadline(self.move_seconds, turn.get("deadline_seconds"))

        async def ask(conversation: Sequence[Mapping[str, object]]) -> tuple[str, dict[str, object]]:
            reply = await self._complete(conversation, deadline)
            details = {"usage": reply.usage, "seconds": reply.seconds, "tries": reply.tries}
            return reply.text, {**details, "cache_hit": reply.cache_hit}

        try:
            return await converse(turn, self.max_replies, ask, self.transcript)
        except CallsFailed as failed:
            self.transcript.append({**where(turn), "reply": None, "problem": f"endpoint: {failed}"})
            return Decision(forfeit=self.caller.tally.lost(failed))

    async def _complete(self, conversation: Sequence[Mapping[str, object]], deadline: float | None) -> Reply:
        request: dict[str, object] = {"messages": conversation, "temperature": self.temperature}
        if self.max_tokens is not None:
            request["max_tokens"] = self.max_tokens
        draw = self.seed if self.temperature > 0 else None  # a sample is this seat's, not every seed's
        if self.json_mode:
            try:
                return await self.caller.complete(
                    {**request, "response_format": {"type": "json_object"}}, deadline, draw=draw
                )
            except JsonModeRefused:
                self.json_mode = False  # the endpoint does not do JSON mode: ask plainly from now on
        return await self.caller.complete(request, deadline, draw=draw)


Ask = Callable[[Sequence[Mapping[str, object]]], Awaitable[tuple[str, dict[str, object]]]]
"""Asks a model for its reply to a conversation: (the reply's text, what to record beside it)."""


def where(turn: Mapping[str, object]) -> dict[str, object]:
    """The round and phase a transcript entry belongs to."""
    return {"round": turn.get("round"), "phase": turn.get("phase")}


def refusal_forfeit(refusals: int, max_refusals: int, turn: Mapping[str, object]) -> tuple[int, Decision | None]:
    """The count of moves refused in a row with this turn's, and the forfeit once it passes `max_refusals`."""
    refusals = refusals + 1 if turn.get("refusal") else 0
    if refusals <= max_refusals:
        return refusals, None
    why = (refusal_error(turn) or {}).get("message", "")
    return refusals, Decision(forfeit=f"{max_refusals} refused moves in a row: {why}")


async def converse(
    turn: Mapping[str, object], max_replies: int, ask: Ask, transcript: list[dict[str, object]]
) -> Decision:
    """One move of a chat model: the system message and `situation`, then, after each unusable reply,
    what was wrong with it, up to `max_replies` replies (each recorded in `transcript`) before the
    move is forfeited. Shared by every agent that reads the game as an `llm:` agent does."""
    conversation: list[dict[str, object]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": situation(turn)},
    ]
    problem = ""
    for _ in range(max_replies):
        text, details = await ask(conversation)
        decision, problem = read_reply(text, turn)
        transcript.append({**where(turn), "reply": text, "problem": problem or None, **details})
        if decision is not None:
            return decision
        conversation += [
            {"role": "assistant", "content": text},
            {"role": "user", "content": f"That reply was not usable: {problem} Reply with one JSON object only."},
        ]
    return Decision(forfeit=f"{max_replies} unusable replies: {problem}")


def move_deadline(move_seconds: float | None, clock_seconds: float | None) -> float | None:
    """When this move's calls must be done (a `time.monotonic()` instant): within `move_seconds`, and
    before the turn clock plays the seat's default move, with a quarter of the clock (at most a
    second) kept to forfeit in (None: neither bounds it)."""
    bounds = [move_seconds] if move_seconds is not None else []
    if clock_seconds is not None:
        bounds.append(max(0.0, clock_seconds - min(1.0, clock_seconds / 4)))
    return time.monotonic() + min(bounds) if bounds else None


def situation(turn: Mapping[str, object]) -> str:
    """The user message: the game's prompt, the legal actions with schemas, messaging, the other players'
    messages among the turn's new events, and any refusal."""
    actions = [
        {"name": a["name"], "description": a["description"], "payload_schema": a["payload_schema"]}
        for a in allowed_actions(turn).values()
    ]
    parts = [
        str(turn.get("prompt") or f"You play {turn.get('game_id')}."),
        f"You are {turn.get('agent_id')}; players: {turn.get('players')}. Round {turn.get('round')} of "
        f"{turn.get('rounds')}, phase {turn.get('phase')}.",
        "Allowed actions now: " + json.dumps(actions),
        "You may also send a public message this turn."
        if messaging(turn).get("public")
        else "Messages are closed this turn.",
    ]
    said = [
        f"{e['actor']}{' (to you)' if e['data'].get('to') else ''}: {e['data']['content']}"
        for e in seen_events(turn)
        if e["kind"] == "message" and e["actor"] != turn.get("agent_id")
    ]
    if said:
        parts.append("Messages since your last turn:\n" + "\n".join(said))
    happened = turn.narration() if isinstance(turn, TurnState) else []
    if happened:
        parts.append("What happened since your last turn:\n" + "\n".join(f"- {line}" for line in happened))
    if not actions:
        parts.append('No action is open: reply {"action_type": null, "message": "..."} to talk.')
    error = refusal_error(turn)
    if error is not None:
        parts.append(f"Your previous move was refused by the arena: {json.dumps(error)}. Fix it.")
    return "\n\n".join(parts)


def read_reply(text: str, turn: Mapping[str, object]) -> tuple[Decision | None, str]:
    """(the decision, "") from a model reply, or (None, what is wrong with it)."""
    fenced = FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        return None, "it contains no JSON object."
    try:
        reply = json.loads(body[start : end + 1])
    except json.JSONDecodeError as exc:
        return None, f"its JSON does not parse ({exc})."
    if not isinstance(reply, dict):
        return None, "it is not a JSON object."
    allowed = set(allowed_actions(turn))
    action, payload, message = reply.get("action_type"), reply.get("payload") or {}, reply.get("message")
    if action is not None and action not in allowed:
        return None, f"action {action!r} is not one of the allowed actions {sorted(allowed)}."
    if not isinstance(payload, dict):
        return None, "payload must be a JSON object."
    talk = isinstance(message, str) and message.strip() and messaging(turn).get("public")
    messages = [OutgoingMessage(str(message).strip())] if talk else []
    if action is None and not messages:
        return None, "it names no allowed action and sends no message."
    return Decision(messages=messages, action=action, payload=payload if action else {}), ""
