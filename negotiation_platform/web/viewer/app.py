"""The match viewer as a Starlette app under /view: a match list, a match page, a JSON API and SSE.

Everything it shows comes from a `MatchSource` (the arena's `watch` and `spectate`), so a
running match shows only its public events and public board; a finished one shows its private
events only where the source reveals them. Work per request is bounded: lists are capped,
boards of earlier states (a replay) run off the event loop, a few at a time per client and are
cached, and each client holds at most a few live streams, which end when the match ends or the
client goes. A client is its network address: the viewer has no credential of its own (a bearer
token, where the server has one, is the operator's, shared by all), and no header a client
chooses (such as an unchecked `Authorization`) makes it another client.
Pages load only the viewer's own script and style (a strict Content-Security-Policy), so no
network is needed beyond this server.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any, TypedDict

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from negotiation_platform.errors import ErrorCode, NegotiationError, http_status
from negotiation_platform.games.narrated import narrated
from negotiation_platform.network.exposure import Asgi, Receive, Scope, Send
from negotiation_platform.serving.operations import dispatch
from negotiation_platform.web.viewer.charts import offers_chart, outcome_chart
from negotiation_platform.web.viewer.pages import PREFIX, list_page, match_page
from negotiation_platform.web.viewer.slots import CallerSlots
from negotiation_platform.web.viewer.source import MatchSource

MAX_LISTED = 200
"""Most matches one list request returns (the newest)."""
MAX_STREAMS_PER_CLIENT = 8
STREAM_POLL_SECONDS = 15.0
"""A stream waits this long for news before it sends a keep-alive comment and checks the client."""
MAX_REPLAYS_PER_CLIENT = 2
MAX_QUEUED_REPLAYS_PER_CLIENT = 8
MAX_REPLAYS = 8
"""Boards of earlier states replay the match: at most `MAX_REPLAYS_PER_CLIENT` of one client at once (its
next `MAX_QUEUED_REPLAYS_PER_CLIENT` wait, more are refused), `MAX_REPLAYS` of all clients."""
CACHED_PANELS = 256
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


class Panels(TypedDict):
    """What `/api/matches/{id}/panels` answers: the board and charts (SVG) once event `at` was logged."""

    at: int
    finished: bool
    board: str | None
    offers: str | None
    outcome: str | None


class Viewer:
    """The viewer's request handlers over one source."""

    def __init__(self, source: MatchSource, *, max_streams_per_client: int = MAX_STREAMS_PER_CLIENT) -> None:
        self.source = source
        self.max_streams = max_streams_per_client
        self._streams: Counter[str] = Counter()
        self._replays = CallerSlots(MAX_REPLAYS_PER_CLIENT, MAX_QUEUED_REPLAYS_PER_CLIENT, MAX_REPLAYS, "replays")
        self._panels: OrderedDict[tuple[str, int], Panels] = OrderedDict()

    # --- pages ----------------------------------------------------------------------------

    async def list_page(self, request: Request) -> Response:
        game = request.query_params.get("game") or None
        listed = await self._read("list_matches", game_id=game, limit=MAX_LISTED)
        games = sorted(self.source.registry.games())
        return _html(list_page(listed["matches"], games, game))

    async def match_page(self, request: Request) -> Response:
        match_id = request.path_params["match_id"]
        state = await self._read("watch", match_id=match_id)
        return _html(match_page(state))

    # --- API ------------------------------------------------------------------------------

    async def matches(self, request: Request) -> Response:
        listed = await self._read("list_matches", game_id=request.query_params.get("game") or None, limit=MAX_LISTED)
        return _json({"matches": listed["matches"]})

    async def match(self, request: Request) -> Response:
        state = await self._read(
            "watch", match_id=request.path_params["match_id"], since=query_number(request, "since")
        )
        return _json(state)

    async def _read(self, operation: str, **arguments: object) -> dict[str, Any]:
        """A catalogue operation the source implements (`VIEWER_READS`), through the one dispatcher; a
        match's events come with their plain words for a spectator (`text`)."""
        answer = await dispatch(self.source, operation, arguments)
        if operation == "watch":
            live = self.source.held(answer["match_id"])
            game = live.match.game if live is not None and live.match is not None else None
            answer["events"] = narrated(game, answer["events"], None)
        return answer

    async def panels(self, request: Request) -> Response:
        """The board and charts once event `at` was logged (default: now). An earlier state is a replay:
        a few at a time per client, and cached once the match is over (it cannot change any more)."""
        match_id = request.path_params["match_id"]
        at = query_number(request, "at")
        if at is None:
            return _json(await self._draw(match_id, None))
        key = (match_id, at)
        if key in self._panels:
            self._panels.move_to_end(key)
            return _json(self._panels[key])
        async with self._replays.slot(_client(request)):
            panels = await self._draw(match_id, at)
        if panels["finished"]:
            self._panels[key] = panels
            while len(self._panels) > CACHED_PANELS:
                self._panels.popitem(last=False)
        return _json(panels)

    async def _draw(self, match_id: str, at: int | None) -> Panels:
        seen = await self.source.spectate(match_id, at)
        view, result, registry = seen["view"], seen.get("result"), self.source.registry
        board = None if view is None else registry.render_board(seen["game_id"], view, seen["events"])
        outcome = None
        if result is not None and seen["at"] >= seen["cursor"]:
            outcome = await asyncio.to_thread(
                outcome_chart, seen["game_id"], seen["config"], result, view.get("role_order"), registry
            )
        return {
            "at": seen["at"],
            "finished": seen["status"] == "finished",
            "board": board,
            "offers": offers_chart(seen["events"], seen["players"], max(seen["at"], 1)),
            "outcome": outcome,
        }

    async def stream(self, request: Request) -> Response:
        """Server-Sent Events: an `update` (the watch state) whenever something public happens, from
        cursor `since`; the stream ends once the match is over or the client goes."""
        match_id = request.path_params["match_id"]
        since = query_number(request, "since")
        first = await self._read("watch", match_id=match_id, since=since)  # an unknown match is refused first
        client = _client(request)
        if self._streams[client] >= self.max_streams:
            raise NegotiationError(
                ErrorCode.LIMIT_REACHED,
                f"At most {self.max_streams} live streams per client; close a match page first.",
                limit="max_streams_per_client",
            )
        self._streams[client] += 1
        return StreamingResponse(
            self._updates(request, first, client),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no", **SECURITY_HEADERS},
        )

    async def _updates(self, request: Request, state: Mapping[str, object], client: str) -> AsyncIterator[str]:
        try:
            while True:
                if state["events"] or state["status"] == "finished":
                    yield f"event: update\ndata: {json.dumps(state, allow_nan=False)}\n\n"
                else:
                    yield ": still watching\n\n"
                if (state["status"] == "finished" and not state["more"]) or await request.is_disconnected():
                    return
                wait = 0 if state["more"] else STREAM_POLL_SECONDS  # a page of a longer log: read on at once
                state = await self._read("watch", match_id=state["match_id"], since=state["cursor"], wait_seconds=wait)
        except NegotiationError as refusal:  # the match left memory while we watched
            yield f"event: failure\ndata: {json.dumps(refusal.to_dict())}\n\n"
        finally:
            self._streams[client] -= 1
            if self._streams[client] <= 0:
                del self._streams[client]


def viewer_app(source: MatchSource, *, max_streams_per_client: int = MAX_STREAMS_PER_CLIENT) -> Starlette:
    """The viewer's routes, all under /view (so it can sit beside another app; see `beside`); / leads there."""
    viewer = Viewer(source, max_streams_per_client=max_streams_per_client)
    static = StaticFiles(directory=Path(__file__).parent / "static")
    routes = [
        Route("/", viewer.list_page),
        Route("/match/{match_id}", viewer.match_page),
        Route("/api/matches", viewer.matches),
        Route("/api/matches/{match_id}", viewer.match),
        Route("/api/matches/{match_id}/panels", viewer.panels),
        Route("/api/matches/{match_id}/stream", viewer.stream),
        Mount("/static", static),
    ]
    return Starlette(
        routes=[Mount(PREFIX, routes=routes), Route("/", _home)],
        exception_handlers={NegotiationError: _refused},
    )


def beside(app: Asgi, pages: Asgi, prefix: str = PREFIX) -> Asgi:
    """`app` with `pages` (the viewer by default) answering every HTTP request under `prefix`. The viewer
    shows only public data, so it is open even where `app` asks for a bearer token (a browser cannot
    send one); the play page's credential is the seat token."""

    async def dispatch(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == prefix or path.startswith(prefix + "/")):
            await pages(scope, receive, send)
        else:
            await app(scope, receive, send)

    return dispatch


async def _home(request: Request) -> Response:
    """Served on its own, the viewer's root leads to its match list."""
    return RedirectResponse(f"{PREFIX}/")


async def _refused(request: Request, refusal: Exception) -> Response:
    assert isinstance(refusal, NegotiationError)
    return JSONResponse(refusal.to_dict(), status_code=http_status(refusal.code), headers=SECURITY_HEADERS)


def query_number(request: Request, name: str) -> int | None:
    """A non-negative integer query parameter, or None when absent (the boundary bounds it)."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 20:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"`{name}` must be a non-negative integer.")
    return int(raw)


def _client(request: Request) -> str:
    """Who a request comes from, for its caps: the peer's address (see the module's docstring)."""
    return request.client.host if request.client else "unknown"


def _html(body: str) -> HTMLResponse:
    return HTMLResponse(body, headers={"cache-control": "no-store", **SECURITY_HEADERS})


def _json(value: Mapping[str, object]) -> JSONResponse:
    return JSONResponse(value, headers={"cache-control": "no-store", **SECURITY_HEADERS})
