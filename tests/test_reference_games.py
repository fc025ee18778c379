"""split_100 and auction pay exactly as their rules say."""

from __future__ import annotations

import pytest

from negotiation_platform.engine import EventKind, Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games import AuctionGame, Split100Game


def split(**config) -> Match:  # type: ignore[no-untyped-def]
    return Match(Split100Game, ["a", "b"], config=config, seed=1)


class TestSplit100:
    def test_accepted_offer_splits_as_proposed(self) -> None:
        match = split()
        match.submit("a", "propose", {"mine": 70})
        match.submit("b", "accept")
        assert match.result is not None
        assert match.result.final_scores == {"a": 70.0, "b": 30.0}
        assert match.result.game_data["agreement"] is True
        assert match.result.winner == "a"

    def test_discount_per_round(self) -> None:
        match = split(discount=0.9)
        match.submit("a", "propose", {"mine": 60})
        match.submit("b", "propose", {"mine": 60})
        match.submit("a", "propose", {"mine": 50})  # round 2
        match.submit("b", "accept")
        assert match.result is not None
        assert match.result.final_scores == pytest.approx({"a": 45.0, "b": 45.0})
        assert match.result.winner is None  # a tie has no winner

    def test_walk_away_pays_nothing(self) -> None:
        match = split()
        match.submit("a", "propose", {"mine": 90})
        match.submit("b", "walk_away")
        assert match.result is not None and match.result.final_scores == {"a": 0.0, "b": 0.0}
        assert match.result.game_data["agreement"] is False

    def test_running_out_of_rounds_pays_nothing(self) -> None:
        match = split(rounds=2)
        for _ in range(4):
            match.submit(match.acting()[0], "propose", {"mine": 80})
        assert match.result is not None and match.result.final_scores == {"a": 0.0, "b": 0.0}
        assert match.result.total_rounds == 2

    def test_accept_needs_the_other_players_standing_offer(self) -> None:
        match = split()
        with pytest.raises(NegotiationError) as info:
            match.submit("a", "accept")
        assert info.value.code is ErrorCode.INVALID_ACTION
        match.submit("a", "propose", {"mine": 50})
        assert "accept" in [x.name for x in match.allowed_actions("b")]

    def test_one_public_message_per_turn(self) -> None:
        match = split()
        match.send_message("a", "fair is fair")
        with pytest.raises(NegotiationError) as info:
            match.send_message("a", "again")
        assert info.value.code is ErrorCode.LIMIT_REACHED
        with pytest.raises(NegotiationError) as info:
            match.send_message("a", "psst", ["b"])
        assert info.value.code is ErrorCode.PHASE_CLOSED


def auction(pricing: str = "first", bidders: int = 3) -> Match:
    return Match(AuctionGame, ["a", "b", "c"][:bidders], config={"pricing": pricing, "bidders": bidders}, seed=4)


def finish_discussion(match: Match) -> None:
    for p in match.players:
        match.submit(p, "done")


class TestAuction:
    def test_values_are_private_and_seeded(self) -> None:
        match = auction()
        values = match.game.game_data["values"]
        assert all(0 <= v <= 100 for v in values.values())
        assert Match(AuctionGame, ["a", "b", "c"], seed=4).game.game_data["values"] == values
        assert match.game.get_player_view("a")["your_value"] == values["a"]
        assert "values" not in str(match.game.get_player_view("b")) and str(values["a"]) not in str(
            {k: v for k, v in match.game.get_player_view("b").items() if k != "your_value"}
        )

    @pytest.mark.parametrize(("pricing", "price"), [("first", 70), ("second", 50)])
    def test_highest_bid_wins_and_pays_by_pricing_rule(self, pricing, price) -> None:
        match = auction(pricing)
        finish_discussion(match)
        match.submit("b", "bid", {"amount": 50})
        match.submit("a", "bid", {"amount": 70})
        match.submit("c", "bid", {"amount": 10})
        assert match.result is not None
        value = match.game.game_data["values"]["a"]
        assert match.result.final_scores == {"a": float(value - price), "b": 0.0, "c": 0.0}
        assert match.result.game_data["terms"]["price"] == price

    def test_tie_goes_to_the_earliest_bid(self) -> None:
        match = auction()
        finish_discussion(match)
        match.submit("c", "bid", {"amount": 40})
        match.submit("a", "bid", {"amount": 40})
        match.submit("b", "bid", {"amount": 5})
        assert match.result is not None and match.result.game_data["terms"]["winner"] == "c"

    def test_discussion_allows_three_messages_per_bidder(self) -> None:
        match = auction()
        for i in range(3):
            match.send_message("a", f"m{i}", ["b"] if i else None)
        with pytest.raises(NegotiationError) as info:
            match.send_message("a", "m4")
        assert info.value.code is ErrorCode.LIMIT_REACHED
        assert "a" not in match.acting()  # quota used up: a has finished discussing
        match.submit("b", "done")
        match.submit("c", "done")
        assert match.phase == "bid"

    def test_bids_stay_sealed_until_all_are_in(self) -> None:
        match = auction()
        finish_discussion(match)
        match.submit("a", "bid", {"amount": 33})
        seen_by_b = [
            e for e in match.events_for("b") if e.kind is EventKind.ACTION and e.actor == "a" and e.phase == "bid"
        ]
        assert seen_by_b == []
        assert match.game.get_player_view("b")["your_bid"] is None
