"""The engine enforces each spec feature before the game sees an action."""

from __future__ import annotations

import pytest

from negotiation_platform.engine import EventKind
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.spec import Channel, FirstMover, PhaseEnd, StartRule, TurnOrder


def refused(code: ErrorCode, call) -> NegotiationError:  # type: ignore[no-untyped-def]
    with pytest.raises(NegotiationError) as info:
        call()
    assert info.value.code is code, info.value
    return info.value


def orders(match) -> list[list[str]]:  # type: ignore[no-untyped-def]
    return [e.data["order"] for e in match.events if e.kind is EventKind.PHASE_STARTED]


def play_rounds(match, rounds: int) -> None:  # type: ignore[no-untyped-def]
    for _ in range(rounds * len(match.players)):
        match.submit(match.acting()[0], "move", {"n": 1})


class TestTurnOrder:
    def test_alternating_fixed_same_order_each_round(self, probe) -> None:
        match = probe(players=3, rounds=3)
        play_rounds(match, 3)
        assert orders(match) == [["p1", "p2", "p3"]] * 3

    def test_alternating_rotating_start_moves_each_round(self, probe) -> None:
        match = probe(players=3, rounds=3, start=StartRule.ROTATING)
        play_rounds(match, 3)
        assert orders(match) == [["p1", "p2", "p3"], ["p2", "p3", "p1"], ["p3", "p1", "p2"]]

    def test_seeded_first_mover_is_drawn_once_from_the_seed(self, probe) -> None:
        firsts = set()
        for seed in range(20):
            match = probe(seed=seed, rounds=2, start=StartRule.ROTATING, first_mover=FirstMover.SEEDED)
            play_rounds(match, 2)
            (first, second) = orders(match)
            assert second[0] != first[0]  # rotation alternates the starter
            firsts.add(first[0])
        assert firsts == {"p1", "p2"}

    def test_shuffled_order_is_seeded(self, probe) -> None:
        def run(seed: int) -> list[list[str]]:
            match = probe(seed=seed, players=4, rounds=5, start=StartRule.SHUFFLED)
            play_rounds(match, 5)
            return orders(match)

        assert run(3) == run(3)
        assert len({tuple(o) for seed in range(5) for o in run(seed)}) > 3

    def test_only_the_current_player_may_act_in_alternating_phases(self, probe) -> None:
        match = probe()
        refused(ErrorCode.NOT_YOUR_TURN, lambda: match.submit("p2", "move", {"n": 1}))
        match.submit("p1", "move", {"n": 1})
        assert match.acting() == ["p2"]

    def test_simultaneous_submissions_are_sealed_then_revealed(self, probe) -> None:
        match = probe(turn_order=TurnOrder.SIMULTANEOUS, rounds=1)
        assert match.acting() == ["p1", "p2"]
        match.submit("p2", "move", {"n": 4})
        assert [e.data for e in match.events_for("p1") if e.kind is EventKind.ACTION] == []
        assert match.acting() == ["p1"]
        refused(ErrorCode.NOT_YOUR_TURN, lambda: match.submit("p2", "move", {"n": 5}))
        match.submit("p1", "move", {"n": 3})
        revealed = [e for e in match.events_for("p1") if e.kind is EventKind.REVEALED]
        assert revealed[0].data["submissions"]["p2"][0]["payload"] == {"n": 4}
        assert match.finished and match.result is not None
        assert match.result.final_scores == {"p1": 3.0, "p2": 4.0}

    def test_free_phase_lets_anyone_act_until_finished(self, probe) -> None:
        match = probe(turn_order=TurnOrder.FREE, turns=2, rounds=1)
        match.submit("p2", "move", {"n": 1})
        match.submit("p2", "move", {"n": 1})
        assert match.acting() == ["p1"]
        refused(ErrorCode.NOT_YOUR_TURN, lambda: match.submit("p2", "move", {"n": 1}))
        match.submit("p1", "move", {"n": 2})
        match.submit("p1", "move", {"n": 2})
        assert match.finished


class TestLimits:
    def test_rounds_limit_ends_the_match(self, probe) -> None:
        match = probe(rounds=2)
        play_rounds(match, 2)
        assert match.finished and match.round == 2
        refused(ErrorCode.MATCH_OVER, lambda: match.submit("p1", "move", {"n": 1}))

    def test_turns_per_round(self, probe) -> None:
        match = probe(turns=2, rounds=1)
        assert [match.acting()[0] for _ in range(1)] == ["p1"]
        sequence = []
        while not match.finished:
            sequence.append(match.acting()[0])
            match.submit(match.acting()[0], "move", {"n": 1})
        assert sequence == ["p1", "p2", "p1", "p2"]

    def test_actions_per_turn_and_ends_turn_flag(self, probe) -> None:
        match = probe(actions_per_turn=3)
        match.submit("p1", "note")
        match.submit("p1", "note")
        assert match.acting() == ["p1"]
        match.submit("p1", "note")  # third action uses the turn up
        assert match.acting() == ["p2"]
        match.submit("p2", "move", {"n": 1})  # an ending action ends the turn at once
        assert match.acting() == ["p1"]

    def test_per_action_budget(self, probe) -> None:
        match = probe(rounds=5, max_moves=2)
        for _ in range(2):
            match.submit("p1", "move", {"n": 1})
            match.submit("p2", "close")
        err = refused(ErrorCode.LIMIT_REACHED, lambda: match.submit("p1", "move", {"n": 1}))
        assert "2" in err.message
        assert "move" not in [a.name for a in match.allowed_actions("p1")]

    def test_message_quota_per_player_and_per_turn(self, probe) -> None:
        match = probe(per_player=2, per_turn=1, rounds=2)
        match.send_message("p1", "hello")
        refused(ErrorCode.LIMIT_REACHED, lambda: match.send_message("p1", "again"))
        match.submit("p1", "move", {"n": 1})
        match.send_message("p2", "hi")
        match.submit("p2", "move", {"n": 1})
        match.send_message("p1", "second")  # new round: quotas reset per round
        match.submit("p1", "move", {"n": 1})

    def test_message_length(self, probe) -> None:
        match = probe(max_length=10)
        match.send_message("p1", "x" * 10)
        err = refused(ErrorCode.MESSAGE_TOO_LONG, lambda: match.send_message("p1", "x" * 11))
        assert err.details["limit"] == 10

    def test_seconds_per_turn_applies_the_default_action(self, probe, clock) -> None:
        match = probe(seconds=5.0)
        assert match.deadline == clock.now + 5.0
        clock.advance(4.9)
        assert match.expire_due() == []
        clock.advance(0.2)
        events = match.expire_due()
        kinds = [e.kind for e in events]
        assert kinds[:2] == [EventKind.TIMEOUT, EventKind.ACTION]
        assert events[1].actor == "p1" and events[1].data == {
            "action_type": "move",
            "payload": {"n": 0},
            "timed_out": True,
        }
        assert match.acting() == ["p2"] and match.deadline == clock.now + 5.0


class TestMessaging:
    @pytest.mark.parametrize(
        ("channel", "public_ok", "private_ok"),
        [
            (Channel.NONE, False, False),
            (Channel.PUBLIC, True, False),
            (Channel.PRIVATE, False, True),
            (Channel.BOTH, True, True),
        ],
    )
    def test_channel_policy(self, probe, channel, public_ok, private_ok) -> None:
        match = probe(channel=channel)
        for ok, send in (
            (public_ok, lambda: match.send_message("p1", "pub")),
            (private_ok, lambda: match.send_message("p1", "priv", ["p2"])),
        ):
            if ok:
                send()
            else:
                refused(ErrorCode.PHASE_CLOSED, send)

    def test_private_message_reaches_only_sender_and_recipients(self, probe) -> None:
        match = probe(players=3)
        match.send_message("p1", "secret", ["p3"])
        seen = {
            p: [e.data["content"] for e in match.events_for(p) if e.kind is EventKind.MESSAGE] for p in match.players
        }
        assert seen == {"p1": ["secret"], "p2": [], "p3": ["secret"]}

    def test_message_that_uses_the_turn(self, probe) -> None:
        match = probe(uses_turn=True)
        match.send_message("p1", "my whole turn")
        assert match.acting() == ["p2"]

    def test_message_that_does_not_use_the_turn(self, probe) -> None:
        match = probe()
        match.send_message("p1", "chat")
        assert match.acting() == ["p1"]


class TestPhaseEnds:
    def test_messages_used_closes_a_free_phase(self, probe) -> None:
        match = probe(
            turn_order=TurnOrder.FREE, turns=None, per_player=1, rounds=1, ends_when=(PhaseEnd.MESSAGES_USED,)
        )
        match.send_message("p1", "one")
        assert match.acting() == ["p2"]
        match.send_message("p2", "two")
        assert match.finished

    def test_game_decides(self, probe) -> None:
        match = probe(turns=5, rounds=1, second_phase=True, ends_when=(PhaseEnd.TURNS_USED, PhaseEnd.GAME_DECIDES))
        match.submit("p1", "move", {"n": 1})
        match.submit("p2", "close")
        assert match.phase == "after"

    def test_deadline_closes_a_free_phase_with_defaults(self, probe, clock) -> None:
        match = probe(
            turn_order=TurnOrder.FREE,
            turns=3,
            seconds=10.0,
            rounds=1,
            second_phase=True,
            ends_when=(PhaseEnd.TURNS_USED, PhaseEnd.DEADLINE),
        )
        match.submit("p1", "move", {"n": 5})
        clock.advance(11)
        match.expire_due()
        assert match.phase == "after"
        defaults = [e for e in match.events if e.kind is EventKind.ACTION and e.data.get("timed_out")]
        assert {e.actor for e in defaults} == {"p1", "p2"}

    def test_game_end_stops_the_match_mid_phase(self, probe) -> None:
        match = probe(rounds=5)
        match.submit("p1", "move", {"n": 3})
        match.submit("p2", "stop")
        assert match.finished and match.round == 1
        assert match.result is not None and match.result.final_scores == {"p1": 3.0, "p2": 0.0}
