"""The compact event log reads back exactly what was logged, and nothing a game or reader does to
what it was handed changes it."""

from __future__ import annotations

import random

import pytest

from negotiation_platform.agents.payloads import sample_payload
from negotiation_platform.engine import Event, EventKind, Match
from negotiation_platform.engine.event_log import EventLog
from negotiation_platform.games import IntegrativeNegotiationsGame, Split100Game
from negotiation_platform.games.base_game import GameResult
from tests.probe_game import ProbeConfig, ProbeGame

PLAYERS = ["a", "b"]


def test_events_read_back_with_their_round_phase_actor_and_data() -> None:
    log = EventLog(PLAYERS)
    log.append(EventKind.MATCH_STARTED, None, {"players": PLAYERS})
    log.append_round_started(1)
    log.enter(1, "talk")
    log.append(EventKind.MESSAGE, "a", {"content": "hi", "to": ["b"]}, ("a", "b"))
    log.append_action("b", "propose", {"mine": 60}, ("mine",))
    log.append_action("a", "accept", {}, (), default="timed_out")
    log.append_phase_ended()
    log.append_round_started(2)
    result = GameResult("m", PLAYERS, "a", {"a": 1.0, "b": 0.0}, 2, {"deal": True}, True)
    log.append_match_ended(result)

    assert [(e.seq, e.kind, e.round, e.phase, e.actor) for e in log] == [
        (1, EventKind.MATCH_STARTED, 0, None, None),
        (2, EventKind.ROUND_STARTED, 1, None, None),
        (3, EventKind.MESSAGE, 1, "talk", "a"),
        (4, EventKind.ACTION, 1, "talk", "b"),
        (5, EventKind.ACTION, 1, "talk", "a"),
        (6, EventKind.PHASE_ENDED, 1, "talk", None),
        (7, EventKind.ROUND_STARTED, 2, None, None),
        (8, EventKind.MATCH_ENDED, 2, None, None),
    ]
    assert [e.data for e in log] == [
        {"players": PLAYERS},
        {"round": 1},
        {"content": "hi", "to": ["b"]},
        {"action_type": "propose", "payload": {"mine": 60}},
        {"action_type": "accept", "payload": {}, "timed_out": True},
        {},
        {"round": 2},
        {"result": result.to_dict()},
    ]
    assert log[2].visible_to == ("a", "b") and log[3].visible_to is None
    assert log[-1] == log[7] and log[1:3] == [log[1], log[2]] and log[::4] == [log[0], log[4]]
    with pytest.raises(IndexError):
        log[8]


def test_the_logs_dicts_are_its_events_to_dict_and_filter_by_who_may_see_them() -> None:
    log = EventLog(["a", "b", "c"])
    log.append(EventKind.MATCH_STARTED, None, {"players": ["a", "b", "c"]})
    log.append_round_started(1)
    log.enter(1, "talk")
    log.append(EventKind.MESSAGE, "a", {"content": "hi", "to": ["b"]}, ("a", "b"))
    log.append_action("c", "bid", {"x": 3, "y": "no"}, ("x", "y"), ("c",))
    log.append_action("b", "accept", {}, (), default="forfeited")
    log.append(EventKind.NOTICE, None, {"secret": 1}, ())
    log.append_phase_ended()
    log.append_round_started(2)
    log.enter(2, "talk")
    log.append_action("a", "propose", {"mine": 60}, ("mine",))
    unread = [e.to_dict() for e in log]
    assert log.dicts() == unread  # the same events, read before the end

    result = GameResult("m", ["a", "b", "c"], "a", {"a": 1.0, "b": 0.0, "c": 0.0}, 2, {"deal": True}, True)
    log.append_match_ended(result)
    first = log.dicts()  # the first read of the end, straight from the columns
    assert first == [e.to_dict() for e in log] and first[-1]["data"] == {"result": result.to_dict()}
    assert [e["seq"] for e in log.dicts({"c"})] == [1, 2, 4, 5, 7, 8, 9, 10]
    assert [e["seq"] for e in log.dicts({"a", "c"})] == [1, 2, 3, 4, 5, 7, 8, 9, 10]
    assert [e["seq"] for e in log.dicts(set())] == [1, 2, 5, 7, 8, 9, 10]


def test_payloads_of_one_many_and_no_plain_values_read_back_the_same_before_and_after_the_end() -> None:
    log = EventLog(PLAYERS)
    log.append_round_started(1)
    log.enter(1, "bid")
    payloads = [
        ("bid", {"amount": 0}, ("amount",)),
        ("bid", {"amount": None}, ("amount",)),
        ("offer", {"x": 0, "y": "", "z": False}, ("x", "y", "z")),
        ("pass", {}, ()),
        ("plan", {"items": [1, 2]}, None),
    ]
    for turn, (name, payload, fields) in enumerate(payloads):
        log.append_action(PLAYERS[turn % 2], name, payload, fields)
    running = list(log)
    log.append_match_ended(GameResult("m", PLAYERS, None, {"a": 0.0, "b": 0.0}, 1, {}, True))

    assert [e.data["payload"] for e in running[1:]] == [p for _, p, _ in payloads]
    assert list(log)[:-1] == running  # sealing the log at the end changes nothing a reader sees
    assert [e.round for e in log] == [1, 1, 1, 1, 1, 1, 1] and log[3].phase == "bid"
    with pytest.raises(AttributeError):  # a finished match's log takes no more actions
        log.append_action("a", "bid", {"amount": 1}, ("amount",))


def test_a_player_reads_only_what_is_shown_to_it() -> None:
    log = EventLog(["a", "b", "c"])
    log.append_action("a", "bid", {"amount": 5}, ("amount",), ("a",))
    log.append(EventKind.MESSAGE, "b", {"content": "psst", "to": ["c"]}, ("b", "c"))
    log.append_phase_ended()
    assert [e.seq for e in log.visible_for("a")] == [1, 3]
    assert [e.seq for e in log.visible_for("c")] == [2, 3]
    assert [e.seq for e in log.visible_for(None)] == [1, 2, 3]
    assert [e.seq for e in log.visible_for("c", since=2)] == [3]
    assert [e.seq for e in log.visible_for(None, since=-2)] == [2, 3]  # as a list's [since:] reads
    assert log.visible_for("a", since=7) == []


def test_what_a_change_returns_keeps_its_length_as_the_log_grows() -> None:
    match = Match(Split100Game, PLAYERS, seed=1)
    before = len(match.events)
    caused = match.submit("a", "propose", {"mine": 70})
    match.submit("b", "propose", {"mine": 60})
    assert len(caused) == 1 and list(caused) == match.events[before : before + 1]
    assert caused == [caused[0]] and caused[-1].data["payload"] == {"mine": 70}
    assert [e.kind for e in match.submit("a", "accept")] == [EventKind.ACTION, EventKind.MATCH_ENDED]


def test_nothing_done_to_a_games_or_a_readers_copy_changes_the_log() -> None:
    match = Match(Split100Game, PLAYERS, seed=1)
    match.submit("a", "propose", {"mine": 70})
    match.game.actions_history[0].action_data["mine"] = 1  # the game's payload is its own
    read = match.events[-1]
    read.data["payload"]["mine"] = 2
    read.data["action_type"] = "walk_away"
    assert match.events[-1].data == {"action_type": "propose", "payload": {"mine": 70}}
    assert Match.replay(Split100Game, PLAYERS, match.events, seed=1).events == match.events


def test_a_payload_of_nested_values_is_kept_apart_from_the_games_copy() -> None:
    match = Match(IntegrativeNegotiationsGame, PLAYERS, seed=4)
    seat = match.acting()[0]
    propose = next(a for a in match.allowed_actions(seat) if a.name == "propose")
    payload = sample_payload(match.game.action_payload_schema(seat, propose), random.Random(0))
    match.submit(seat, "propose", payload)
    logged = match.events[-1].data["payload"]
    match.game.actions_history[-1].action_data.clear()
    assert match.events[-1].data["payload"] == logged and logged


def test_sealed_moves_and_defaults_are_logged_as_before() -> None:
    config = ProbeConfig(turn_order="simultaneous", rounds=1)
    match = Match(ProbeGame, PLAYERS, config=config, seed=2)
    match.submit("a", "move", {"n": 3})
    match.time_out()
    actions = [e for e in match.events if e.kind is EventKind.ACTION]
    assert [(e.actor, e.data, e.visible_to) for e in actions] == [
        ("a", {"action_type": "move", "payload": {"n": 3}}, ("a",)),
        ("b", {"action_type": "move", "payload": {"n": 0}, "timed_out": True}, ("b",)),
    ]
    revealed = next(e for e in match.events if e.kind is EventKind.REVEALED)
    assert revealed.data["submissions"] == {
        "a": [{"action_type": "move", "payload": {"n": 3}}],
        "b": [{"action_type": "move", "payload": {"n": 0}, "timed_out": True}],
    }
    assert [Event.from_dict(e.to_dict()) for e in match.events] == match.events


def test_more_kinds_of_action_than_codes_are_kept_whole() -> None:
    log = EventLog(PLAYERS)
    names = [f"act{i}" for i in range(300)]
    for name in names:
        log.append_action("a", name, {"n": 1}, ("n",))
    assert [e.data["action_type"] for e in log] == names
    assert all(e.data["payload"] == {"n": 1} for e in log)


def test_what_the_log_was_handed_may_change_afterwards_and_the_logged_events_do_not() -> None:
    log = EventLog(PLAYERS)
    opening = {"phase": "talk", "turn_order": "alternating", "order": ["a", "b"]}
    submissions: dict[str, list[dict[str, object]]] = {}
    payload = {"items": [1, 2]}
    log.append_phase_started(1, "talk", opening)
    log.append(EventKind.REVEALED, None, {"submissions": submissions})
    log.append_action("a", "plan", payload, None)
    opening["order"].reverse()
    submissions["a"] = [{"action_type": "bid", "payload": {"amount": 3}}]
    payload["items"].append(3)
    log.append_phase_started(2, "talk", opening)
    assert [e.data for e in log] == [
        {"phase": "talk", "turn_order": "alternating", "order": ["a", "b"]},
        {"submissions": {}},
        {"action_type": "plan", "payload": {"items": [1, 2]}},
        {"phase": "talk", "turn_order": "alternating", "order": ["b", "a"]},
    ]
