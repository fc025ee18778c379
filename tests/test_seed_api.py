"""The examples of the documented `negotiation_platform.games` API, as written there.

Where an example is adapted, the comment names the row of docs/seed-contradictions.md that
requires it; everything else runs as the document shows it.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from negotiation_platform import Arena, RandomAgent, Registry, hookimpl, play_match
from negotiation_platform.agents import Decision
from negotiation_platform.engine import Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games import (
    BaseGame,
    CompanyCarGame,
    IntegrativeNegotiationsGame,
    ResourceAllocationGame,
)
from negotiation_platform.games.base_game import GameResult, GameState, PlayerAction

CAR_CONFIG = {
    "starting_price": 42000,
    "buyer_budget": 45000,
    "seller_cost": 38000,
    "buyer_batna": 41000,
    "seller_batna": 39000,
    "rounds": 5,
    "batna_decay": 0.02,
}


class CustomGame(BaseGame):  # type: ignore[type-arg]
    """The document's `CustomGame`, its other abstract methods implemented: a price haggle.

    Players offer prices ({"type": "offer", "price": p}) until one accepts the other's last offer
    ({"type": "accept"}); the first seat sells and scores the price, the second buys and scores 100 - p.
    """

    def initialize_game(self, players):  # type: ignore[no-untyped-def]
        self.players = players
        self.state = GameState.ACTIVE
        return True

    def is_valid_action(self, player, action, game_state):  # type: ignore[no-untyped-def]
        if action.get("type") == "offer":
            price = action.get("price")
            return isinstance(price, int | float) and 0 <= price <= 100
        last = game_state.get("last_offer")
        return action.get("type") == "accept" and last is not None and last["by"] != player

    def process_action(self, action):  # type: ignore[no-untyped-def]
        self.add_action(action)
        move = action.action_data
        if move["type"] == "offer":
            self.game_data["last_offer"] = {"by": action.player_id, "price": move["price"]}
        else:
            self.game_data["deal"] = self.game_data["last_offer"]["price"]
        return self.game_data

    def check_end_conditions(self):  # type: ignore[no-untyped-def]
        return "deal" in self.game_data

    def calculate_scores(self):  # type: ignore[no-untyped-def]
        deal = self.game_data.get("deal")
        if deal is None:
            return dict.fromkeys(self.players, 0.0)
        seller, buyer = self.players
        return {seller: float(deal), buyer: 100.0 - deal}

    def get_game_prompt(self, player_id):  # type: ignore[no-untyped-def]
        last = self.game_data.get("last_offer")
        return (
            f"Round {self.current_round} of {self.max_rounds}. Last offer: {last}. "
            'Answer {"type": "offer", "price": 0..100} or {"type": "accept"}.'
        )


class TestBaseGame:
    def test_custom_game_as_the_document_shows(self) -> None:
        game = CustomGame("game_1", {"max_rounds": 5})
        assert game.state is GameState.WAITING and game.max_rounds == 5
        success = game.initialize_game(["player1", "player2"])
        assert success is True and game.state is GameState.ACTIVE

    def test_constructor_example(self) -> None:
        game = CustomGame("negotiation_001", {"max_rounds": 5})
        assert str(game.state) == "GameState.WAITING" and game.max_rounds == 5
        # Row 14: `time_limit` is refused, as the engine keeps no session clock.
        with pytest.raises(ValidationError, match="time_limit"):
            CustomGame("negotiation_001", {"max_rounds": 5, "time_limit": 1800})

    def test_add_action_and_player_action(self) -> None:
        game = CustomGame("game_1", {"max_rounds": 5})
        action = PlayerAction(
            player_id="player1",
            action_type="offer",
            action_data={"price": 42000},
            timestamp=1609459200.0,
            round_number=3,
        )
        game.add_action(action)
        assert game.actions_history == [action] and action.action_data["price"] == 42000

    def test_game_result_example(self) -> None:
        result = GameResult(
            game_id="session_2023_001",
            players=["model_a", "model_b"],
            winner="model_a",
            final_scores={"model_a": 8.5, "model_b": 6.2},
            total_rounds=4,
            game_data={"agreement_reached": True, "final_price": 43500},
            success=True,
        )
        assert result.final_scores["model_a"] == 8.5
        assert result.payoffs is result.final_scores  # one thing, the documented name and the platform's word
        assert "payoffs" not in result.to_dict()  # the record's shape is the documented one

    def test_company_car_keeps_its_documented_module_path(self) -> None:
        from negotiation_platform.games import company_car, price_bargaining

        assert price_bargaining.CompanyCarGame is company_car.CompanyCarGame is CompanyCarGame

    def test_game_state_values(self) -> None:
        assert [s.value for s in GameState] == ["waiting", "active", "completed", "failed"]

    def test_the_generic_spec_of_a_game_without_one(self) -> None:
        spec = CustomGame.spec_for({"max_rounds": 4, "players": 3})
        assert (spec.id, spec.title, spec.rounds) == ("custom", "Custom Game", 4)
        assert (spec.roles.min_players, spec.roles.max_players) == (3, 3)
        assert spec.summary.startswith("The document's `CustomGame`")
        (phase,) = spec.phases
        assert [a.name for a in phase.actions] == ["act"]
        assert phase.actions[0].model_dump(mode="json")["payload"]["additionalProperties"] is True
        with pytest.raises(ValidationError, match="max_rounds"):
            CustomGame.parse_config({"rounds": 4, "max_rounds": 5})


class TestCustomGameThroughTheEngine:
    def test_a_whole_match_with_scripted_actions(self) -> None:
        m = Match(CustomGame, ["seller", "buyer"], config={"max_rounds": 5}, seed=1)
        m.submit("seller", "act", {"type": "offer", "price": 70})
        m.submit("buyer", "act", {"type": "offer", "price": 50})
        info = m.game.get_game_info()
        assert (info["state"], info["current_round"], info["max_rounds"]) == ("active", 2, 5)
        with pytest.raises(NegotiationError) as refused:  # the game's own is_valid_action judges the move
            m.submit("seller", "act", {"type": "offer", "price": 150})
        assert refused.value.code is ErrorCode.INVALID_ACTION and "'offer'" in refused.value.message
        with pytest.raises(NegotiationError) as refused:  # round 2 opens with the first seat again
            m.submit("buyer", "act", {"type": "accept"})
        assert refused.value.code is ErrorCode.NOT_YOUR_TURN
        m.submit("seller", "act", {"type": "accept"})
        assert m.result is not None and m.result.final_scores == {"seller": 50.0, "buyer": 50.0}
        assert m.game.state is GameState.COMPLETED and m.result.total_rounds == 2
        accepted = m.game.actions_history[-1]
        assert (accepted.action_type, accepted.action_data) == ("act", {"type": "accept"})

    def test_refusals_change_nothing(self) -> None:
        m = Match(CustomGame, ["seller", "buyer"], seed=1)
        before = [e.to_dict() for e in m.events]
        with pytest.raises(NegotiationError):
            m.submit("seller", "act", {"type": "accept"})  # nothing to accept yet
        with pytest.raises(NegotiationError) as refused:
            m.submit("seller", "act", {"type": "x" * 5000})
        assert len(refused.value.message) < 200
        assert [e.to_dict() for e in m.events] == before and m.game.actions_history == []

    @pytest.mark.anyio
    async def test_a_whole_match_through_play_match(self) -> None:
        class Haggler:
            """A scripted agent: opens at 80 and comes down by 10 until the other side accepts."""

            name = "haggler"

            def __init__(self) -> None:
                self.price = 90

            def decide(self, turn: dict[str, Any]) -> Decision:
                self.price -= 10
                return Decision(action="act", payload={"type": "offer", "price": self.price})

        class Accepter:
            name = "accepter"

            def decide(self, turn: dict[str, Any]) -> Decision:
                return Decision(action="act", payload={"type": "accept"})

        class Plugin:
            @hookimpl
            def register_games(self) -> list[type[Any]]:
                return [CustomGame]

        registry = Registry(entry_points=False)
        registry.register(Plugin(), name="custom_plugin")
        result = await play_match(Arena(registry), "custom", [Haggler(), Accepter()], config={"max_rounds": 3})
        assert result["status"] == "finished" and result["payoffs"] == {"haggler": 80.0, "accepter": 20.0}

        # Built-in agents read only the spec, so their moves are refused and forfeited; the match still ends.
        random_play = await play_match(
            Arena(registry), "custom", [RandomAgent(seed=1, name="r1"), RandomAgent(seed=2, name="r2")]
        )
        assert random_play["status"] == "finished" and random_play["rounds"] == 10


class TestCompanyCarGame:
    def test_package_example(self) -> None:
        car_game = CompanyCarGame({"starting_price": 42000, "rounds": 5})
        assert car_game.starting_price == 42000 and car_game.max_rounds == 5
        office_game = IntegrativeNegotiationsGame({"rounds": 8, "batna_decay": 0.02})
        assert office_game.max_rounds == 8
        # Row 6: the resource game has no `total_gpus` or `total_budget`; unknown keys are refused.
        with pytest.raises(ValidationError, match="total_gpus"):
            ResourceAllocationGame({"total_gpus": 10, "total_budget": 100000})

    def test_class_example_with_the_documented_state(self) -> None:
        game = CompanyCarGame(CAR_CONFIG)
        game_state = game.initialize_game(["buyer_agent", "seller_agent"])
        assert {"private_info", "public_info", "game_config", "role_assignments"} <= set(game_state)
        assert game_state["game_config"]["buyer_budget"] == 45000
        assert game_state["public_info"]["starting_price"] == 42000
        buyer = game_state["role_assignments"]["buyer"]
        private = game_state["private_info"][buyer]
        assert private == {"role": "buyer", "label": "Party A", "batna": 41000, "budget": 45000}
        action = {"type": "offer", "price": 40000}
        valid = game.is_valid_action("buyer_agent", action)
        assert valid
        state = game.process_actions({"buyer_agent": action}, game_state)
        assert state["agreement_reached"] is False and state["game_over"] is False
        assert state["final_price"] is None and state["final_utilities"] is None

        state = game.process_actions({"seller_agent": {"type": "accept"}}, state)
        assert state["agreement_reached"] is True and state["game_over"] is True and state["final_price"] == 40000
        buyer_score = 41000 + (41000 - 40000)
        seller_score = 39000 + (40000 - 39000)
        seller = "seller_agent" if buyer == "buyer_agent" else "buyer_agent"
        assert state["final_utilities"] == {buyer: buyer_score, seller: seller_score}
        assert game.get_winner(state) is None  # both gain 1000 over their BATNA: a tie

    def test_method_examples(self) -> None:
        game = CompanyCarGame(CAR_CONFIG)
        state = game.initialize_game(["buyer", "seller"])
        buyer, seller = state["role_assignments"]["buyer"], state["role_assignments"]["seller"]
        assert game.is_valid_action(buyer, {"type": "offer", "price": 42000}, state)
        new_state = game.process_actions(
            {buyer: {"type": "offer", "price": 41000}, seller: {"type": "offer", "price": 43000}}, state
        )
        assert new_state["agreement_reached"] is False
        assert game.is_valid_action(seller, {"decision": {"type": "accept"}}, new_state)
        new_state = game.process_action(PlayerAction("buyer", "offer", {"price": 42000}, 1609459200.0, 3))
        assert new_state["standing"]["buyer"]["terms"] == {"price": 42000.0}
        assert game.is_game_over({"agreement_reached": True})
        assert game.is_game_over({"current_round": 6, "agreement_reached": False})
        prompt = game.get_game_prompt(buyer)
        assert "Party A" in prompt and "JSON" in prompt and "BATNA" in prompt

    def test_get_winner_decides_from_the_state_it_is_given(self) -> None:
        game = CompanyCarGame(CAR_CONFIG)
        game.initialize_game(["buyer", "seller"])  # no agreement in the game itself
        game_state = {"agreement_reached": True, "utility_surplus": {"buyer": 1000, "seller": 500}}
        assert game.get_winner(game_state) == "buyer"
        assert game.get_winner({"agreement_reached": False, "utility_surplus": {"buyer": 1000}}) is None
        assert game.get_winner({"agreement_reached": True, "utility_surplus": {"buyer": 7, "seller": 7}}) is None
        assert game.get_winner({"agreement_reached": True}) is None  # utilities unavailable
        assert game.get_winner() is None

    def test_max_rounds_is_the_documented_name_of_rounds(self) -> None:
        game = CompanyCarGame({**{k: v for k, v in CAR_CONFIG.items() if k != "rounds"}, "max_rounds": 3})
        assert game.max_rounds == 3 and game.spec.rounds == 3 and game.config["rounds"] == 3


class TestResourceAllocationGame:
    def test_initial_state_carries_the_documented_keys(self) -> None:
        game = ResourceAllocationGame({"max_rounds": 5, "batna_decay": 0.02})
        initial_state = game.initialize_game(["model_a", "model_b"])
        assert "private_info" in initial_state and initial_state["current_round"] == 1
        assert initial_state["resource_history"] == [] and initial_state["agreement_reached"] is False
        assert initial_state["max_rounds"] == 5
        dev = initial_state["role_assignments"]["development"]
        assert initial_state["private_info"][dev]["utility_coefficients"] == {"gpu_hours": 8, "cpu_hours": 6}
        assert initial_state["public_info"]["constraints"]["total_resources"] == 100
        with pytest.raises(ValueError, match="exactly 2"):
            ResourceAllocationGame({}).initialize_game(["solo"])

    def test_constraint_examples(self) -> None:
        # Row 6: our constraints; with a pool of 10 and no minimums the document's numbers apply.
        game = ResourceAllocationGame({"total_resources": 10, "min_gpu_hours": 0, "min_cpu_hours": 0})
        game.initialize_game(["dev_team", "mkt_team"])
        game.check_constraints_and_update(4.0, 6.0)
        assert game.game_data["constraint_check"]["constraints_met"] is True
        game.check_constraints_and_update(8.0, 12.0)
        assert game.game_data["constraint_check"]["constraints_met"] is False
        assert game.game_data["constraint_check"]["messages"] == ["Total resources exceeded: 20 > 10"]
        assert game.is_valid_action("dev_team", {"type": "propose", "gpu": 6, "cpu": 4}, {})
        assert not game.is_valid_action("mkt_team", {"type": "propose", "gpu": 12, "cpu": 8}, {})

    def test_batna_values_is_the_documented_dict_attribute(self) -> None:
        # Row 17: `batna_values` is the teams' BATNAs, by team; each player's at the deciding round is the
        # engine's hook, `player_batnas()`.
        game = ResourceAllocationGame({"batnas": {"development": 50, "marketing": 45}, "batna_decay": 0.1})
        assert game.batna_values["development"] == 50.0 and game.batna_values["marketing"] == 45.0
        game.initialize_game(["dev_team", "mkt_team"])
        assert game.batna_values == {"development": 50.0, "marketing": 45.0}
        assert ResourceAllocationGame({}).batna_values == {"development": 300.0, "marketing": 270.0}
        values = game.player_batnas()
        assert set(values) == {"dev_team", "mkt_team"}
        assert sorted(values.values()) == [45.0, 50.0]  # round 1: not decayed yet

    def test_process_action_takes_the_documented_names_and_records_the_history(self) -> None:
        game = ResourceAllocationGame({})
        state = game.initialize_game(["development", "marketing"])
        action = PlayerAction("development", "propose", {"gpu": 60, "cpu": 40}, 1609459200.0, 2)
        game.process_action(action)
        assert game.game_data["constraint_check"]["messages"] == ["Bandwidth exceeded: 400 > 380"]
        state = game.process_actions({"marketing": {"type": "reject"}}, state)
        assert state["resource_history"] == [{"by": "development", "round": 1, "gpu_hours": 60.0, "cpu_hours": 40.0}]
        prompt = game.get_game_prompt(state["role_assignments"]["development"])
        assert "GPU hours" in prompt and "Team A" in prompt and "JSON" in prompt


class TestIntegrativeNegotiationsGame:
    def test_initial_state_carries_the_documented_keys(self) -> None:
        game = IntegrativeNegotiationsGame({"batnas": {"IT": 35, "Marketing": 30}, "rounds": 8, "batna_decay": 0.02})
        state = game.initialize_game(["alice", "bob"])
        assert set(state["role_assignments"]) == {"IT", "Marketing"}
        assert set(state["role_assignments"].values()) == {"alice", "bob"}
        it = state["role_assignments"]["IT"]
        assert state["private_info"][it]["batna"] == 35 and state["private_info"][it]["weights"]["server_room"] == 0.4
        assert state["public_info"]["issues"]["server_room"] == {"options": [50, 100, 150], "unit": "sqm"}
        assert state["game_config"]["rounds"] == 8
        assert state["game_type"] == "integrative_negotiation"  # row 15: the game's id

    def test_method_examples(self) -> None:
        game = IntegrativeNegotiationsGame({"rounds": 8})
        game.initialize_game(["alice", "bob"])
        valid = {"server_room": 150, "meeting_access": 4, "cleaning": "Shared", "branding": "Moderate"}
        assert game.is_valid_proposal(valid)
        assert not game.is_valid_proposal({"server_room": 200})
        assert game.is_game_over({"agreement_reached": True})
        assert game.is_game_over({"current_round": 10})
        assert not game.is_game_over({"current_round": 3})
        final_state = {"agreement_reached": True, "utility_surplus": {"alice": 85 - 75, "bob": 78 - 80}}
        assert game.get_winner(final_state) == "alice"
        assert game.get_winner({"agreement_reached": False}) is None
        prompt = game.get_game_prompt("alice")
        assert "OFFICE SPACE NEGOTIATION" in prompt and "RESPONSE FORMAT" in prompt

    def test_summary_after_an_agreement(self) -> None:
        game = IntegrativeNegotiationsGame({})
        state = game.initialize_game(["alice", "bob"])
        trade = {"server_room": 150, "meeting_access": 7, "cleaning": "Outsourced", "branding": "Prominent"}
        state = game.process_actions({"alice": {"type": "propose", "proposal": trade}}, state)
        state = game.process_actions({"bob": {"type": "accept"}}, state)
        summary = game.get_game_summary(state)
        assert summary["agreement_reached"] is True and summary["final_agreement"] == trade
        assert state["final_utilities"] == {"alice": 45.0, "bob": 45.0}
        assert game.get_winner(state) == summary["winner"] == state["role_assignments"]["Marketing"]
