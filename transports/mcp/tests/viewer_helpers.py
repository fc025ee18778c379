"""Shared by the viewer tests: seats over MCP, and a finished split_100 match played by two seats."""

from __future__ import annotations

from typing import Any

from negotiation_mcp.client import McpArena


async def two_seats(api: McpArena, game_id: str, **start: Any) -> tuple[str, dict[str, str]]:
    """A running two-seat match made by one client: its id and each seat's token by agent id."""
    started = await api.start_game(game_id, **start)
    joined = await api.join_game(started["match_id"])
    return started["match_id"], {started["agent_id"]: started["token"], joined["agent_id"]: joined["token"]}


async def seat_to_act(api: McpArena, match_id: str, tokens: dict[str, str]) -> tuple[str, str]:
    """The agent id and token of the seat whose turn it is."""
    any_token = next(iter(tokens.values()))
    acting = (await api.get_turn_state(match_id, any_token))["acting"]
    return acting[0], tokens[acting[0]]


async def finished_split(api: McpArena) -> str:
    """split_100 played to an agreement: a public message, two proposals, then an accept."""
    match_id, tokens = await two_seats(api, "split_100", seed=5)
    _, token = await seat_to_act(api, match_id, tokens)
    await api.send_public_message(match_id, token, "I think 70 is fair for me.")
    await api.perform_action(match_id, token, "propose", {"mine": 70})
    _, token = await seat_to_act(api, match_id, tokens)
    await api.perform_action(match_id, token, "propose", {"mine": 55})
    _, token = await seat_to_act(api, match_id, tokens)
    await api.perform_action(match_id, token, "accept", {})
    return match_id
