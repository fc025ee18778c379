"""Seats for people in-process: `start_game(human_seats=N)` takes them at once, links only where the page is served."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from negotiation_platform.arena import Arena
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.web.play import play_link

pytestmark = pytest.mark.anyio


async def test_human_seats_are_taken_at_once_and_nobody_else_gets_them() -> None:
    arena = Arena()
    started = await HouseSeats(arena).start_game("auction", opponents=["random"], human_seats=1)
    [human] = started["human_seats"]
    assert human["agent_id"] == "human" and human["play_url"] is None  # no page served: no link
    assert "play_url" not in started
    state = await arena.get_turn_state(started["match_id"], human["token"])
    assert state["agent_id"] == "human" and state["status"] == "running"  # creator, person and house: all seated
    with pytest.raises(NegotiationError) as full:
        await arena.join_game(started["match_id"])
    assert full.value.code is ErrorCode.MATCH_FULL


async def test_links_carry_the_token_in_the_fragment_only_where_the_page_is_served() -> None:
    arena = Arena(policy=ArenaPolicy(play_base_url="http://127.0.0.1:8000"))
    started = await arena.start_game("split_100", human_seats=1)
    match_id = started["match_id"]
    [human] = started["human_seats"]
    for seat in (started, human):
        link = urlsplit(seat["play_url"])
        assert (link.path, link.fragment) == (f"/play/{match_id}", f"token={seat['token']}")
        assert seat["token"] not in link.path + link.query
    assert human["play_url"] == play_link("http://127.0.0.1:8000/", match_id, human["token"])
    waiting = await arena.start_game("split_100")
    joined = await arena.join_game(waiting["match_id"])
    assert joined["play_url"] == play_link("http://127.0.0.1:8000", waiting["match_id"], joined["token"])


@pytest.mark.parametrize("count", [2, -1, True, 1.0, "1"])
async def test_human_seats_beyond_the_free_seats_or_not_a_count_are_refused(count: object) -> None:
    arena = Arena()
    with pytest.raises(NegotiationError) as refused:
        await arena.start_game("split_100", human_seats=count)  # type: ignore[arg-type]
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert (await arena.list_matches())["matches"] == []  # nothing was created


async def test_human_seats_and_opponents_share_the_free_seats() -> None:
    house = HouseSeats(Arena())
    with pytest.raises(NegotiationError) as refused:
        await house.start_game("auction", opponents=["random"], human_seats=2)
    assert refused.value.details == {"free": 1}
