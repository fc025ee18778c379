"""Shared by the play page's browser tests: starting a match, waiting for a turn, submitting a form, reading the
payoffs, keeping screenshots."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from browser_helpers import screenshot
from mcp import Client

from negotiation_mcp.client import McpArena

FINISHED = "[data-status]:text-is('finished')"


async def start(server: str, game_id: str, **arguments: Any) -> dict[str, Any]:
    """A match started over MCP on `server` (its answer: the seats' play links among it)."""
    async with Client(server) as client:
        return await McpArena(client).start_game(game_id, **arguments)


async def keep(page: Any, tmp_path: Path, name: str) -> None:
    """The page's screenshot (checked not blank), kept in $PLAY_SCREENSHOTS when set."""
    await screenshot(page, tmp_path / name)
    if os.environ.get("PLAY_SCREENSHOTS"):
        shutil.copy(tmp_path / name, Path(os.environ["PLAY_SCREENSHOTS"]) / name)


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
