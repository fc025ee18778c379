"""The play page as a Starlette app under /play: one seat's page and the JSON API it acts through.

The page is a shell; its script reads the seat token from the URL fragment (never sent to a
server) and sends it in the `X-Seat-Token` header, and the arena checks it like any seat token:
the page can do exactly what that seat could do over MCP or A2A, and sees only that seat's own
`get_turn_state`. Live updates are long polls on `get_turn_state(wait_seconds)`, at most a few
at a time per seat and per client address. Answers carry the viewer's strict security headers.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from negotiation_platform.arena.forwarding import changed
from negotiation_platform.arena.limits import CALLER, Caller
from negotiation_platform.errors import ErrorCode, NegotiationError, http_status
from negotiation_platform.games.narrated import narrated
from negotiation_platform.games.prompting import for_a_person
from negotiation_platform.serving.operations import dispatch
from negotiation_platform.web.play.pages import PREFIX, play_page
from negotiation_platform.web.viewer.app import SECURITY_HEADERS, query_number
from negotiation_platform.wire.boundary import check_request

if TYPE_CHECKING:
    from negotiation_platform.arena.arena import Arena

TOKEN_HEADER = "x-seat-token"
MAX_WAIT_SECONDS = 25.0
"""Longest long poll of the state endpoint (below common proxy timeouts)."""
MAX_WAITS_PER_SEAT = 4
MAX_WAITS_PER_ADDRESS = 64
"""Long polls held at once: per seat token, and per client address (a lab behind one address has many seats)."""
MAX_BODY_BYTES = 64 * 1024
"""The largest action or message body the page sends (a message is at most a few KiB)."""


class Play:
    """The request handlers of the play page over one arena."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self._waits: Counter[str] = Counter()

    async def page(self, request: Request) -> Response:
        return HTMLResponse(play_page(request.path_params["match_id"]), headers=_headers())

    async def state(self, request: Request) -> Response:
        """The seat's turn state; the first call (no `since`) adds the briefing as `rules`. `board` is the
        game's public board, drawn again only when something happened."""
        match_id, token = request.path_params["match_id"], _token(request)
        since = query_number(request, "since")
        wait = _seconds(request)
        first = since is None
        read = {"match_id": match_id, "token": token, "since": since, "wait_seconds": wait, "include_prompt": first}
        async with self._waiting(request, token, wait):
            state = await dispatch(self.arena, "get_turn_state", read)  # bounded like MCP's and the viewer's
        if first:
            state["rules"] = for_a_person(state.pop("prompt", ""))
        live = self.arena.held(match_id)
        game = live.match.game if live is not None and live.match is not None else None
        me = state["agent_id"]
        state["events"] = narrated(game, state["events"], me)
        if game is not None and state["status"] in ("running", "finished"):
            state["facts"] = [asdict(fact) for fact in game.seat_facts(me)]
            for action in state.get("allowed_actions") or []:
                action["effect"] = game.action_effect(me, action["name"])
        if first or state["events"]:
            state["board"] = await self._board(match_id, me)
        return _json(state)

    async def action(self, request: Request) -> Response:
        match_id, token = request.path_params["match_id"], _token(request)
        body = await _body(request, {"action_type"}, {"payload"})
        payload = body.get("payload") or {}
        action = {"match_id": match_id, "token": token, "action_type": body["action_type"], "payload": payload}
        return _json(await changed(self.arena, "perform_action", action))

    async def message(self, request: Request) -> Response:
        match_id, token = request.path_params["match_id"], _token(request)
        body = await _body(request, {"content"}, {"to"})
        to = body.get("to")
        message = {"match_id": match_id, "token": token, "content": body["content"]}
        if to is None:
            return _json(await changed(self.arena, "send_public_message", message))
        return _json(await changed(self.arena, "send_private_message", {**message, "to": to}))

    async def _board(self, match_id: str, reader: str) -> str | None:
        """The public board, as the viewer draws it (the seat's secrets are in its own view, not here),
        with the reader named (`you`) so a map can mark where they are."""
        seen = await self.arena.spectate(match_id)
        if seen["view"] is None:
            return None
        return self.arena.registry.render_board(seen["game_id"], {**seen["view"], "you": reader}, seen["events"])

    @asynccontextmanager
    async def _waiting(self, request: Request, token: str, wait: float) -> AsyncIterator[None]:
        """Counts a long poll against its seat and its address; more than their share are refused."""
        if wait <= 0:
            yield
            return
        keys = ("seat:" + token, "address:" + _address(request))
        limits = (MAX_WAITS_PER_SEAT, MAX_WAITS_PER_ADDRESS)
        if any(self._waits[k] >= limit for k, limit in zip(keys, limits, strict=True)):
            raise NegotiationError(
                ErrorCode.LIMIT_REACHED,
                f"Too many live updates at once (at most {MAX_WAITS_PER_SEAT} per seat); close another page.",
                limit="max_waits",
            )
        self._waits.update(keys)
        try:
            yield
        finally:
            self._waits.subtract(keys)
            for key in keys:
                if self._waits[key] <= 0:
                    del self._waits[key]


def play_app(arena: Arena) -> Starlette:
    """The play page's routes, all under /play (so it can sit beside another app; see `with_play`)."""
    play = Play(arena)
    static = StaticFiles(directory=Path(__file__).parent / "static")
    routes = [
        Mount("/static", static),
        Route("/api/matches/{match_id}/state", _as_caller(play.state)),
        Route("/api/matches/{match_id}/action", _as_caller(play.action), methods=["POST"]),
        Route("/api/matches/{match_id}/message", _as_caller(play.message), methods=["POST"]),
        Route("/{match_id}", play.page),
    ]
    return Starlette(routes=[Mount(PREFIX, routes=routes)], exception_handlers={NegotiationError: _refused})


def _as_caller(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """Runs `handler` as the client's address, so the arena's per-caller limits count its seats."""

    async def handle(request: Request) -> Response:
        reset = CALLER.set(Caller("address:" + _address(request)))
        try:
            return await handler(request)
        finally:
            CALLER.reset(reset)

    return handle


def _token(request: Request) -> str:
    token = request.headers.get(TOKEN_HEADER, "")
    if not token:
        raise NegotiationError(ErrorCode.FORBIDDEN, "This page needs its seat token: open the seat's full link.")
    return token


async def _body(request: Request, required: set[str], optional: set[str]) -> dict[str, Any]:
    """The JSON object the page posted, with exactly the fields this endpoint takes."""
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise NegotiationError(ErrorCode.LIMIT_REACHED, f"The body is larger than {MAX_BODY_BYTES} bytes.")
    try:
        body = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "The body must be a JSON object.") from None
    if not isinstance(body, dict):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "The body must be a JSON object.")
    check_request(body)
    missing, unknown = sorted(required - set(body)), sorted(set(body) - required - optional)
    if missing or unknown:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"The body takes {sorted(required)} and optionally {sorted(optional)}.",
            missing=missing,
            unknown=unknown,
        )
    return body


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _seconds(request: Request) -> float:
    """`wait`: seconds to long-poll, 0 to MAX_WAIT_SECONDS."""
    raw = request.query_params.get("wait", "0")
    try:
        wait = float(raw) if len(raw) <= 12 else -1.0
    except ValueError:
        wait = -1.0
    if not 0 <= wait <= MAX_WAIT_SECONDS:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"`wait` must be a number of seconds, 0 to {MAX_WAIT_SECONDS:g}."
        )
    return wait


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def _refused(request: Request, refusal: Exception) -> Response:
    assert isinstance(refusal, NegotiationError)
    return JSONResponse(refusal.to_dict(), status_code=http_status(refusal.code), headers=_headers())


def _headers() -> dict[str, str]:
    return {"cache-control": "no-store", **SECURITY_HEADERS}


def _json(value: Mapping[str, object]) -> JSONResponse:
    return JSONResponse(value, headers=_headers())
