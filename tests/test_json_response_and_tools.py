"""The tolerant JSON reader and the negotiation_tools functions of the documented API."""

from __future__ import annotations

import pytest

from negotiation_platform.games import CompanyCarGame, negotiation_tools
from negotiation_platform.games.json_response import parse_json_response

CASES = [
    ('{"type": "offer", "price": 42000}', {"type": "offer", "price": 42000}),
    ('I think this is fair.\n{"type": "offer", "price": 41000}\nThanks!', {"type": "offer", "price": 41000}),
    ('```json\n{"type": "accept"}\n```', {"type": "accept"}),
    ('```\n{"type": "reject"}\n```', {"type": "reject"}),
    ('{"decision": {"type": "offer", "price": 40000}, "reasoning": "anchor low"}', {"type": "offer", "price": 40000}),
    ("{'type': 'offer', 'price': 39000}", {"type": "offer", "price": 39000}),
    ('{"type": "offer", "price": 38000,}', {"type": "offer", "price": 38000}),
    ('{"type": "ACCEPT"}', {"type": "accept"}),
    ('{"action": "propose", "gpu_hours": 50, "cpu_hours": 40}', {"type": "propose", "gpu_hours": 50, "cpu_hours": 40}),
    (
        'Thinking {"note": "no type here"} then {"type": "propose", "proposal": {"server_room": 150}}',
        {"type": "propose", "proposal": {"server_room": 150}},
    ),
    ('My answer: {"decision": {"type": "accept"}} — done', {"type": "accept"}),
    ("I want to offer 42000", {"type": "reject"}),
    ("", {"type": "reject"}),
    ('{"type": "offer", "price": ', {"type": "reject"}),
    ("[1, 2, 3]", {"type": "reject"}),
    ('{"type": 5}', {"type": "reject"}),
]


@pytest.mark.parametrize(("response", "decision"), CASES)
def test_parse_json_response(response: str, decision: dict) -> None:  # type: ignore[type-arg]
    parsed = parse_json_response(response)
    assert parsed["decision"] == decision
    assert parsed["raw_response"] == response


def test_the_games_expose_the_parser() -> None:
    game = CompanyCarGame({})
    assert game.parse_json_response('x {"type": "offer", "price": 42000} y')["decision"]["price"] == 42000
    assert game.validate_json_response('{"type": "offer", "price": 42000}')
    assert game.validate_json_response('```json\n{"decision": {"type": "accept"}}\n```')
    assert not game.validate_json_response("I want to offer 42000")
    assert not game.validate_json_response('{"proposal": {}}')


def test_percentage_difference() -> None:
    assert negotiation_tools.calculate_percentage_difference(44000, 40000) == pytest.approx(10.0)
    assert negotiation_tools.calculate_percentage_difference(42000, 45000) == pytest.approx(6.6667, abs=1e-3)
    assert negotiation_tools.calculate_percentage_difference(5, 0) == 0.0


def test_batna_comparisons_include_equality() -> None:
    assert negotiation_tools.is_offer_above_batna(41000, 40000)
    assert negotiation_tools.is_offer_above_batna(40000, 40000)
    assert not negotiation_tools.is_offer_above_batna(38000, 39000)
    assert negotiation_tools.is_offer_below_batna(37000, 39000)
    assert negotiation_tools.is_offer_below_batna(39000, 39000)
    assert not negotiation_tools.is_offer_below_batna(40000, 39000)


def test_suggest_next_offer_moves_toward_batna_only_after_rejection() -> None:
    assert negotiation_tools.suggest_next_offer(40000, 41000, True, 0.05) == pytest.approx(40050)
    assert negotiation_tools.suggest_next_offer(44000, 42000, True, 0.10) == pytest.approx(43800)
    assert negotiation_tools.suggest_next_offer(44000, 42000, False) == 44000
    assert negotiation_tools.suggest_next_offer(100, 0, True) == pytest.approx(95)


def test_check_constraints() -> None:
    offer = {"gpu_hours": 6, "developer_hours": 4, "budget": 45000}
    ok = {"gpu": lambda o: o["gpu_hours"] <= 8, "budget": lambda o: o["budget"] <= 50000}
    assert negotiation_tools.check_constraints(offer, ok)
    assert not negotiation_tools.check_constraints(offer, {**ok, "dev": lambda o: o["developer_hours"] <= 3})
    assert not negotiation_tools.check_constraints(offer, {"raises": lambda o: o["missing"] > 1})


def test_calculate_utility_counts_missing_issues_as_zero() -> None:
    weights = {"server_room": 0.4, "meeting_access": 0.1, "cleaning": 0.3, "branding": 0.2}
    points = {
        "server_room": {150: 60},
        "meeting_access": {2: 10},
        "cleaning": {"Shared": 50},
        "branding": {"Prominent": 60},
    }
    proposal = {"server_room": 150, "meeting_access": 2, "cleaning": "Shared", "branding": "Prominent"}
    assert negotiation_tools.calculate_utility(proposal, weights, points) == pytest.approx(52.0)
    assert negotiation_tools.calculate_utility({"server_room": 150, "parking": 3}, weights, points) == pytest.approx(
        24.0
    )
    assert negotiation_tools.calculate_utility({"server_room": 999}, weights, points) == 0.0
