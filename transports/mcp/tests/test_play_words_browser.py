"""The play page in plain words, in a real browser (Debian's chromium, Playwright) against the session's
real `serve mcp --transport http` subprocess: each game's transcript says moves from the reader's side with
the JSON one click away, a person accepts split_100's phrased offer and sees what they got, company_car
speaks dollars, and AdaSociety marks "you are here" and is playable on a phone without scrolling.
With PLAY_SCREENSHOTS=DIR the screenshots are kept there."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_helpers import needs_chromium
from play_page import FINISHED, keep, next_turn, start, submit

pytestmark = [pytest.mark.anyio, needs_chromium]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def laptop(browser: Any) -> Any:
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    page = await context.new_page()
    page.set_default_timeout(20_000)
    return page


async def test_split_100_in_words_a_person_accepts_the_phrased_offer(
    shared_mcp_url: str, browser: Any, tmp_path: Path
) -> None:
    started = await start(shared_mcp_url, "split_100", opponents=["concession"], seed=3)
    rival = started["opponents"][0]
    page = await laptop(browser)
    try:
        await page.goto(started["play_url"])
        offered = None
        for _ in range(12):
            move = await next_turn(page, "accept", "propose")
            if move == "accept":
                standing = await page.locator("#facts dd", has_text="you would get").inner_text()
                offered = re.search(r"you would get \$(\d+)", standing)
                assert offered, standing
                button = page.locator("form[data-action='accept'] button[type=submit]")
                assert await button.inner_text() == f"accept: you get ${offered[1]}"
                await button.click()
                break
            await submit(page, "propose", mine="95")  # concession comes down; accept its first offer
        assert offered is not None
        await page.wait_for_selector(FINISHED)
        mine = offered[1]
        said = page.locator("#transcript li.event .words")
        await page.locator("#transcript .words", has_text=f"you accept: you get {mine}").wait_for()
        assert await said.filter(has_text=re.compile(rf"^{rival} offers you {mine} and keeps \d+$")).count() >= 1
        assert await said.filter(has_text=re.compile(r"^you offer .* 5 and keep 95$")).count() >= 1
        assert float(await page.locator(f"[data-payoff='{started['agent_id']}']").inner_text()) == float(mine)
        assert await page.locator("#agreement").inner_text() == f"A deal was reached. You scored {mine}."
        assert await page.locator("#phase").is_hidden()  # a finished match is in no phase
        raw = page.locator("#transcript li.event.action details.raw").first
        assert await raw.locator("code").is_hidden()
        await raw.locator("summary").click()
        assert '"mine"' in await raw.locator("pre").inner_text()  # the JSON, one click away
        await keep(page, tmp_path, "split_100_words.png")
    finally:
        await page.context.close()


async def test_company_car_speaks_dollars_and_roles(shared_mcp_url: str, browser: Any, tmp_path: Path) -> None:
    started = await start(shared_mcp_url, "company_car", opponents=["concession"], seed=1)
    page = await laptop(browser)
    try:
        await page.goto(started["play_url"])
        assert await next_turn(page, "offer") == "offer"
        facts = await page.locator("#facts").inner_text()
        assert re.search(r"your role\s+Party [AB] \((buyer|seller)\)", facts), facts
        assert re.search(r"your BATNA now\s+\$\d{2},\d{3}(\.\d\d)?\n", facts), facts
        assert re.search(r"no deal\s+you score \$0", facts), facts
        rules = await page.locator("#rules").text_content()
        assert "RESPONSE FORMAT" not in rules and "Your score on a deal is your BATNA plus your surplus" in rules
        hint = await page.locator("form[data-action='offer'] .hint").last.inner_text()
        assert "dollars" in hint and "$10,000" in hint
        await submit(page, "offer", price="41000.50")
        mine = page.locator("#transcript .words", has_text=re.compile(r"^you \(Party [AB]\) offer \$41,000\.50$"))
        await mine.wait_for()
        await keep(page, tmp_path, "company_car_words.png")
    finally:
        await page.context.close()


async def test_adasociety_marks_you_and_says_moves_in_words(shared_mcp_url: str, browser: Any, tmp_path: Path) -> None:
    config = {"negotiation_steps": 0, "max_length": 6}
    started = await start(shared_mcp_url, "adasociety", config=config, opponents=["gatherer"] * 3, seed=2)
    page = await laptop(browser)
    try:
        await page.goto(started["play_url"])
        await page.locator("#board svg [data-you='here']").wait_for()
        assert await page.locator("#board svg [data-you='here']").count() == 1
        assert "you are" in await page.locator("#facts").inner_text()
        assert await page.locator("#view-data").get_attribute("open") is None  # the raw data folded
        await page.locator("#pad button[aria-label='Move up']").wait_for()
        await page.keyboard.press("ArrowUp")
        await page.locator("#transcript .words", has_text=re.compile(r"^you move up$")).wait_for()
        board_step = await page.locator("#board p").first.inner_text()
        header_round = await page.locator("#round").inner_text()
        assert board_step.startswith(f"step {header_round.split(' of ')[0]} of ")
        await keep(page, tmp_path, "adasociety_words.png")
    finally:
        await page.context.close()


async def test_adasociety_on_a_phone_moves_without_scrolling(shared_mcp_url: str, browser: Any, tmp_path: Path) -> None:
    config = {"negotiation_steps": 0, "max_length": 6}
    started = await start(shared_mcp_url, "adasociety", config=config, opponents=["gatherer"] * 3, seed=2)
    context = await browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = await context.new_page()
    page.set_default_timeout(20_000)
    try:
        await page.goto(started["play_url"])
        marker = page.locator("#board svg [data-you='here']")
        await marker.wait_for()
        up = page.locator("#pad button[aria-label='Move up']")
        await up.wait_for()
        for seen in (marker, up):
            box = await seen.bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844, box
        assert await page.evaluate("window.scrollY") == 0
        await up.tap()
        await page.locator("#transcript .words", has_text=re.compile(r"^you move up$")).wait_for()
        assert await page.evaluate("window.scrollY") == 0
        await page.screenshot(path=str(tmp_path / "adasociety_phone.png"))  # the viewport a person sees
        if os.environ.get("PLAY_SCREENSHOTS"):
            target = Path(os.environ["PLAY_SCREENSHOTS"]) / "adasociety_phone.png"
            target.write_bytes((tmp_path / "adasociety_phone.png").read_bytes())
    finally:
        await context.close()


async def test_the_viewer_says_each_event_in_words_for_a_spectator(shared_mcp_url: str, browser: Any) -> None:
    started = await start(shared_mcp_url, "split_100", opponents=["concession"], seed=6)
    base = shared_mcp_url.removesuffix("/mcp")
    async with httpx.AsyncClient(timeout=10) as client:
        seat = {"X-Seat-Token": started["token"]}
        api = f"{base}/play/api/matches/{started['match_id']}"
        for _ in range(20):
            state = (await client.get(f"{api}/state", headers=seat, params={"since": 0, "wait": 2})).json()
            if state["your_turn"]:
                break
        await client.post(f"{api}/action", headers=seat, json={"action_type": "propose", "payload": {"mine": 70}})
        watched = (await client.get(f"{base}/view/api/matches/{started['match_id']}")).json()
    me = started["agent_id"]
    assert f"{me} offers {started['opponents'][0]} 30 and keeps 70" in [e["text"] for e in watched["events"]]
    page = await laptop(browser)
    try:
        await page.goto(f"{base}/view/match/{started['match_id']}")
        await page.locator(".event .words", has_text=f"{me} offers").first.wait_for()
        assert await page.locator(".event details.raw code", has_text=f'{me} propose {{"mine":70}}').count() == 1
    finally:
        await page.context.close()
