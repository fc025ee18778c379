"""The match viewer in a real browser (Debian's chromium, driven by Playwright) against a real
`serve mcp --transport http` subprocess: the list, a live match page following moves made over
MCP, the replay slider, and an AdaSociety board. Each page's screenshot must not be blank."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_helpers import needs_chromium, screenshot
from mcp import Client
from viewer_helpers import finished_split, seat_to_act, two_seats

from negotiation_mcp.client import McpArena

pytestmark = [pytest.mark.anyio, needs_chromium]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def server(shared_mcp_url: str) -> str:
    return shared_mcp_url  # the session's plain server: each test reads only the matches it makes


@pytest.fixture
def page(server: str, person: Any) -> Any:
    """A fresh page of the module's one browser (conftest's `person`), once the server is up."""
    return person


def view_url(server: str, path: str = "") -> str:
    return server.removesuffix("/mcp") + "/view/" + path


async def test_list_shows_a_running_match_and_its_page_follows_a_move_made_over_mcp(
    server: str, page: Any, tmp_path: Path
) -> None:
    async with Client(server) as client:
        api = McpArena(client)
        match_id, tokens = await two_seats(api, "split_100")

        await page.goto(view_url(server))
        row = page.locator("#matches tr[data-status='running']", has_text=match_id)
        await row.wait_for()
        assert "split_100" in await row.inner_text()
        await screenshot(page, tmp_path / "list.png")

        await page.goto(view_url(server, f"match/{match_id}"))
        await page.wait_for_selector("body[data-live='following']")
        assert await page.locator("li.event.action").count() == 0
        agent, token = await seat_to_act(api, match_id, tokens)
        await api.perform_action(match_id, token, "propose", {"mine": 64})
        move = page.locator("li.event.action", has_text=f'{agent} propose {{"mine":64}}')
        await move.wait_for()  # arrived over Server-Sent Events, without reloading the page
        await page.wait_for_selector("#offers svg[aria-label='offers over time']")
        await screenshot(page, tmp_path / "match.png")


async def test_the_slider_replays_a_finished_match(server: str, page: Any, tmp_path: Path) -> None:
    async with Client(server) as client:
        match_id = await finished_split(McpArena(client))

    await page.goto(view_url(server, f"match/{match_id}"))
    await page.wait_for_selector("body[data-live='done']")
    total = await page.locator("li.event").count()
    slider = page.locator("#step")
    assert await slider.is_visible()
    assert await slider.get_attribute("max") == str(total)
    assert "accept" in await page.locator("#transcript").inner_text()

    await slider.evaluate("(el) => { el.value = '5'; el.dispatchEvent(new Event('input')); }")
    await page.wait_for_function("document.querySelectorAll('li.event').length === 5")
    shown = await page.locator("#transcript").inner_text()
    assert "accept" not in shown and "match ended" not in shown
    assert await page.locator("#step-label").inner_text() == f"5 of {total}"
    fifth = await page.locator("li.event").nth(4).get_attribute("data-seq")
    await page.wait_for_selector(f"body[data-panels-at='{fifth}']")  # board and charts redrawn for that step
    await screenshot(page, tmp_path / "replay.png")


async def test_an_adasociety_board_renders(server: str, page: Any, tmp_path: Path) -> None:
    async with Client(server) as client:
        started = await McpArena(client).start_game("adasociety", seed=2, opponents=["gatherer"] * 3)

    await page.goto(view_url(server, f"match/{started['match_id']}"))
    board = page.locator("#board svg[aria-label='adasociety map']")
    await board.wait_for()
    assert await board.locator("circle").count() == 4  # one per player: the map is public at 7×7
    assert await page.locator("#board svg[aria-label='adasociety groups']").count() == 1
    await screenshot(page, tmp_path / "adasociety.png")
