"""Specs serialise to JSON with payload schemas, validate themselves, and render as rules text."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from negotiation_platform.games import AuctionGame, Split100Game
from negotiation_platform.spec import ActionSpec, DefaultAction, GameSpec, OutcomeSpec, PhaseSpec, RolesSpec
from negotiation_platform.spec.rules_text import render_rules


def test_spec_json_carries_payload_schemas() -> None:
    spec = json.loads(Split100Game.spec.model_dump_json())
    propose = next(a for a in spec["phases"][0]["actions"] if a["name"] == "propose")
    mine = propose["payload"]["properties"]["mine"]
    assert (mine["type"], mine["minimum"], mine["maximum"]) == ("integer", 0, 100)
    accept = next(a for a in spec["phases"][0]["actions"] if a["name"] == "accept")
    assert accept["payload"]["properties"] == {}
    assert spec["rounds"] == 10 and spec["roles"]["min_players"] == 2


def test_spec_follows_config() -> None:
    spec = Split100Game.spec_for({"total": 50, "rounds": 3})
    assert spec.rounds == 3
    assert spec.phases[0].actions[0].payload.model_json_schema()["properties"]["mine"]["maximum"] == 50
    assert AuctionGame.spec_for({"bidders": 5}).roles.min_players == 5
    with pytest.raises(ValidationError):
        Split100Game.spec_for({"rounds": 0})
    with pytest.raises(ValidationError):
        Split100Game.spec_for({"roundz": 3})


def test_rules_text_is_generated_from_the_spec() -> None:
    text = render_rules(Split100Game.spec_for({"rounds": 7, "max_message_length": 123}))
    assert "at most 7 round(s)" in text
    assert "123 characters" in text
    assert "`propose`" in text and "mine (integer >= 0 and <= 100" in text
    assert "runs out of time plays `walk_away`" in text
    auction = render_rules(AuctionGame.spec_for({"messages_per_bidder": 2, "pricing": "second"}))
    assert "2 per player per round" in auction and "second-highest" in auction
    assert "sealed" in auction and "public and private" in auction


def _spec(**phase):  # type: ignore[no-untyped-def]
    return GameSpec(
        id="x", title="x", summary="x", phases=(PhaseSpec(name="p", **phase),), outcome=OutcomeSpec(description="x")
    )


def test_invalid_specs_are_refused() -> None:
    act = ActionSpec(name="go", description="go")
    with pytest.raises(ValidationError, match="twice"):
        _spec(actions=(act, act))
    with pytest.raises(ValidationError, match="no action"):
        _spec(actions=())
    with pytest.raises(ValidationError, match="default action"):
        _spec(actions=(act,), default_action=DefaultAction(action="stop"))
    with pytest.raises(ValidationError):
        RolesSpec(names=("a", "b"), min_players=3, max_players=3)
    with pytest.raises(ValidationError):
        ActionSpec(name="Bad Name", description="x")
