"""What a finished match shows a stranger, over a real `serve mcp --transport http` subprocess without
`--reveal-finished`: exactly the `game_data` each game's page lists under "What a finished match
shows", and no event that was not public."""

from __future__ import annotations

import re
import time
from contextlib import nullcontext
from pathlib import Path

import pytest
from mcp import Client

from negotiation_mcp.client import McpArena

pytestmark = pytest.mark.anyio
DOCS = Path(__file__).resolve().parents[3] / "docs" / "games"
PAGES = {
    "split_100": "split_100",
    "auction": "auction",
    "company_car": "company_car",
    "resource_allocation": "resource_allocation",
    "integrative_negotiation": "integrative_negotiation",
    "adasociety": "adasociety",
    "coins_classic": "coin_games",
    "no_press": "coin_games",
}
"""Games played here, and their documentation page (the other coin games share the page and the code)."""
HOUSE = {"adasociety": "gatherer", "no_press": "random"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def documented_game_data(page: str) -> set[str]:
    """The keys listed under "What a finished match shows" on a game's page."""
    text = (DOCS / f"{page}.md").read_text()
    section = text.split("## What a finished match shows", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^- `(\w+)`", section, flags=re.MULTILINE))


async def test_a_finished_match_shows_exactly_what_its_game_page_lists(shared_mcp_url: str) -> None:
    with nullcontext(shared_mcp_url) as url:  # the session's server: this test reads only its match
        async with Client(url) as client:
            api = McpArena(client)
            for game_id, page in PAGES.items():
                players = (await api.get_game_rules(game_id))["spec"]["roles"]["min_players"]
                me = await api.start_game(game_id, opponents=[HOUSE.get(game_id, "concession")] * (players - 1))
                match_id = me["match_id"]
                await api.leave_game(match_id, me["token"])  # the rest is default moves and house seats
                give_up = time.monotonic() + 30
                while (watched := await api.watch(match_id, wait_seconds=1))["status"] != "finished":
                    assert time.monotonic() < give_up, game_id
                result = await api.get_result(match_id)
                listed = documented_game_data(page)
                assert {"agreement", "terms", "batnas", "surplus"} <= listed, page
                assert set(result["result"]["game_data"]) == listed, game_id
                assert set(watched["result"]["game_data"]) == listed, game_id
                assert watched["revealed"] is False
                cursor, more = 0, True
                while more:
                    page_of_events = await api.watch(match_id, since=cursor)
                    assert all(e["visible_to"] is None for e in page_of_events["events"]), game_id
                    cursor, more = page_of_events["cursor"], page_of_events["more"]
