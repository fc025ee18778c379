"""The three documented games follow every rule in their docstrings, through the engine and the documented API."""

from __future__ import annotations

import pytest

from negotiation_platform.engine import Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games import (
    CompanyCarGame,
    IntegrativeNegotiationsGame,
    ResourceAllocationGame,
)
from negotiation_platform.games.base_game import GameState

TRADE = {"server_room": 150, "meeting_access": 7, "cleaning": "Outsourced", "branding": "Prominent"}
SPLIT = {"server_room": 100, "meeting_access": 4, "cleaning": "Shared", "branding": "Moderate"}


def match(game, seed: int = 3, **config) -> Match:  # type: ignore[no-untyped-def]
    return Match(game, ["p", "q"], config=config, seed=seed)


def player_with_role(m: Match, role: str) -> str:
    return str(m.game.game_data["role_assignments"][role])


def act(m: Match, player: str, action: str, payload: dict | None = None) -> None:  # type: ignore[type-arg]
    """Play `player`'s action, letting the other player reject first if the shuffled order needs it."""
    if m.acting() != [player]:
        m.submit(m.acting()[0], "reject")
    m.submit(player, action, payload)


class TestSharedProtocol:
    def test_roles_are_drawn_from_the_seed(self) -> None:
        buyers = {player_with_role(match(CompanyCarGame, seed=s), "buyer") for s in range(12)}
        assert buyers == {"p", "q"}
        assert player_with_role(match(CompanyCarGame, seed=5), "buyer") == player_with_role(
            match(CompanyCarGame, seed=5), "buyer"
        )

    def test_order_is_shuffled_each_round_and_both_act_once(self) -> None:
        m = match(CompanyCarGame, seed=2)
        openers = []
        for _ in range(5):
            openers.append(m.acting()[0])
            m.submit(m.acting()[0], "reject")
            m.submit(m.acting()[0], "reject")
        assert m.finished and set(openers) == {"p", "q"}

    @pytest.mark.parametrize("rounds", [2, 5, 8])
    def test_batna_decays_per_round(self, rounds: int) -> None:
        m = match(CompanyCarGame, rounds=rounds, batna_decay=0.02)
        game = m.game
        buyer = player_with_role(m, "buyer")
        assert game.get_current_batna(buyer, 1) == pytest.approx(41000)
        assert game.get_current_batna(buyer, 3) == pytest.approx(41000 * 0.98**2)
        assert game.get_current_batna("seller", 2) == pytest.approx(39000 * 0.98)

    def test_per_role_decay(self) -> None:
        game = match(IntegrativeNegotiationsGame, batna_decay={"IT": 0.1, "Marketing": 0.0}).game
        assert game.get_current_batna("IT", 2) == pytest.approx(27 * 0.9)
        assert game.get_current_batna("Marketing", 4) == pytest.approx(19)

    def test_proposal_limit_is_rounds_minus_one(self) -> None:
        m = match(CompanyCarGame, rounds=3)
        buyer = player_with_role(m, "buyer")
        for price in (30000, 31000):  # rounds 1 and 2: the buyer offers, the seller rejects
            for _ in range(2):
                who = m.acting()[0]
                m.submit(who, *(("offer", {"price": price}) if who == buyer else ("reject", None)))
        assert m.round == 3 and m.game.proposals_left(buyer) == 0
        assert m.game.explain_invalid_action(buyer, {"type": "offer", "price": 32000}) == (
            "Proposal limit reached: you have made all 2 proposals."
        )
        if m.acting() != [buyer]:
            m.submit(m.acting()[0], "reject")
        with pytest.raises(NegotiationError) as info:
            m.submit(buyer, "offer", {"price": 32000})
        assert info.value.code is ErrorCode.LIMIT_REACHED

    def test_accept_agrees_on_the_standing_offer(self) -> None:
        m = match(CompanyCarGame)
        buyer, seller = player_with_role(m, "buyer"), player_with_role(m, "seller")
        act(m, seller, "offer", {"price": 40000})
        act(m, buyer, "accept")
        assert m.result is not None and m.result.game_data["terms"] == {"price": 40000.0}
        assert m.game.game_data["agreement"]["how"] == "accepted"

    def test_identical_offers_in_the_same_round_agree(self) -> None:
        m = match(CompanyCarGame, seed=4)
        first, second = m.acting()[0], next(p for p in m.players if p != m.acting()[0])
        m.submit(first, "offer", {"price": 40000})
        m.submit(second, "offer", {"price": 40000})
        assert m.finished and m.game.game_data["agreement"]["how"] == "identical offers"

    def test_reject_ends_only_without_proposals_left(self) -> None:
        m = match(CompanyCarGame, rounds=2)
        first = m.acting()[0]
        m.submit(first, "reject")  # proposals left: 1, so the game goes on
        assert not m.finished
        second = m.acting()[0]
        m.submit(second, "reject")
        round_two_first = m.acting()[0]
        m.submit(round_two_first, "offer", {"price": 40500})
        other = m.acting()[0]
        m.submit(other, "offer", {"price": 39500})
        assert m.finished and m.game.game_data["agreement"] is None  # rounds ran out

        m = match(CompanyCarGame, rounds=2)
        opener = m.acting()[0]
        m.submit(opener, "offer", {"price": 41000})
        m.submit(m.acting()[0], "reject")
        if m.acting()[0] != opener:
            m.submit(m.acting()[0], "reject")
        m.submit(opener, "reject")  # no proposals left: this reject ends the game
        assert m.finished and m.game.game_data["ended_by"] == opener

    def test_accept_without_offer_is_refused_and_changes_nothing(self) -> None:
        m = match(CompanyCarGame)
        before = [e.to_dict() for e in m.events]
        with pytest.raises(NegotiationError) as info:
            m.submit(m.acting()[0], "accept")
        assert info.value.code is ErrorCode.INVALID_ACTION
        assert [e.to_dict() for e in m.events] == before


class TestCompanyCar:
    def test_payoffs_surplus_and_winner(self) -> None:
        m = match(CompanyCarGame, seed=1)
        buyer, seller = player_with_role(m, "buyer"), player_with_role(m, "seller")
        act(m, buyer, "offer", {"price": 39500})
        act(m, seller, "accept")
        r = m.result
        assert r is not None
        b, s = 41000.0, 39000.0  # round 1: no decay yet
        assert r.final_scores[buyer] == pytest.approx(b + (b - 39500))
        assert r.final_scores[seller] == pytest.approx(s + (39500 - s))
        assert r.game_data["surplus"] == pytest.approx({buyer: 1500, seller: 500})
        assert r.winner == buyer

    def test_no_deal_pays_zero(self) -> None:
        m = match(CompanyCarGame, rounds=2)
        while not m.finished:
            m.submit(m.acting()[0], "reject")
        assert m.result is not None and m.result.final_scores == {"p": 0.0, "q": 0.0}
        assert m.result.winner is None

    def test_price_range_message(self) -> None:
        game = CompanyCarGame({"rounds": 5})
        game.initialize_game(["a", "b"])
        message = game.explain_invalid_action("a", {"type": "offer", "price": 5000})
        assert message is not None and "price" in message and "10000" in message
        too_high = game.explain_invalid_action("a", {"type": "offer", "price": 200000})
        assert too_high is not None and "price" in too_high and "less than or equal to 100000" in too_high
        assert game.is_valid_action("a", {"decision": {"type": "offer", "price": 42000}})


class TestResourceAllocation:
    def test_constraint_messages_name_every_violation(self) -> None:
        game = ResourceAllocationGame({})
        game.initialize_game(["a", "b"])
        game.check_constraints_and_update(98, 3)
        check = game.game_data["constraint_check"]
        assert check["constraints_met"] is False
        assert check["messages"] == [
            "Total resources exceeded: 101 > 100",
            "Bandwidth exceeded: 404 > 380",
            "CPU hours below minimum: 3 < 5",
        ]
        reason = game.explain_invalid_action("a", {"type": "propose", "gpu_hours": 96, "cpu_hours": 0})
        assert reason is not None and "Bandwidth exceeded" in reason and "CPU hours below minimum" in reason
        game.check_constraints_and_update(50, 45)
        assert game.game_data["constraint_check"]["constraints_met"] is True

    def test_offer_alias_and_gpu_cpu_keys(self) -> None:
        m = match(ResourceAllocationGame)
        m.submit(m.acting()[0], "offer", {"gpu": 50, "cpu": 40})
        event = [e for e in m.events if e.kind == "action"][-1]
        assert event.data["action_type"] == "propose"
        assert event.data["payload"] == {"gpu_hours": 50.0, "cpu_hours": 40.0}

    def test_accept_needs_an_earlier_round_offer_scored_at_its_round(self) -> None:
        m = match(ResourceAllocationGame, seed=6)
        dev, mkt = player_with_role(m, "development"), player_with_role(m, "marketing")
        first = m.acting()[0]
        other = mkt if first == dev else dev
        m.submit(first, "propose", {"gpu_hours": 50, "cpu_hours": 45})
        with pytest.raises(NegotiationError) as info:
            m.submit(other, "accept")
        assert info.value.code is ErrorCode.INVALID_ACTION
        m.submit(other, "reject")
        act(m, other, "accept")  # round 2: the round-1 offer may now be accepted
        r = m.result
        assert r is not None and r.total_rounds == 2
        assert r.final_scores[dev] == pytest.approx(8 * 50 + 6 * 45)
        assert r.final_scores[mkt] == pytest.approx(6 * 50 + 8 * 45)
        assert r.game_data["batnas"] == pytest.approx({dev: 300.0, mkt: 270.0})  # BATNAs of round 1

    def test_no_deal_pays_decayed_batnas(self) -> None:
        m = match(ResourceAllocationGame, rounds=3)
        while not m.finished:
            m.submit(m.acting()[0], "reject")
        dev, mkt = player_with_role(m, "development"), player_with_role(m, "marketing")
        assert m.result is not None
        assert m.result.final_scores == pytest.approx({dev: 300 * 0.985**2, mkt: 270 * 0.985**2})

    def test_uncertainty_hint_does_not_touch_scores_or_randomness(self) -> None:
        quiet = match(ResourceAllocationGame, seed=8)
        noisy = match(ResourceAllocationGame, seed=8, uncertainty=True)
        assert quiet.game.game_data["roles"] == noisy.game.game_data["roles"]
        noise = noisy.game.game_data["hint_noise"]
        assert all(-2 <= x <= 2 for xs in noise.values() for x in xs) and any(
            x != 0 for xs in noise.values() for x in xs
        )
        events_before = len(noisy.events)
        noisy.game.get_game_prompt("p")
        assert len(noisy.events) == events_before


class TestIntegrative:
    def test_trading_beats_splitting(self) -> None:
        game = IntegrativeNegotiationsGame({})
        game.initialize_game(["a", "b"])
        it, mkt = game.game_data["role_assignments"]["IT"], game.game_data["role_assignments"]["Marketing"]
        trade = {"server_room": 150, "meeting_access": 7, "cleaning": "Outsourced", "branding": "Prominent"}
        assert game.calculate_utility(it, trade) == pytest.approx(45)
        assert game.calculate_utility(mkt, trade) == pytest.approx(45)
        assert game.calculate_utility(it, SPLIT) == pytest.approx(30)
        assert game.calculate_utility(mkt, SPLIT) == pytest.approx(30)

    @pytest.mark.parametrize(
        ("issue", "value", "option"),
        [
            ("server_room", 75, 50),
            ("server_room", 76, 100),
            ("server_room", 125, 100),
            ("server_room", 126, 150),
            ("server_room", 10, 50),
            ("meeting_access", 3, 2),
            ("meeting_access", 3.5, 4),
            ("meeting_access", 5, 4),
            ("meeting_access", 5.5, 7),
            ("cleaning", "shared", "Shared"),
            ("branding", " PROMINENT ", "Prominent"),
        ],
    )
    def test_option_snapping(self, issue: str, value: object, option: object) -> None:
        assert IntegrativeNegotiationsGame({}).snap_option(issue, value) == option

    def test_unknown_option_lists_the_valid_ones_and_changes_nothing(self) -> None:
        m = match(IntegrativeNegotiationsGame)
        before = [e.to_dict() for e in m.events]
        with pytest.raises(NegotiationError) as info:
            m.submit(m.acting()[0], "propose", {"proposal": {**SPLIT, "cleaning": "Robots"}})
        assert info.value.code is ErrorCode.INVALID_ACTION
        assert "Robots" in info.value.message and "['IT', 'Shared', 'Outsourced']" in info.value.message
        with pytest.raises(NegotiationError) as info:
            m.submit(m.acting()[0], "propose", {"proposal": {"server_room": 100}})
        assert info.value.code is ErrorCode.INVALID_PAYLOAD and "cleaning" in info.value.message
        assert [e.to_dict() for e in m.events] == before
        assert not IntegrativeNegotiationsGame({}).is_valid_proposal({"server_room": 200})

    def test_agreement_scores_and_no_deal(self) -> None:
        m = match(IntegrativeNegotiationsGame, seed=2)
        first = m.acting()[0]
        m.submit(first, "propose", {"proposal": {**TRADE, "server_room": 140}})  # snaps to 150
        m.submit(m.acting()[0], "accept")
        assert m.result is not None
        assert m.result.game_data["terms"] == TRADE
        assert m.result.final_scores == pytest.approx({"p": 45.0, "q": 45.0})
        it, mkt = player_with_role(m, "IT"), player_with_role(m, "Marketing")
        assert m.result.game_data["surplus"] == pytest.approx({it: 45 - 27, mkt: 45 - 19})
        assert m.result.winner == mkt  # same utility, lower BATNA: the larger surplus


class TestDocumentedApiWithoutEngine:
    def test_company_car_as_the_document_shows(self) -> None:
        config = {
            "starting_price": 42000,
            "buyer_budget": 45000,
            "seller_cost": 38000,
            "buyer_batna": 41000,
            "seller_batna": 39000,
            "rounds": 5,
            "batna_decay": 0.02,
        }
        game = CompanyCarGame(config)
        assert game.state is GameState.WAITING and game.max_rounds == 5 and game.starting_price == 42000
        initial = game.initialize_game(["buyer_agent", "seller_agent"])
        assert set(initial["role_assignments"]) == {"buyer", "seller"} and initial["current_round"] == 1
        with pytest.raises(ValueError, match="exactly 2"):
            CompanyCarGame(config).initialize_game(["solo"])
        buyer = game.game_data["role_assignments"]["buyer"]
        seller = game.game_data["role_assignments"]["seller"]
        state = game.process_actions(
            {buyer: {"type": "offer", "price": 40000}, seller: {"type": "offer", "price": 43000}}, {}
        )
        assert state["agreement"] is None and game.current_round == 2 and game.current_price == 43000
        state = game.process_actions({buyer: {"decision": {"type": "accept"}}}, state)
        assert game.is_game_over(state) and game.agreement_reached and game.final_price == 43000
        summary = game.get_game_summary(state)
        assert summary["agreement_reached"] is True and summary["final_agreement"] == {"price": 43000.0}
        assert game.get_winner(state) == summary["winner"]
        assert game.get_game_info()["state"] == "completed"

    def test_invalid_batch_actions_are_logged_not_applied(self) -> None:
        game = IntegrativeNegotiationsGame({"rounds": 8, "batna_decay": 0.02})
        game.initialize_game(["alice", "bob"])
        game.process_actions({"alice": {"type": "propose", "proposal": {"server_room": 150}}}, {})
        assert game.game_data["offers"] == [] and "missing" in game.game_data["errors"][0]["error"]
        assert game.validate_response({"type": "propose", "proposal": {"server_room": 150}})
        assert not game.validate_response({"type": "invalid_action"})


class TestPrompts:
    @pytest.mark.parametrize(
        ("game", "label", "words"),
        [
            (CompanyCarGame, "Party", ["price", "BATNA"]),
            (ResourceAllocationGame, "Team", ["GPU", "gpu_hours"]),
            (IntegrativeNegotiationsGame, "Team", ["server_room", "weight"]),
        ],
    )
    def test_prompt_contents(self, game, label: str, words: list[str]) -> None:
        m = match(game, seed=1)
        first = m.acting()[0]
        second = next(p for p in m.players if p != first)
        m.submit(first, "reject")
        prompt = m.game.get_game_prompt(second)
        assert f"You are {label} " in prompt
        for loaded in ("buyer", "seller", "Development", "Marketing team", "IT team"):
            assert loaded not in prompt
        assert "Round 1 of 5" in prompt and "Proposals left: 4 of 4" in prompt
        assert "BATNA this round (after decay)" in prompt
        accept = '{"action_type": "accept", "payload": {}}'
        assert "RESPONSE FORMAT" in prompt and accept not in prompt  # nothing to accept yet
        assert '{"action_type": "reject", "payload": {}}' in prompt
        for word in words:
            assert word in prompt

    def test_prompt_shows_the_opponents_latest_offer_and_decayed_batna(self) -> None:
        m = match(CompanyCarGame, seed=1)
        first = m.acting()[0]
        second = next(p for p in m.players if p != first)
        m.submit(first, "offer", {"price": 40123})
        prompt = m.game.get_game_prompt(second)
        assert "Opponent's latest offer: $40,123 (round 1)" in prompt
        assert '{"action_type": "accept", "payload": {}}' in prompt
        m.submit(second, "reject")
        later = m.game.get_game_prompt(second)
        batna = m.game.get_current_batna(second, 2)
        assert "Round 2 of 5" in later and f"{batna:,.2f}" in later


@pytest.mark.parametrize("game_id", ["company_car", "resource_allocation", "integrative_negotiation"])
def test_the_two_party_games_talk_only_when_their_config_opens_chat(game_id: str) -> None:
    from negotiation_platform.registry import Registry
    from negotiation_platform.spec import Channel

    cls = Registry().game(game_id).cls
    (recorded,) = cls.spec_for(cls.parse_config({})).phases
    assert recorded.messaging.channel is Channel.NONE  # the game of record: no talk
    (talking,) = cls.spec_for(cls.parse_config({"messages_per_turn": 2, "max_message_length": 80})).phases
    assert talking.messaging.channel is Channel.PUBLIC
    assert (talking.messaging.per_turn, talking.messaging.max_length, talking.messaging.uses_turn) == (2, 80, False)
