"""Shared by the play page's browser tests: waiting for a turn, submitting a form, reading the payoffs."""

from __future__ import annotations

from typing import Any

FINISHED = "[data-status]:text-is('finished')"


async def next_turn(page: Any, *actions: str) -> str:
    """Waits until the match is over or one of `actions` has a form; which one ("finished" for the end)."""
    wanted = ", ".join(f"form[data-action='{a}']" for a in actions)
    await page.wait_for_selector(f"{wanted}, {FINISHED}")
    if await page.locator(FINISHED).count():
        return "finished"
    for action in actions:
        if await page.locator(f"form[data-action='{action}']").count():
            return action
    raise AssertionError("no form and not finished")


async def submit(page: Any, action: str, **fields: str) -> None:
    """Fills and submits the action's form, and waits until the move is in the transcript."""
    form = page.locator(f"form[data-action='{action}']")
    for name, value in fields.items():
        await form.locator(f"[name='{name}']").fill(value)
    mine = page.locator("li.event.action", has_text=f"{await page.locator('#me').inner_text()} {action}")
    before = await mine.count()
    await form.locator("button[type=submit]").click()
    await mine.nth(before).wait_for(state="attached")


async def play_split_100(page: Any, link: str) -> dict[str, float]:
    """Plays the split_100 seat of `link` to the end (take an offer, else ask for 60); every seat's payoff."""
    await page.goto(link)
    for _ in range(12):
        move = await next_turn(page, "accept", "propose")
        if move == "finished":
            break
        await submit(page, move, **({"mine": "60"} if move == "propose" else {}))
    me = await page.locator("#me").inner_text()
    players = await page.locator("[data-payoff]").evaluate_all("found => found.map(e => e.dataset.payoff)")
    assert me in players
    return await payoffs(page, *players)


async def payoffs(page: Any, *agents: str) -> dict[str, float]:
    await page.wait_for_selector(FINISHED)
    return {a: float(await page.locator(f"[data-payoff='{a}']").inner_text()) for a in agents}
