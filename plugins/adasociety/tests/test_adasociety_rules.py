"""The AdaSociety rules, each checked with the numbers of the original game (not read off this code)."""

from __future__ import annotations

from typing import Any

import pytest

from negotiation_adasociety import AdaSocietyConfig, AdaSocietyGame
from negotiation_adasociety.social import Society
from negotiation_adasociety.world import Draws
from negotiation_platform.engine.match import Match
from negotiation_platform.errors import ErrorCode, NegotiationError

PLAYERS = ["c0", "c1", "m2", "m3"]
Script = dict[str, tuple[str, dict[str, Any]]]


def play_step(match: Match, actions: Script) -> None:
    """One environment step: every listed player's action; the others stay, or take their first legal action."""
    game = match.game
    assert isinstance(game, AdaSocietyGame)
    for player in list(match.acting()):
        legal = game.legal_actions(player)
        filler = {"type": "stay"} if {"type": "stay"} in legal else legal[0]
        kind, payload = actions.get(player, (filler["type"], {k: v for k, v in filler.items() if k != "type"}))
        match.submit(player, kind, payload)


def physical_match(draws: Draws, **config: Any) -> Match:
    """A match with no negotiation phase on a map laid out by hand."""
    match = Match(AdaSocietyGame, PLAYERS, config={"negotiation_steps": 0, **config}, seed=3)
    game = match.game
    assert isinstance(game, AdaSocietyGame)
    game.use_draws(draws)
    return match


def cell(x: int, y: int, size: int = 7) -> int:
    return x * size + y


def spread_draws(players: list[int], *, piles: list[int] | None = None, events: list[int] | None = None) -> Draws:
    """Piles (4 wood then 4 stone) on given or bottom-row cells, and the 41 events on every other cell."""
    pile_cells = piles or [cell(6, y) for y in range(7)] + [cell(5, 0)]
    event_cells = events or [c for c in range(49) if c not in pile_cells][:41]
    return Draws(pile_cells=tuple(pile_cells), event_cells=tuple(event_cells), player_cells=tuple(players))


def position(match: Match, player: str) -> list[int]:
    return match.game.get_player_view(player)["you"]["position"]


def inventory(match: Match, player: str) -> dict[str, int]:
    return match.game.get_player_view(player)["you"]["inventory"]


def rewards(match: Match) -> dict[str, float]:
    return {p: match.game.get_player_view(p)["reward"]["last_step"] for p in PLAYERS}


def refusal(match: Match, player: str, kind: str, payload: dict[str, Any] | None = None) -> NegotiationError:
    with pytest.raises(NegotiationError) as caught:
        match.submit(player, kind, payload or {})
    return caught.value


# --- the map ------------------------------------------------------------------------------


def test_moves_wrap_around_the_torus() -> None:
    match = physical_match(spread_draws([cell(0, 0), cell(3, 3), cell(2, 5), cell(4, 1)]))
    play_step(match, {"c0": ("move", {"direction": "up"}), "c1": ("move", {"direction": "right"})})
    assert position(match, "c0") == [6, 0]
    assert position(match, "c1") == [3, 4]
    play_step(match, {"c0": ("move", {"direction": "left"})})
    assert position(match, "c0") == [6, 6]
    play_step(match, {"c0": ("move", {"direction": "down"})})
    assert position(match, "c0") == [0, 6]


def test_the_higher_priority_mover_takes_a_contested_cell() -> None:
    # c0 at (2,2) and c1 at (2,4) both step into (2,3); whoever the step's draw ranks higher gets it.
    match = physical_match(spread_draws([cell(2, 2), cell(2, 4), cell(0, 0), cell(0, 3)]))
    play_step(match, {"c0": ("move", {"direction": "right"}), "c1": ("move", {"direction": "left"})})
    priority = match.game.step_priorities[-1]
    winner, loser = ("c0", "c1") if priority[0] > priority[1] else ("c1", "c0")
    assert position(match, winner) == [2, 3]
    assert position(match, loser) == ([2, 2] if loser == "c0" else [2, 4])


def test_players_may_swap_cells_but_not_enter_one_whose_occupant_stays() -> None:
    match = physical_match(spread_draws([cell(1, 1), cell(1, 2), cell(3, 3), cell(3, 4)]))
    play_step(
        match,
        {
            "c0": ("move", {"direction": "right"}),
            "c1": ("move", {"direction": "left"}),
            "m2": ("move", {"direction": "right"}),
        },
    )
    assert (position(match, "c0"), position(match, "c1")) == ([1, 2], [1, 1])
    assert position(match, "m2") == [3, 3], "m3 stayed on (3,4), so m2 is blocked"


def test_a_chain_behind_a_blocked_player_stays_put() -> None:
    # m3 stays on (0,3); m2 at (0,2) pushes into it, c1 at (0,1) into m2's cell, c0 at (0,0) into c1's.
    match = physical_match(spread_draws([cell(0, 0), cell(0, 1), cell(0, 2), cell(0, 3)]))
    right = ("move", {"direction": "right"})
    play_step(match, {"c0": right, "c1": right, "m2": right})
    assert [position(match, p) for p in PLAYERS] == [[0, 0], [0, 1], [0, 2], [0, 3]]


# --- items, caps, the recipe, rewards -----------------------------------------------------


def test_crafting_a_hammer_is_worth_three_to_a_carpenter() -> None:
    # c0 stands on a wood pile next to a stone pile; every other cell but the piles' holds an event.
    wood, stone = cell(2, 2), cell(2, 3)
    piles = [wood, cell(6, 0), cell(6, 1), cell(6, 2), stone, cell(6, 4), cell(6, 5), cell(6, 6)]
    events = [c for c in range(49) if c not in piles][:41]
    assert stone not in events and cell(1, 3) in events
    match = physical_match(spread_draws([wood, cell(4, 4), cell(0, 5), cell(5, 5)], piles=piles, events=events))
    play_step(match, {"c0": ("pick", {"resource": "wood"})})
    assert rewards(match)["c0"] == 1
    play_step(match, {"c0": ("move", {"direction": "right"})})
    play_step(match, {"c0": ("pick", {"resource": "stone"})})
    assert inventory(match, "c0") == {"wood": 1, "stone": 1, "hammer": 0}
    assert refusal(match, "c0", "produce").message == "produce: there is no event on your cell"
    play_step(match, {"c0": ("move", {"direction": "up"})})
    play_step(match, {"c0": ("produce", {})})
    assert inventory(match, "c0") == {"wood": 0, "stone": 0, "hammer": 1}
    assert rewards(match)["c0"] == 3, "−1 wood −1 stone +5 hammer"
    view = match.game.get_player_view("c0")["visible_piles"]
    assert {"resource": "wood", "amount": 4, "position": [2, 2]} in view


def test_a_hammer_handed_over_costs_the_carpenter_five_and_earns_the_miner_ten() -> None:
    match = physical_match(spread_draws([cell(3, 3), cell(0, 0), cell(3, 4), cell(5, 5)]))
    game = match.game
    game.world.inventory[0][2] = 1  # c0 holds a hammer (as if crafted)
    play_step(match, {"c0": ("dump", {"resource": "hammer"}), "m2": ("stay", {})})
    assert rewards(match)["c0"] == -5
    play_step(match, {"c0": ("move", {"direction": "up"}), "m2": ("move", {"direction": "left"})})
    play_step(match, {"m2": ("pick", {"resource": "hammer"})})
    assert rewards(match)["m2"] == 10
    assert inventory(match, "m2")["hammer"] == 1


def test_caps_limit_what_each_job_may_pick() -> None:
    wood = cell(1, 1)
    piles = [wood, cell(6, 0), cell(6, 1), cell(6, 2), cell(6, 3), cell(6, 4), cell(6, 5), cell(6, 6)]
    match = physical_match(spread_draws([cell(3, 3), cell(0, 0), wood, cell(5, 5)], piles=piles))
    assert refusal(match, "m2", "pick", {"resource": "wood"}).message == "pick: you already hold 0 wood, your cap is 0"
    match.game.world.inventory[0][2] = 1
    match.game.world.piles[cell(3, 3)][2] = 2
    match.game._legal.clear()
    assert refusal(match, "c0", "pick", {"resource": "hammer"}).message.endswith("your cap is 1")
    assert refusal(match, "c1", "pick", {"resource": "stone"}).message == "pick: no stone on your cell"
    assert refusal(match, "c1", "dump", {"resource": "wood"}).message == "dump: you hold no wood"


def test_group_members_share_every_reward_by_their_shares() -> None:
    match = physical_match(spread_draws([cell(3, 3), cell(0, 0), cell(1, 1), cell(5, 5)]))
    society = match.game.society
    society.request(0, 2)
    society.request(2, 0)
    society.post_update()
    society.propose(2, 0.3)
    society.accept(0)
    society.post_update()
    match.game.world.inventory[0][2] = 1
    play_step(match, {"c0": ("dump", {"resource": "hammer"})})
    assert rewards(match) == pytest.approx({"c0": -3.5, "c1": 0, "m2": -1.5, "m3": 0})


# --- the negotiation phase ----------------------------------------------------------------


def negotiation_match(**config: Any) -> Match:
    return Match(AdaSocietyGame, PLAYERS[:3], config={"jobs": THREE_JOBS, **config}, seed=5)


THREE_JOBS = [
    {
        "name": "carpenter",
        "fov": 3,
        "caps": {"wood": 100, "stone": 100, "hammer": 1},
        "values": {"hammer": 5},
        "count": 2,
    },
    {"name": "miner", "fov": 3, "caps": {"hammer": 100}, "values": {"hammer": 10}, "count": 1},
]


def test_the_phase_switches_after_twenty_one_steps() -> None:
    match = Match(AdaSocietyGame, PLAYERS, seed=1)
    assert AdaSocietyConfig().negotiation_steps == 21
    request = {"c0": ("request_match", {"player": "c1"}), "c1": ("request_match", {"player": "c0"})}
    for step in range(21):
        assert match.phase == "negotiation", step
        assert refusal(match, "m2", "move", {"direction": "up"}).code is ErrorCode.PHASE_CLOSED
        others = {"m2": ("request_match", {"player": "m3"}), "m3": ("request_match", {"player": "m2"})}
        play_step(match, {**request, **others} if step == 0 else {})
    assert match.phase == "physical"
    assert match.game.get_player_view("c0")["step"] == 21
    assert refusal(match, "c0", "end").code is ErrorCode.PHASE_CLOSED


def test_partners_alternate_by_parity_and_the_opener_must_propose() -> None:
    match = negotiation_match()
    assert refusal(match, "c0", "stay").message.startswith("stay: without a partner you must invite")
    # step 0: c0 and m2 invite each other and become partners; c1 invites c0 and is left alone.
    play_step(
        match,
        {
            "c0": ("request_match", {"player": "m2"}),
            "m2": ("request_match", {"player": "c0"}),
            "c1": ("request_match", {"player": "c0"}),
        },
    )
    bargain = match.game.get_player_view("c0")["bargaining"]
    assert bargain == {"partner": "m2", "your_turn": False, "your_claim": None, "partner_claim": None}
    # step 1 is odd: m2 (the higher id, parity 1) opens and must propose; c0 may only stay.
    assert [a.name for a in match.allowed_actions("m2")] == ["propose"]
    assert refusal(match, "m2", "accept").message == "accept: the opening move of a bargain must be a proposal"
    assert refusal(match, "c0", "propose", {"share": 0.5}).message.startswith("propose: it is m2's turn")
    assert match.game.get_player_view("c1")["invitable"] == [], "everyone else is bargaining"
    play_step(match, {"m2": ("propose", {"share": 0.6})})
    # step 2: c0's turn; it may accept, end or counter.
    assert sorted(a.name for a in match.allowed_actions("c0")) == ["accept", "end", "propose"]
    assert refusal(match, "m2", "end").message.startswith("end: it is c0's turn")
    play_step(match, {"c0": ("accept", {})})
    groups = match.game.get_player_view("c0")["groups"]
    assert groups == [{"group": 0, "shares": {"c0": pytest.approx(0.4), "m2": pytest.approx(0.6)}}]


def test_a_grouped_pair_cannot_reinvite_each_other_but_an_outsider_can_merge_in() -> None:
    match = negotiation_match()
    pair = {"c0": ("request_match", {"player": "m2"}), "m2": ("request_match", {"player": "c0"})}
    play_step(match, {**pair, "c1": ("request_match", {"player": "c0"})})
    play_step(match, {"m2": ("propose", {"share": 0.5})})
    play_step(match, {"c0": ("accept", {})})
    assert refusal(match, "c0", "request_match", {"player": "m2"}).message == (
        "request_match: m2 is already in your group"
    )
    assert match.game.get_player_view("c0")["invitable"] == ["c1"]
    play_step(
        match,
        {
            "c0": ("request_match", {"player": "c1"}),
            "c1": ("request_match", {"player": "c0"}),
            "m2": ("request_match", {"player": "c1"}),
        },
    )
    play_step(match, {"c0": ("propose", {"share": 0.6})})  # step 4 is even: c0 (parity 0) opens
    play_step(match, {"c1": ("accept", {})})
    shares = match.game.get_player_view("c1")["groups"][0]["shares"]
    assert shares == pytest.approx({"c0": 0.3, "m2": 0.3, "c1": 0.4})


def test_end_lets_the_same_pair_match_again_at_once() -> None:
    match = negotiation_match()
    pair = {"c0": ("request_match", {"player": "m2"}), "m2": ("request_match", {"player": "c0"})}
    play_step(match, {**pair, "c1": ("request_match", {"player": "c0"})})
    play_step(match, {"m2": ("propose", {"share": 0.9})})
    play_step(match, {"c0": ("end", {})})
    assert match.game.get_player_view("c0")["bargaining"] is None
    play_step(match, {**pair, "c1": ("request_match", {"player": "c0"})})
    assert match.game.get_player_view("m2")["bargaining"]["partner"] == "c0"


def deals(society: Society, *bargains: tuple[int, int, float]) -> None:
    """Each (accepter, proposer) pair matches; then every proposer claims and every accepter accepts within
    one post-update (the social rules alone, without the turn order the game adds)."""
    for accepter, proposer, _ in bargains:
        society.request(accepter, proposer)
        society.request(proposer, accepter)
    society.post_update()
    for _, proposer, claim in bargains:
        society.propose(proposer, claim)
    for accepter, _, _ in bargains:
        society.accept(accepter)
    society.post_update()


def test_same_step_accepts_compound_as_in_the_original() -> None:
    """The note's observed case: group {c0 .7, m3 .3}; c0 accepts m2's claim .2 while c1 accepts m3's .9."""
    society = Society(PLAYERS, ["carpenter", "carpenter", "miner", "miner"])
    deals(society, (0, 3, 0.3))
    assert [society.share(p) for p in (0, 3)] == pytest.approx([0.7, 0.3])
    deals(society, (0, 2, 0.2), (1, 3, 0.9))
    assert [society.share(p) for p in range(4)] == pytest.approx([0.494, 0.098, 0.196, 0.212], abs=5e-4)


def test_a_proposal_must_be_on_the_scale() -> None:
    match = negotiation_match()
    pair = {"c0": ("request_match", {"player": "m2"}), "m2": ("request_match", {"player": "c0"})}
    play_step(match, {**pair, "c1": ("request_match", {"player": "c0"})})
    assert refusal(match, "m2", "propose", {"share": 0.55}).code is ErrorCode.INVALID_PAYLOAD
    assert refusal(match, "m2", "propose", {"share": "0.5"}).code is ErrorCode.INVALID_PAYLOAD
    assert refusal(match, "m2", "propose", {"share": 1.0}).code is ErrorCode.INVALID_PAYLOAD
    match.submit("m2", "propose", {"share": 0.1})


def test_a_group_touched_then_merged_away_in_one_step_is_not_normalised_twice() -> None:
    """Pairs merge in order of their lower id: (0, 1) puts the loner 0 into 1's group, then (2, 3) moves that
    whole group into 2's. Shares are normalised once, over the surviving group."""
    society = Society([f"p{i}" for i in range(5)], ["carpenter"] * 3 + ["miner"] * 2)
    deals(society, (1, 3, 0.5))  # group x = {1, 3}
    deals(society, (2, 4, 0.5))  # group y = {2, 4}
    deals(society, (0, 1, 0.5), (2, 3, 0.5))
    assert society.groups() == [("group", 1)]
    assert [society.share(p) for p in range(5)] == pytest.approx([0.4, 0.1, 0.2, 0.1, 0.2])


def test_available_player_lists_the_invitable_players_every_step_as_the_original() -> None:
    """The original's RL observation lists who is invitable at every step (`_find_invitable_players`),
    also while the observer bargains and in the physical phase: anyone else, not in its group, not bargaining."""
    match = Match(AdaSocietyGame, PLAYERS, config={"negotiation_steps": 4}, seed=1)
    game = match.game
    assert isinstance(game, AdaSocietyGame)
    play_step(
        match,
        {
            "c0": ("request_match", {"player": "m2"}),
            "m2": ("request_match", {"player": "c0"}),
            "c1": ("request_match", {"player": "c0"}),
            "m3": ("request_match", {"player": "c0"}),
        },
    )
    available = {p: game.observation(p)["available_player"] for p in PLAYERS}
    # c0 and m2 bargain: neither is invitable, and each still sees who is (c1, m3)
    assert available == {"c0": [0, 1, 0, 1], "c1": [0, 0, 0, 1], "m2": [0, 1, 0, 1], "m3": [0, 1, 0, 0]}
    play_step(match, {"m2": ("propose", {"share": 0.6})})  # c1 and m3, the only ones free, must pair up
    play_step(match, {"c0": ("accept", {}), "c1": ("propose", {"share": 0.5})})  # c0 and m2 form a group
    play_step(match, {"m3": ("end", {})})  # the last negotiation step: c1 and m3 part
    assert match.phase == "physical"
    assert game.observation("c0")["available_player"] == [0, 1, 0, 1]  # not m2: its group
    assert game.observation("c1")["available_player"] == [1, 0, 1, 1]
