"""A served arena contacts only what `--allow-remote-agent` allows (issue 26, defect 5: SSRF through an
allowed agent). Real sockets throughout: `serve a2a` as a subprocess, an allowed agent host PA whose
agents live under /agents/ok, and a host PB that must never be contacted."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from a2a.server.routes import create_agent_card_routes
from a2a.types import AgentSkill
from a2a_servers import a2a_server, free_port, served
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from negotiation_a2a import wire
from negotiation_a2a.agent_server import build_agent_app
from negotiation_a2a.client import A2aArena, connect, guarded_http
from negotiation_platform.agents import ConcessionAgent
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.wire.allowlist import AllowList, UrlRefused

pytestmark = pytest.mark.anyio
PREFIX = "/agents/ok"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Recorded:
    """Every request path a host received, as sent (undecoded)."""

    paths: list[str] = field(default_factory=list)

    def around(self, app: ASGIApp) -> ASGIApp:
        async def recording(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                self.paths.append(scope["raw_path"].decode())
            await app(scope, receive, send)

        return recording


def pb_app(seen: Recorded) -> ASGIApp:
    """PB, the internal host: answers anything, and remembers it was asked."""

    async def anything(request: Request) -> Response:
        return JSONResponse({})

    return seen.around(Starlette(routes=[Route("/{path:path}", anything, methods=["GET", "POST"])]))


def pa_app(base: str, pb: str, seen: Recorded) -> ASGIApp:
    """PA, the allowed host. Under /agents/ok: a good agent; one whose card names an endpoint on PB;
    one whose card URL redirects to PB; one whose (allowed) endpoint redirects to PB."""
    skill = AgentSkill(id="negotiate", name="negotiate", description="test", tags=["test"])
    redirecting_card = wire.agent_card("redirecting", "test", f"{base}{PREFIX}/endpoint-redirects", [skill])

    async def to_pb(request: Request) -> Response:
        return RedirectResponse(f"{pb}/internal-admin/jsonrpc", status_code=307)

    return seen.around(
        Starlette(
            routes=[
                Mount(f"{PREFIX}/good", build_agent_app(ConcessionAgent(name="far"), f"{base}{PREFIX}/good")),
                Mount(f"{PREFIX}/names-pb", build_agent_app(ConcessionAgent(name="far"), f"{pb}/internal-admin")),
                Route(f"{PREFIX}/card-redirects/.well-known/agent-card.json", to_pb),
                Mount(
                    f"{PREFIX}/endpoint-redirects",
                    routes=[*create_agent_card_routes(redirecting_card), Route("/{p:path}", to_pb, methods=["POST"])],
                ),
            ]
        )
    )


@dataclass
class Setup:
    """One `serve a2a --allow-remote-agent http://127.0.0.1:PA/agents/ok` for the module; PA and PB are
    served (on their fixed ports) by each test, which sees what they received."""

    arena: str
    pa_port: int
    pb_port: int


@pytest.fixture(scope="module")
def setup() -> Iterator[Setup]:
    pa_port, pb_port = free_port(), free_port()
    with a2a_server("--allow-remote-agent", f"http://127.0.0.1:{pa_port}{PREFIX}") as (arena, _):
        yield Setup(arena, pa_port, pb_port)


@asynccontextmanager
async def hosts(setup: Setup) -> AsyncIterator[tuple[str, Recorded, Recorded]]:
    """PA and PB: PA's base URL, and what each received."""
    pa_seen, pb_seen = Recorded(), Recorded()
    async with (
        served(lambda base: pb_app(pb_seen), setup.pb_port) as pb,
        served(lambda base: pa_app(base, pb, pa_seen), setup.pa_port) as pa,
    ):
        yield pa, pa_seen, pb_seen


def inside(path: str) -> bool:
    """Whether a path PA received lies under the prefix, spelled plainly."""
    return path.startswith(f"{PREFIX}/") and ".." not in path and "%2e" not in path.lower() and "\\" not in path


async def first_move(api: A2aArena, match_id: str, seat: str, seconds: float = 20) -> dict[str, Any]:
    """The remote seat's first action as logged, with the reason when it was a forfeit (its default move)."""
    give_up, since, reasons = time.monotonic() + seconds, 0, {}
    while time.monotonic() < give_up:
        page = await api.watch(match_id, since=since, wait_seconds=2)
        for event in page["events"]:
            if event["kind"] == "timeout" and seat in event["data"]["players"]:
                reasons["reason"] = event["data"]["reason"]
            if event["actor"] == seat and event["kind"] == "action":
                return {**event["data"], **reasons}
        since = page["cursor"]
    raise AssertionError(f"{seat} never moved")


async def test_an_allowed_agent_cannot_send_the_arena_elsewhere(setup: Setup) -> None:
    async with hosts(setup) as (pa, pa_seen, pb_seen), connect(setup.arena) as api:
        moves = {}
        for agent in ("good", "names-pb", "card-redirects", "endpoint-redirects"):
            me = await api.start_game("auction", name="me", opponents=[f"a2a:{pa}{PREFIX}/{agent}", "random"])
            moves[agent] = await first_move(api, me["match_id"], me["opponents"][0])
            await api.leave_game(me["match_id"], me["token"])
    assert pb_seen.paths == []
    assert not moves["good"].get("timed_out")  # the arena does reach an agent whose card stays under the prefix
    assert moves["names-pb"]["reason"].startswith("forbidden URL: its agent card names an endpoint outside")
    for redirected in ("card-redirects", "endpoint-redirects"):  # a redirect is never followed
        assert moves[redirected]["reason"].startswith("unreachable agent"), moves[redirected]
    assert pa_seen.paths and all(map(inside, pa_seen.paths))


async def test_dot_segments_and_look_alike_paths_are_refused_and_nothing_is_fetched(setup: Setup) -> None:
    outside = [
        f"{PREFIX}/../../x",
        f"{PREFIX}/./../x",
        f"{PREFIX}/%2e%2e/%2e%2e/x",
        f"{PREFIX}/%2E%2E/%2E%2E/x",
        f"{PREFIX}/.%2e/x",
        f"{PREFIX}%2f..%2f..%2fx",
        f"{PREFIX}\\..\\..\\x",
        "/agents/okay",
        "/agents/ok%61y",
    ]
    async with hosts(setup) as (pa, pa_seen, _), connect(setup.arena) as api:
        before = await api.list_matches()
        for path in outside:
            with pytest.raises(NegotiationError) as refused:
                await api.start_game("auction", name="me", opponents=[f"a2a:{pa}{path}", "random"])
            assert refused.value.code is ErrorCode.FORBIDDEN, path
            assert f"a2a:{pa}{path}" in refused.value.details["refused"]
        assert await api.list_matches() == before
    assert all(map(inside, pa_seen.paths))  # (seats of the other test's matches may still be playing)


async def test_each_request_and_each_redirect_hop_is_checked_before_it_is_sent(setup: Setup) -> None:
    card = f"{PREFIX}/card-redirects/.well-known/agent-card.json"
    async with hosts(setup) as (pa, pa_seen, pb_seen), guarded_http(AllowList.of([f"{pa}{PREFIX}"]), 5) as http:
        for url in (f"{pa}{PREFIX}/../x", f"http://127.0.0.1:{setup.pb_port}/internal-admin/jsonrpc"):
            with pytest.raises(UrlRefused):
                await http.get(url)
        with pytest.raises(UrlRefused):  # even when asked to follow, the hop to PB is refused
            await http.get(f"{pa}{card}", follow_redirects=True)
        assert (await http.get(f"{pa}{card}")).status_code == 307  # and by default nothing is followed
    assert pb_seen.paths == []
    assert pa_seen.paths == [card, card]
