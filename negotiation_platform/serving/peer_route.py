"""The HTTP route at which an arena process takes the calls its peers forward to it (`POST /peer/operation`,
see `negotiation_platform.arena.forwarding`), served beside a transport's app only when the process
has a peer secret.

A request is run only if it is signed with that secret, is at most `MAX_SKEW_SECONDS` old and has
not been seen before: the signature is compared in constant time, and neither the secret nor a
signature is ever logged or echoed. Its body is bounded like every HTTP body here (`limit_body`).
The call runs as its original caller (so per-caller limits count it there) and is never forwarded
again; the answer is `{"result": ...}` or the arena's `{"error": ...}`, with status 200 either way.
"""

from __future__ import annotations

import hmac
import json
import math
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from negotiation_platform.arena.forwarding import (
    HOP,
    MAX_SKEW_SECONDS,
    PEER_PATH,
    SIGNATURE_HEADER,
    TIME_HEADER,
    ForwardedCall,
    decode,
    signature,
)
from negotiation_platform.arena.limits import Caller
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.network.exposure import Asgi, Receive, Scope, Send, limit_body, refuse
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.serving.operations import run_operation

if TYPE_CHECKING:
    from negotiation_platform.arena.arena import Arena

MAX_REMEMBERED = 100_000
"""Signatures remembered against replays (each for MAX_SKEW_SECONDS at most); the oldest go first."""
UNSIGNED = NegotiationError(ErrorCode.FORBIDDEN, "This route takes only calls signed by a peer arena process.")


class ReplayGuard:
    """Refuses a signature seen within the last 2 × MAX_SKEW_SECONDS (a captured request sent again)."""

    def __init__(self) -> None:
        self._seen: OrderedDict[str, float] = OrderedDict()

    def first_time(self, signed: str, now: float) -> bool:
        while self._seen and (next(iter(self._seen.values())) < now or len(self._seen) >= MAX_REMEMBERED):
            self._seen.popitem(last=False)
        if signed in self._seen:
            return False
        self._seen[signed] = now + 2 * MAX_SKEW_SECONDS
        return True


def with_peers(app: Asgi, arena: Arena) -> Asgi:
    """`app`, with the peer route in front of it when `arena` has a peer secret (else `app` alone). The
    route sits outside any bearer-token guard: its own credential is the signature."""
    peers = arena.peers
    if peers is None:
        return app
    secret = peers.secret
    house = HouseSeats(arena, play=False)  # forwarded calls never start a match: only its arena is used
    replays = ReplayGuard()

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            await refuse(send, 405, NegotiationError(ErrorCode.INVALID_ARGUMENT, "Use POST."), [(b"allow", b"POST")])
            return
        body = await _body(receive)
        if body is None:
            return  # the client went away (or sent too much: already answered)
        headers = dict(scope.get("headers") or [])
        stamp = headers.get(TIME_HEADER.encode(), b"").decode("latin-1")
        given = headers.get(SIGNATURE_HEADER.encode(), b"").decode("latin-1")
        now = time.time()
        expected = signature(secret, stamp, body) if _recent(stamp, now) else ""
        if not expected or not hmac.compare_digest(given.encode(), expected.encode()):
            await refuse(send, 401, UNSIGNED)
            return
        if not replays.first_time(expected, now):
            await refuse(send, 401, NegotiationError(ErrorCode.FORBIDDEN, "This signed call was already taken."))
            return
        try:
            call = decode(body)
        except ValueError as problem:
            await refuse(send, 400, NegotiationError(ErrorCode.INVALID_ARGUMENT, f"Not a forwarded call: {problem}."))
            return
        caller = None if call.caller is None else Caller(call.caller.address, call.caller.session)
        hop = HOP.set(True)
        try:
            answer: dict[str, Any] = {"result": await _run(house, call, caller)}
        except NegotiationError as refusal:
            answer = refusal.to_dict()
        finally:
            HOP.reset(hop)
        await _send_json(send, answer)

    bounded = limit_body(route)

    async def dispatch(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") == PEER_PATH:
            await bounded(scope, receive, send)
        else:
            await app(scope, receive, send)

    return dispatch


async def _run(house: HouseSeats, call: ForwardedCall, caller: Caller | None) -> dict[str, Any]:
    """The forwarded call run here, as its caller; `bind_context` is the arena's own (no operation)."""
    if call.operation != "bind_context":
        return await run_operation(house, call.operation, call.arguments, caller=caller)
    match_id, token = call.arguments.get("match_id"), call.arguments.get("token")
    if len(call.arguments) != 2 or not isinstance(match_id, str) or not isinstance(token, str):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "bind_context takes a match_id and a token.")
    return {"context_id": await house.arena.bind_context(match_id, token)}


def _recent(stamp: str, now: float) -> bool:
    """Whether `stamp` (seconds since the epoch, as text) is within MAX_SKEW_SECONDS of `now`."""
    try:
        when = float(stamp)
    except ValueError:
        return False
    return math.isfinite(when) and abs(now - when) <= MAX_SKEW_SECONDS


async def _body(receive: Receive) -> bytes | None:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _send_json(send: Send, answer: Mapping[str, object]) -> None:
    try:
        body = json.dumps(answer, allow_nan=False).encode()
    except ValueError:
        refusal = NegotiationError(ErrorCode.INVALID_ARGUMENT, "The answer holds a non-finite number.")
        body = json.dumps(refusal.to_dict()).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": head})
    await send({"type": "http.response.body", "body": body})
