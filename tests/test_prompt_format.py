"""The RESPONSE FORMAT a game's prompt shows is perform_action's form, and every reader of answers takes it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from negotiation_platform.agents.llm import read_reply
from negotiation_platform.engine import Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games.json_response import extract_action, validate_json_response
from negotiation_platform.registry import Registry

REGISTRY = Registry()
SHAPE_ERRORS = {ErrorCode.UNKNOWN_ACTION, ErrorCode.INVALID_PAYLOAD, ErrorCode.INVALID_ARGUMENT}


def opening(game_id: str) -> tuple[Match, str]:
    """A fresh match of `game_id` with its fewest players, and a player who must act now."""
    entry = REGISTRY.game(game_id)
    players = [f"p{i}" for i in range(1, entry.spec.roles.min_players + 1)]
    match = Match(entry.cls, players, seed=3)
    return match, match.acting()[0]


def examples(prompt: str) -> list[dict[str, Any]]:
    """The example answers listed under RESPONSE FORMAT."""
    lines = prompt.split("RESPONSE FORMAT", 1)[1].splitlines()[1:]
    return [json.loads(line) for line in lines if line.startswith("  {")]


@pytest.mark.parametrize("game_id", sorted(REGISTRY.games()))
def test_every_example_answer_is_a_move_perform_action_takes(game_id: str) -> None:
    match, player = opening(game_id)
    prompt = match.game.get_game_prompt(player)
    answers = examples(prompt)
    assert answers, prompt
    assert [a["action_type"] for a in answers] == [a.name for a in match.game.open_actions(player)]
    for answer in answers:
        assert set(answer) == {"action_type", "payload"}
        fresh, _ = opening(game_id)
        try:
            fresh.submit(player, answer["action_type"], answer["payload"])
        except NegotiationError as refusal:  # the game may still refuse the move on its merits, never its shape
            assert refusal.code not in SHAPE_ERRORS, (answer, refusal)


def test_the_llm_agent_and_the_tolerant_reader_take_the_prompt_form() -> None:
    turn = {"allowed_actions": [{"name": "propose"}], "messaging": {"public": False}}
    answer = '{"action_type": "propose", "payload": {"mine": 60}}'
    decision, problem = read_reply(answer, turn)
    assert problem == "" and decision is not None
    assert (decision.action, decision.payload) == ("propose", {"mine": 60})
    assert extract_action(answer) == {"type": "propose", "mine": 60}
    assert validate_json_response(answer)
    assert extract_action('{"action_type": "accept", "payload": {}, "message": "deal"}') == {
        "type": "accept",
        "message": "deal",
    }
    flat, problem = read_reply('{"type": "propose", "mine": 60}', turn)
    assert flat is None and "no allowed action" in problem  # the llm agent is told the one form it must use
