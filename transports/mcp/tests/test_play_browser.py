"""People playing in a real browser (Debian's chromium, driven by Playwright) on the play page of a real
`serve mcp --transport http` subprocess: whole matches against built-in agents, two people against each
other, AdaSociety by keyboard, refusals and payoffs. One server and one browser serve the whole module;
each test opens its own context. With PLAY_SCREENSHOTS=DIR the pages' screenshots are kept there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_helpers import needs_chromium
from play_page import keep, next_turn, payoffs, start, submit

pytestmark = [pytest.mark.anyio, needs_chromium]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def server(shared_mcp_url: str) -> str:
    return shared_mcp_url  # the session's plain server: each test reads only the matches it makes


async def test_a_person_plays_a_whole_split_100_against_concession(server: str, person: Any, tmp_path: Path) -> None:
    started = await start(server, "split_100", opponents=["concession"], seed=3)
    await person.goto(started["play_url"])
    await person.wait_for_selector("#rules:has-text('Split $100')", state="attached")  # in a closed details
    form = person.locator("form[data-action='propose']")
    if await next_turn(person, "propose") == "propose":
        await form.locator("[name='mine']").fill("150")  # out of bounds: said at once, nothing sent
        await form.locator("button[type=submit]").click()
        alert = form.locator("[role='alert']")
        assert "at most 100" in await alert.inner_text()
        chat = person.locator("form[data-chat]")
        await chat.locator("[name='content']").fill("Shall we <b>split</b> evenly?")
        await chat.locator("button[type=submit]").click()
        await person.locator("li.event.message q", has_text="Shall we <b>split</b> evenly?").wait_for()
    for _ in range(12):
        move = await next_turn(person, "accept", "propose")
        if move == "finished":
            break
        await submit(person, move, **({"mine": "50"} if move == "propose" else {}))
    await keep(person, tmp_path, "split_100.png")
    assert sum((await payoffs(person, started["agent_id"], started["opponents"][0])).values()) <= 100
    assert await person.locator("li.event.message b").count() == 0  # a chat message is text, never HTML


async def test_a_person_plays_a_whole_auction_with_public_and_private_chat(
    server: str, person: Any, tmp_path: Path
) -> None:
    started = await start(server, "auction", opponents=["random", "random"], seed=4)
    me, (first, second) = started["agent_id"], started["opponents"]
    await person.goto(started["play_url"])
    chat = person.locator("form[data-chat]")
    await chat.wait_for()
    await chat.locator("[name='content']").fill("Only for you")
    await chat.locator("[name='to']").select_option(first)
    await chat.locator("button[type=submit]").click()
    private = person.locator("li.event.private", has_text="Only for you")
    await private.wait_for()
    assert f"→ {first} (private)" in await private.inner_text()
    await chat.locator("[name='content']").fill("Hello all")
    await chat.locator("[name='to']").select_option("")
    await chat.locator("button[type=submit]").click()
    await person.locator("li.event.message", has_text="→ everyone").wait_for()
    await keep(person, tmp_path, "auction.png")
    await submit(person, "done")
    assert await next_turn(person, "bid") == "bid"
    amount = person.locator("form[data-action='bid'] [name='amount']")
    assert (await amount.get_attribute("min"), await amount.get_attribute("max")) == ("0", "100")
    await submit(person, "bid", amount="40")
    assert set(await payoffs(person, me, first, second)) == {me, first, second}


async def test_a_company_car_match_with_chat_and_a_refused_offer(server: str, person: Any, tmp_path: Path) -> None:
    config = {"messages_per_turn": 1}  # the game of record has no talk; this config opens public chat
    started = await start(server, "company_car", config=config, opponents=["concession"], seed=1)
    await person.goto(started["play_url"])
    assert await next_turn(person, "offer") == "offer"
    chat = person.locator("form[data-chat]")
    assert await chat.locator("[name='to'] option").count() == 1  # public only: "everyone", no private recipients
    await chat.locator("[name='content']").fill("I can go to 41,000 if you throw in the winter tyres.")
    await chat.locator("button[type=submit]").click()
    await person.locator("li.event.message", has_text="winter tyres").wait_for()
    form = person.locator("form[data-action='offer']")
    await form.locator("[name='price']").fill("41000.005")  # the server refuses: whole cents only
    await form.locator("button[type=submit]").click()
    refusal = form.locator("[role='alert']")
    await refusal.wait_for()
    assert "multiple of 0.01" in await refusal.inner_text()
    assert await person.locator("li.event.action", has_text=f"{started['agent_id']} offer").count() == 0
    await keep(person, tmp_path, "company_car_refused.png")
    for _ in range(6):
        move = await next_turn(person, "accept", "offer")
        if move == "finished":
            break
        await submit(person, move, **({"price": "55000"} if move == "offer" else {}))
    assert len(await payoffs(person, started["agent_id"], started["opponents"][0])) == 2


async def test_adasociety_steps_by_keyboard(server: str, person: Any, tmp_path: Path) -> None:
    config = {"negotiation_steps": 0, "max_length": 6}
    started = await start(server, "adasociety", config=config, opponents=["gatherer"] * 3, seed=2)
    me = started["agent_id"]
    await person.goto(started["play_url"])
    await person.locator("#board svg[aria-label='adasociety map']").wait_for()
    await person.locator("#pad button[aria-label='Move up']").wait_for()
    await person.keyboard.press("ArrowUp")
    await person.locator("li.event.action", has_text=f'{me} move {{"direction":"up"}}').wait_for()
    await person.locator("#pad button[aria-label='Move left']").wait_for()
    await person.keyboard.press("ArrowLeft")
    await person.locator("li.event.action", has_text=f'{me} move {{"direction":"left"}}').wait_for()
    await person.locator("#pad [data-pad='stay']").click()
    await person.locator("li.event.action", has_text=f"{me} stay").wait_for()
    await keep(person, tmp_path, "adasociety.png")

    bargaining = await start(server, "adasociety", opponents=["gatherer"] * 3, seed=2)  # starts negotiating
    await person.goto(bargaining["play_url"])
    invite = person.locator("form[data-action='request_match'] select[name='player']")
    await invite.wait_for()
    assert await invite.locator("option").all_inner_texts() == bargaining["opponents"]
    assert await person.locator("#pad").is_hidden()  # no moves while bargaining


async def test_two_people_play_split_100_against_each_other(server: str, browser: Any, tmp_path: Path) -> None:
    started = await start(server, "split_100", human_seats=1, seed=5)
    [other] = started["human_seats"]
    pages = []
    for url in (started["play_url"], other["play_url"]):
        context = await browser.new_context(viewport={"width": 390, "height": 844})  # a phone's width
        page = await context.new_page()
        page.set_default_timeout(20_000)
        await page.goto(url)
        pages.append(page)
    try:
        first, second = pages
        await first.wait_for_selector("[data-status]:text-is('running')")
        proposer = first if await next_turn(first, "propose") == "propose" else second
        responder = second if proposer is first else first
        await submit(proposer, "propose", mine="60")
        assert await next_turn(responder, "accept") == "accept"
        await submit(responder, "accept")
        for page in pages:
            paid = await payoffs(page, started["agent_id"], other["agent_id"])
            assert sorted(paid.values()) == [40.0, 60.0]
        await keep(first, tmp_path, "split_100_phone.png")
    finally:
        for page in pages:
            await page.context.close()


async def test_nested_payloads_get_fieldsets_and_a_page_without_its_token_says_so(server: str, person: Any) -> None:
    started = await start(server, "integrative_negotiation", opponents=["concession"], seed=1)
    await person.goto(started["play_url"])
    form = person.locator("form[data-action='propose']")
    if await next_turn(person, "propose") == "propose":
        assert await form.locator("fieldset legend").count() == 1
        assert await form.locator("select[name='proposal.cleaning']").count() == 1
        assert await form.locator("input[type=number][name='proposal.server_room']").count() == 1
        for name in ("proposal.server_room", "proposal.cleaning"):
            field_id = await form.locator(f"[name='{name}']").get_attribute("id")
            assert await form.locator(f"label[for='{field_id}']").count() == 1
    await person.goto(started["play_url"].split("#")[0])
    assert "no seat token" in await person.locator("#problem[role='alert']").inner_text()
