"""Every answer that carries a match's events carries a bounded page of them, over a real
`serve mcp --transport http` subprocess: `watch`, `get_turn_state` and the viewer's JSON API."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from typing import Any

import httpx2
import pytest
from mcp import Client

from negotiation_mcp.client import McpArena
from negotiation_platform.arena import Arena
from negotiation_platform.arena.paging import MAX_PAGE_CHARS, MAX_PAGE_EVENTS

pytestmark = pytest.mark.anyio
Read = Callable[[int], Awaitable[dict[str, Any]]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def read_all_pages(read: Read) -> tuple[list[dict[str, Any]], int, int]:
    """Every event from cursor 0, page by page: (events, the final cursor, how many pages)."""
    events: list[dict[str, Any]] = []
    cursor, pages = 0, 0
    while True:
        page = await read(cursor)
        pages += 1
        assert len(page["events"]) <= MAX_PAGE_EVENTS
        assert all(cursor < e["seq"] <= page["cursor"] for e in page["events"]), "a page stays between its cursors"
        assert page["cursor"] > cursor or not page["more"]
        events += page["events"]
        cursor = page["cursor"]
        if not page["more"]:
            return events, cursor, pages


async def test_a_long_log_is_read_in_bounded_pages_on_every_surface(shared_mcp_url: str) -> None:
    # AdaSociety played out by three built-in gatherers (the creator leaves at once): about 1,000 events.
    with nullcontext(shared_mcp_url) as url:  # the session's server: this test reads only its match
        async with Client(url) as client:
            api = McpArena(client)
            me = await api.start_game("adasociety", opponents=["gatherer"] * 3)
            match_id = me["match_id"]
            await api.leave_game(match_id, me["token"])
            give_up = time.monotonic() + 30
            while (await api.watch(match_id, wait_seconds=1))["status"] != "finished":
                assert time.monotonic() < give_up, "the match did not finish"

            first = await api.watch(match_id, since=0)
            assert first["more"] is True and len(first["events"]) <= MAX_PAGE_EVENTS
            public, total, pages = await read_all_pages(lambda since: api.watch(match_id, since=since))
            assert pages > 1 and total > MAX_PAGE_EVENTS
            assert [e["seq"] for e in public] == sorted({e["seq"] for e in public})
            assert all(e["visible_to"] is None for e in public)

            seen, seat_total, seat_pages = await read_all_pages(
                lambda since: api.get_turn_state(match_id, me["token"], since=since, include_prompt=False)
            )
            assert seat_pages > 1 and seat_total == total
            assert {e["seq"] for e in public} <= {e["seq"] for e in seen}

            async with httpx2.AsyncClient(base_url=url.removesuffix("/mcp"), timeout=30) as http:

                async def viewer_page(since: int) -> dict[str, Any]:
                    answer = await http.get(f"/view/api/matches/{match_id}", params={"since": since})
                    assert answer.status_code == 200
                    body: dict[str, Any] = answer.json()
                    return body

                shown, viewer_total, _ = await read_all_pages(viewer_page)
            assert viewer_total == total
            words = [event.pop("text") for event in shown]  # the viewer adds each event's words, nothing else
            assert all(isinstance(text, str) and text for text in words)
            assert shown == public


async def test_a_page_holds_a_bounded_number_of_characters() -> None:
    # Three bidders chat 30 messages of 10,000 characters each: about 900,000 characters of public events.
    arena = Arena()
    config = {"messages_per_bidder": 30, "max_message_length": 10_000}
    seats = [await arena.start_game("auction", config=config, seed=1)]
    seats += [await arena.join_game(seats[0]["match_id"]) for _ in range(2)]
    match_id = seats[0]["match_id"]
    for n in range(30):
        for seat in seats:
            await arena.send_public_message(match_id, seat["token"], f"{n:02d}" + "x" * 9_998)
    events, total, pages = await read_all_pages(lambda since: arena.watch(match_id, since=since))
    assert pages >= 4 and total == len(arena.events(match_id))
    assert len([e for e in events if e["kind"] == "message"]) == 90
    page = await arena.watch(match_id, since=0)
    assert sum(len(e["data"]["content"]) for e in page["events"] if e["kind"] == "message") <= MAX_PAGE_CHARS
