"""A program that plays through the MCP and A2A clients and a plugin's game, as a user would.

The tests type-check it with `mypy --strict` after the README's editable install: the transports
and plugins must be visible to type checkers as the core is (a path entry, not an import hook).
"""

from __future__ import annotations

import asyncio

from negotiation_a2a.client import connect as connect_a2a
from negotiation_coin_games import TrustAndSplit
from negotiation_mcp.client import connect as connect_mcp
from negotiation_platform import RandomAgent, play_match


async def over_mcp() -> dict[str, float]:
    async with connect_mcp("mcp") as api:
        played = await play_match(api, "split_100", [RandomAgent(seed=1), RandomAgent(seed=2)], seed=3)
    payoffs: dict[str, float] = played["payoffs"]
    return payoffs


async def over_a2a(url: str) -> str:
    async with connect_a2a(url) as api:
        rules = await api.get_game_rules(TrustAndSplit.spec.id)
    title: str = rules["spec"]["title"]
    return title


if __name__ == "__main__":
    print(asyncio.run(over_mcp()))
