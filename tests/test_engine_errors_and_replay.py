"""Refusals carry a stable code and change nothing; replaying a log rebuilds the same match."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from negotiation_platform.engine import Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games import AuctionGame, Split100Game
from negotiation_platform.spec import StartRule, TurnOrder
from tests.probe_game import ProbeGame


def snapshot(match: Match) -> tuple:
    return (
        [e.to_dict() for e in match.events],
        copy.deepcopy(match.game.game_data),
        match.acting(),
        {p: match.game.get_player_view(p) for p in match.players},
        len(match.game.actions_history),
    )


BAD_CALLS = [
    ("wrong turn", ErrorCode.NOT_YOUR_TURN, lambda m: m.submit("p2", "move", {"n": 1})),
    ("wrong phase", ErrorCode.PHASE_CLOSED, lambda m: m.submit("p1", "ack")),
    ("unknown action", ErrorCode.UNKNOWN_ACTION, lambda m: m.submit("p1", "fly", {})),
    ("invalid payload type", ErrorCode.INVALID_PAYLOAD, lambda m: m.submit("p1", "move", {"n": "seven"})),
    ("payload out of range", ErrorCode.INVALID_PAYLOAD, lambda m: m.submit("p1", "move", {"n": 10})),
    ("extra payload field", ErrorCode.INVALID_PAYLOAD, lambda m: m.submit("p1", "move", {"n": 1, "x": 2})),
    ("payload not an object", ErrorCode.INVALID_PAYLOAD, lambda m: m.submit("p1", "move", [1])),  # type: ignore[arg-type]
    ("game rule", ErrorCode.INVALID_ACTION, lambda m: m.submit("p1", "move", {"n": 7})),
    ("private to non-player", ErrorCode.UNKNOWN_RECIPIENT, lambda m: m.send_message("p1", "hi", ["mallory"])),
    ("private to self", ErrorCode.UNKNOWN_RECIPIENT, lambda m: m.send_message("p1", "hi", ["p1"])),
    ("oversized message", ErrorCode.MESSAGE_TOO_LONG, lambda m: m.send_message("p1", "x" * 51)),
    ("empty message", ErrorCode.INVALID_ARGUMENT, lambda m: m.send_message("p1", "   ")),
    ("not a player", ErrorCode.FORBIDDEN, lambda m: m.submit("mallory", "move", {"n": 1})),
]


@pytest.mark.parametrize(("label", "code", "call"), BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_refusal_has_code_and_changes_nothing(probe, label, code, call) -> None:
    match = probe(second_phase=True, forbid_seven=True, rounds=3)
    match.submit("p1", "move", {"n": 2})
    match.submit("p2", "move", {"n": 3})
    match.submit("p1", "ack")
    match.submit("p2", "ack")
    match.send_message("p1", "round two")
    before = snapshot(match)
    with pytest.raises(NegotiationError) as info:
        call(match)
    assert info.value.code is code
    assert info.value.message and "Traceback" not in info.value.message
    assert info.value.to_dict()["error"]["code"] == code.value
    assert snapshot(match) == before


def test_exhausted_budget_changes_nothing(probe) -> None:
    match = probe(per_player=1)
    match.send_message("p1", "one")
    before = snapshot(match)
    with pytest.raises(NegotiationError) as info:
        match.send_message("p1", "two")
    assert info.value.code is ErrorCode.LIMIT_REACHED
    assert snapshot(match) == before


def random_inputs(match: Match, rng: random.Random, limit: int = 60) -> None:
    """Drive a match with random legal moves, messages and timeouts."""
    for _ in range(limit):
        if match.finished:
            return
        roll = rng.random()
        if roll < 0.1:
            match.time_out()
            continue
        player = rng.choice(match.acting())
        if roll < 0.3 and match.message_allowance(player)["public"]:
            match.send_message(player, f"msg {rng.randint(0, 99)}")
            continue
        if roll < 0.4 and match.message_allowance(player)["private"]:
            others = [p for p in match.players if p != player]
            match.send_message(player, "psst", [rng.choice(others)])
            continue
        actions = match.allowed_actions(player)
        if not actions:
            continue
        action = rng.choice(actions)
        payload = {"n": rng.randint(0, 9)} if action.name == "move" else {}
        if action.name == "propose":
            payload = {"mine": rng.randint(0, 100)}
        if action.name == "bid":
            payload = {"amount": rng.randint(0, 100)}
        match.submit(player, action.name, payload)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    driver=st.integers(0, 2**31),
    order=st.sampled_from(list(TurnOrder)),
    start=st.sampled_from([s for s in StartRule if s is not StartRule.GAME_DECIDES]),  # the probe gives no order
    players=st.integers(2, 4),
)
def test_replay_rebuilds_the_same_match(seed, driver, order, start, players) -> None:
    config = {
        "players": players,
        "rounds": 3,
        "turn_order": order,
        "start": start,
        "per_player": 2,
        "turns": None if order is TurnOrder.FREE else 1,
        "second_phase": True,
    }
    if order is TurnOrder.FREE:
        config["turns"] = 2
    names = [f"p{i}" for i in range(players)]
    original = Match(ProbeGame, names, config=config, seed=seed)
    random_inputs(original, random.Random(driver))
    rebuilt = Match.replay(ProbeGame, names, original.events, config=config, seed=seed)
    assert snapshot(rebuilt) == snapshot(original)
    assert (rebuilt.result is None) == (original.result is None)
    if original.result is not None:
        assert rebuilt.result == original.result


@pytest.mark.parametrize(("game", "players"), [(Split100Game, ["a", "b"]), (AuctionGame, ["a", "b", "c"])])
def test_replay_of_reference_games(game, players) -> None:
    for driver in range(10):
        original = Match(game, players, seed=driver)
        random_inputs(original, random.Random(driver), limit=80)
        rebuilt = Match.replay(game, players, original.events, seed=driver)
        assert snapshot(rebuilt) == snapshot(original)


def test_same_seed_and_inputs_same_transcript_different_seed_differs() -> None:
    def run(seed: int) -> list[dict]:
        match = Match(AuctionGame, ["a", "b", "c"], seed=seed)
        random_inputs(match, random.Random(1), limit=80)
        return [e.to_dict() for e in match.events] + [match.game.game_data["values"]]

    assert run(5) == run(5)
    assert any(run(5) != run(s) for s in range(6, 10))


def test_forfeits_replay_as_forfeits_and_old_logs_as_they_were() -> None:
    """A forfeit logs `forfeit: true` and a `forfeited` move; a log stored before forfeits were told
    apart (no `forfeit` key, the move `timed_out`) replays to itself, unchanged."""
    for forfeit, flag in ((True, "forfeited"), (False, "timed_out")):
        original = Match(Split100Game, ["a", "b"], seed=2)
        original.play_default(original.acting()[0], "3 unusable replies: no JSON", forfeit=forfeit)
        logged = [e.to_dict() for e in original.events]
        notice = next(e for e in logged if e["kind"] == "timeout")
        move = next(e for e in logged if e["kind"] == "action")
        assert ("forfeit" in notice["data"]) is forfeit and move["data"][flag] is True
        assert ("timed_out" in move["data"]) is not forfeit
        rebuilt = Match.replay(Split100Game, ["a", "b"], original.events, seed=2)
        assert snapshot(rebuilt) == snapshot(original)
