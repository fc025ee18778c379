"""A2A clients: `A2aArena` plays through an arena served over A2A; `RemoteA2aAgent` seats a remote agent.

`RemoteA2aAgent` is an `Agent` whose decisions come from an A2A peer: on its turn the arena sends
the peer the turn state (as data and as the game's prompt text) within one A2A context per
match, and reads the reply (a data part with `action_type` and `payload`, or text holding JSON,
read with the games' tolerant parser). A reply that cannot be read, or a move the arena refuses,
is sent back to the peer with the refusal, and it may try again (`MAX_TRIES` answers per turn,
all within `reply_seconds`); after that, or when it is late or unreachable, the driver plays the
spec's default action and the true reason goes into the event log.

On a served arena the agent is given the server's allow-list, and contacts nothing outside it: the
card is read only from an allowed URL, a card that names an endpoint outside the list is refused,
and every request (redirects are never followed) is checked just before it is sent.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig
from a2a.types import AgentCard, Message

from negotiation_a2a import wire
from negotiation_platform.agents.base import Decision, OutgoingMessage
from negotiation_platform.arena import MAX_WAIT_SECONDS
from negotiation_platform.catalogue.remote import RemoteArena
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games.json_response import extract_action
from negotiation_platform.wire.allowlist import AllowList, UrlRefused

log = logging.getLogger(__name__)
REPLY_SECONDS = 30.0
"""How long a remote agent may think, over all its tries at one turn, before its move is forfeited."""
MAX_TRIES = 3
"""Answers a remote agent may give for one turn (unreadable or refused ones included)."""
CALL_SECONDS = MAX_WAIT_SECONDS + 30.0

MOVE_FORMAT = (
    'Answer with a data part {"action_type": NAME, "payload": {...}, "messages": [{"content": TEXT, "to": null}]} '
    "or with text holding the JSON object of your action."
)


class A2aArena(RemoteArena):
    """Implements `ArenaApi` by sending operations to an arena served over A2A, in one context."""

    def __init__(self, client: Any, context_id: str | None = None) -> None:
        self.client = client
        self.context_id = context_id or uuid.uuid4().hex

    async def call(self, operation: str, **arguments: Any) -> dict[str, Any]:
        args = {k: v for k, v in arguments.items() if v is not None}
        request = wire.structured({"operation": operation, "arguments": args})
        answer = await wire.ask(self.client, request, self.context_id, CALL_SECONDS)
        self.context_id = answer.context_id or self.context_id  # continue in the reply's context: a new seat's
        found = [d for d in wire.values_of(answer) if isinstance(d, dict)]
        if not found:
            raise RuntimeError(f"the arena answered without data: {wire.text_of(answer)!r}")
        result: dict[str, Any] = found[0]
        if "error" in result:
            error = result["error"]
            raise NegotiationError(ErrorCode(error["code"]), error["message"], **error.get("details", {}))
        return result


@asynccontextmanager
async def connect(url: str, http: httpx.AsyncClient | None = None) -> AsyncIterator[A2aArena]:
    """An `A2aArena` for the arena agent at `url` (its card is read from /.well-known/agent-card.json)."""
    async with _http(http) as client_http:
        client = await wire.open_client(url, ClientConfig(httpx_client=client_http, streaming=False))
        try:
            yield A2aArena(client)  # type: ignore[abstract]  # its ArenaApi methods are set from the catalogue
        finally:
            await client.close()


@asynccontextmanager
async def _http(given: httpx.AsyncClient | None) -> AsyncIterator[httpx.AsyncClient]:
    if given is not None:
        yield given
        return
    async with httpx.AsyncClient(timeout=httpx.Timeout(CALL_SECONDS)) as fresh:
        yield fresh


def read_move(answer: Message) -> Decision | None:
    """The move in a remote agent's reply, or None when none can be read."""
    try:
        values = wire.values_of(answer)
    except wire.Unreadable:
        return None
    for part in values:
        if isinstance(part, dict) and ("action_type" in part or "type" in part):
            return _decision(part)
    action = extract_action(wire.text_of(answer))
    return None if action is None else _decision(action)


def _decision(raw: dict[str, Any]) -> Decision | None:
    action = raw.get("action_type", raw.get("type"))
    payload = raw.get("payload")
    if payload is None:
        payload = {k: v for k, v in raw.items() if k not in ("action_type", "type", "messages")}
    messages = raw.get("messages") or []
    if (action is not None and not isinstance(action, str)) or not isinstance(payload, dict):
        return None
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages
    ):
        return None
    outgoing = [OutgoingMessage(m["content"], m.get("to")) for m in messages]
    return Decision(messages=outgoing, action=action, payload=payload)


class RemoteA2aAgent:
    """A seat played by a remote A2A agent; one A2A context per match."""

    def __init__(
        self,
        seed: int = 0,
        name: str = "a2a",
        target: str = "",
        reply_seconds: float = REPLY_SECONDS,
        allow: AllowList | None = None,
    ) -> None:
        if not target.startswith(("http://", "https://")):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"a2a agents need an http(s) URL, got {target!r}")
        self.name = name
        self.target = target
        self.reply_seconds = reply_seconds
        self.allow = allow
        """The URLs this seat may contact (a served arena's allow-list); None: any."""
        self.context_id = uuid.uuid4().hex
        self._card: AgentCard | None = None
        self._tries = 0
        self._turn_ends = 0.0
        self._failure = "illegal move"

    async def decide(self, turn: dict[str, Any]) -> Decision:
        refusal = turn.get("refusal")
        if refusal is None:  # a new turn: a fresh budget of tries and time
            self._tries = 0
            self._turn_ends = time.monotonic() + self.reply_seconds
        while True:
            if refusal is not None and self._tries >= MAX_TRIES:
                return Decision(forfeit=f"{self._failure}: {refusal['error']['message']} ({self._tries} tries)")
            self._tries += 1
            answer = await self._ask(turn, refusal)
            if isinstance(answer, Decision):
                return answer
            move = read_move(answer)
            if move is not None:
                self._failure = "illegal move"  # if the arena refuses it, that is why
                return move
            self._failure = "malformed reply"
            refusal = NegotiationError(ErrorCode.INVALID_ARGUMENT, "No move could be read from your reply.").to_dict()

    async def _ask(self, turn: dict[str, Any], refusal: dict[str, Any] | None) -> Message | Decision:
        """The peer's reply to the turn (and to the refusal of its last try), or the forfeit that replaces it."""
        left = self._turn_ends - time.monotonic()
        if left <= 0:
            return Decision(forfeit=f"late reply: no move within {self.reply_seconds:g} s")
        state = {**turn, "refusal": refusal} if refusal is not None else turn
        told = f"\n\nYour last answer was refused: {refusal['error']['message']}" if refusal is not None else ""
        parts = [*wire.structured({"turn_state": state}), wire.text(f"{turn.get('prompt', '')}{told}\n\n{MOVE_FORMAT}")]
        try:
            async with guarded_http(self.allow, left + 5) as http:
                if self._card is None:  # read the card once per match
                    self._card = allowed_card(await A2ACardResolver(http, self.target).get_agent_card(), self.allow)
                client = await wire.open_client(self._card, ClientConfig(httpx_client=http, streaming=False))
                return await wire.ask(client, parts, self.context_id, left)
        except TimeoutError:
            return Decision(forfeit=f"late reply: no move within {self.reply_seconds:g} s")
        except Exception as exc:
            refused = _refusal(exc)
            if refused is not None:
                log.warning("remote agent %s: not contacted: %s", self.target, refused)
                return Decision(forfeit=f"forbidden URL: {refused}")
            return Decision(forfeit=f"unreachable agent: {type(exc).__name__}")


def guarded_http(allow: AllowList | None, seconds: float) -> httpx.AsyncClient:
    """An HTTP client that follows no redirect and sends nothing to a URL `allow` refuses (None: any)."""

    async def check(request: httpx.Request) -> None:
        if allow is not None:
            allow.check(str(request.url))

    return httpx.AsyncClient(timeout=httpx.Timeout(seconds), follow_redirects=False, event_hooks={"request": [check]})


def allowed_card(card: AgentCard, allow: AllowList | None) -> AgentCard:
    """`card`, once every endpoint it names is allowed: a card must not send the arena elsewhere."""
    if allow is not None:
        for interface in card.supported_interfaces:
            why = allow.refusal(interface.url)
            if why is not None:
                raise UrlRefused(f"its agent card names an endpoint outside the allow-list: {why}")
    return card


def _refusal(exc: BaseException | None) -> str | None:
    """The allow-list's refusal behind `exc` (the SDK may wrap it), if that is what failed."""
    while exc is not None:
        if isinstance(exc, UrlRefused):
            return str(exc)
        exc = exc.__cause__ or exc.__context__
    return None
