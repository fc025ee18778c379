"""The text environment (`negotiation_platform.llm_rl.TextEnv`) over the installed games."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest

from negotiation_platform.engine.events import EventKind
from negotiation_platform.engine.match import Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.llm_rl import TextEnv
from negotiation_platform.registry import Registry

SMALL: dict[str, dict[str, Any]] = {
    "adasociety": {"max_length": 6, "negotiation_steps": 3},
    "adasociety_hard": {"max_length": 4, "negotiation_steps": 2},
}
"""Short configs for the long games (their defaults play hundreds of steps)."""


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry()


def play_out(env: TextEnv, rng: random.Random, limit: int = 5000) -> dict[str, float]:
    """Step random legal replies to the end, first seat to move first; returns each seat's summed step rewards."""
    totals = dict.fromkeys(env.seats, 0.0)
    for _ in range(limit):
        if env.done:
            return totals
        seat = env.to_move()[0]
        step = env.step(seat, env.legal_reply(seat, rng))
        assert step.accepted, step.error
        for name, reward in step.rewards.items():
            totals[name] += reward
    raise AssertionError(f"{env.game_id} did not end within {limit} steps")


@pytest.mark.parametrize("grammar", ["json", "compact"])
@pytest.mark.parametrize("game_id", sorted(Registry().games()))
def test_every_game_plays_to_the_engines_result(registry: Registry, game_id: str, grammar: str) -> None:
    config = SMALL.get(game_id)
    env = TextEnv(game_id, config=config, registry=registry, grammar=grammar)  # type: ignore[arg-type]
    env.reset(seed=5)
    totals = play_out(env, random.Random(1))
    assert env.done and env.to_move() == ()
    replayed = Match.replay(registry.game(game_id).cls, list(env.seats), env.match.events, config=config, seed=5)
    assert replayed.result is not None
    assert env.payoffs() == pytest.approx(replayed.result.final_scores)
    assert totals == pytest.approx(env.payoffs())
    assert len(env.round_rewards) == env.match.round
    for seat in env.seats:
        assert sum(r[seat] for r in env.round_rewards) == pytest.approx(env.payoffs()[seat])


def test_trust_and_split_rewards_arrive_round_by_round(registry: Registry) -> None:
    env = TextEnv("trust_and_split", registry=registry)
    env.reset(seed=2)
    rng = random.Random(3)
    paid_rounds = []
    while not env.done:
        seat = env.to_move()[0]
        step = env.step(seat, env.legal_reply(seat, rng))
        if any(step.rewards.values()):
            paid_rounds.append(env.match.round if env.done else env.match.round - 1)
    notices = [e for e in env.match.events if e.kind is EventKind.NOTICE and "your_reward" in e.data]
    by_round = {(e.data["round"], e.visible_to[0]): e.data["your_reward"] for e in notices if e.visible_to}
    assert len(env.round_rewards) == 10
    assert {(r + 1, s): v for r, row in enumerate(env.round_rewards) for s, v in row.items()} == pytest.approx(by_round)
    assert len(paid_rounds) == len({r for r, _ in by_round if any(by_round[r, s] for s in env.seats)})


def test_simultaneous_phase_awaits_every_seat(registry: Registry) -> None:
    env = TextEnv("no_press", registry=registry)
    env.reset(seed=1)
    assert env.to_move() == env.seats
    first = env.step("player_2", '{"action_type": "split", "payload": {"coins": 4}}')
    assert first.accepted and env.to_move() == ("player_1",)
    last = env.step("player_1", '{"action_type": "split", "payload": {"coins": 6}}')
    assert any(last.rewards.values()) and env.to_move() == env.seats and env.match.round == 2


def test_bad_reply_is_refused_with_its_reason_and_changes_nothing(registry: Registry) -> None:
    env = TextEnv("split_100", registry=registry)
    env.reset(seed=1)
    logged, before = len(env.match.events), env.prompt("player_1")
    for reply, reason, code in [
        ("I propose fifty-fifty.", "contains no JSON object", ErrorCode.INVALID_ARGUMENT),
        ('{"action_type": "accept", "payload": {}}', "not one of the allowed actions", ErrorCode.INVALID_ARGUMENT),
        ('{"action_type": "propose", "payload": {"mine": 150}}', "mine", ErrorCode.INVALID_PAYLOAD),  # the arena's
    ]:
        env.reset(seed=1)
        step = env.step("player_1", reply)
        assert not step.accepted and not step.defaulted and not step.done
        assert step.error is not None and reason in step.error and step.code is code
        assert step.rewards == {"player_1": 0.0, "player_2": 0.0}
        assert len(env.match.events) == logged and env.to_move() == ("player_1",)
        after = env.prompt("player_1")
        assert after.user.startswith(before.user.rsplit("\n\n", 1)[0]) and step.error in after.user
    with pytest.raises(NegotiationError) as caught:
        env.step("player_2", '{"action_type": "propose", "payload": {"mine": 50}}')
    assert caught.value.code is ErrorCode.NOT_YOUR_TURN


def test_a_message_with_a_refused_move_is_taken_back(registry: Registry) -> None:
    env = TextEnv("split_100", registry=registry)
    env.reset(seed=1)
    step = env.step("player_1", '{"action_type": "propose", "payload": {"mine": -1}, "message": "hello"}')
    assert not step.accepted and len(env.match.events) == len(TextEnv("split_100", registry=registry).match.events)
    assert all(e.kind is not EventKind.MESSAGE for e in env.match.events)


def test_after_max_retries_the_default_move_is_played(registry: Registry) -> None:
    env = TextEnv("trust_and_split", registry=registry, max_retries=2)
    env.reset(seed=4)
    env.step("player_1" if env.to_move() == ("player_1",) else "player_2", '{"action_type": "pass"}')
    env.step(env.to_move()[0], '{"action_type": "pass"}')
    assert env.match.phase == "split"
    steps = [env.step("player_1", "no idea") for _ in range(3)]
    assert [s.defaulted for s in steps] == [False, False, True]
    assert all(not s.accepted and s.error and s.code is ErrorCode.INVALID_ARGUMENT for s in steps)
    assert env.to_move() == ("player_2",)
    timeout = [e for e in env.match.events if e.kind is EventKind.TIMEOUT][-1]
    assert timeout.data["forfeit"] is True and timeout.data["players"] == ["player_1"]
    assert "3 refused replies in a row" in timeout.data["reason"]
    claim = [e for e in env.match.events if e.actor == "player_1" and e.kind is EventKind.ACTION][-1]
    assert claim.data["payload"] == {"coins": 0}
    assert "not usable" not in env.prompt("player_2").user


def test_compact_grammar_round_trip_on_split_100(registry: Registry) -> None:
    env = TextEnv("split_100", registry=registry, grammar="compact")
    env.reset(seed=1)
    assert "`propose " in env.prompt("player_1").user
    assert env.step("player_1", "say Fair is fair.\npropose 55").accepted
    moves = [e for e in env.match.events if e.kind in (EventKind.ACTION, EventKind.MESSAGE)]
    assert [(e.actor, e.data.get("content"), e.data.get("payload")) for e in moves] == [
        ("player_1", "Fair is fair.", None),
        ("player_1", None, {"mine": 55}),
    ]
    assert "player_1: Fair is fair." in env.prompt("player_2").user
    refused = env.step("player_2", "propose 55 45")
    assert not refused.accepted and refused.error and "at most 1 values" in refused.error
    done = env.step("player_2", "accept")
    assert done.done and done.rewards == {"player_1": 55.0, "player_2": 45.0} == env.payoffs()
    rng = random.Random(0)
    for _ in range(20):
        env.reset(seed=rng.randrange(100))
        reply = env.legal_reply("player_1", rng)
        assert not reply.startswith("{") and env.step("player_1", reply).accepted


def test_json_message_reaches_the_other_seat(registry: Registry) -> None:
    env = TextEnv("trust_and_split", registry=registry)
    env.reset(seed=1)
    first, second = env.to_move()[0], next(s for s in env.seats if s != env.to_move()[0])
    assert env.step(first, '{"action_type": null, "message": "I take 4, you take 6."}').accepted
    assert env.to_move() == (second,)  # in this talk phase a message is the whole turn
    assert f"{first}: I take 4, you take 6." in env.prompt(second).user
    assert env.step(second, '{"action_type": "pass", "message": "Deal."}').accepted  # the message is its turn
    assert f"{second}: Deal." in env.prompt(first).user and env.match.phase == "split"


def test_bad_arguments_are_refused(registry: Registry) -> None:
    for kwargs, code in [
        ({"config": {"max_length": 4}}, ErrorCode.INVALID_CONFIG),
        ({"grammar": "yaml"}, ErrorCode.INVALID_ARGUMENT),
        ({"players": 1}, ErrorCode.INVALID_ARGUMENT),
    ]:
        with pytest.raises(NegotiationError) as caught:
            TextEnv("adasociety", registry=registry, **kwargs)  # type: ignore[arg-type]
        assert caught.value.code is code
    with pytest.raises(NegotiationError) as unknown:
        TextEnv("no_such_game", registry=registry)
    assert unknown.value.code is ErrorCode.UNKNOWN_GAME
    with pytest.raises(NegotiationError) as early:
        TextEnv("split_100", registry=registry).payoffs()
    assert early.value.code is ErrorCode.INVALID_ARGUMENT


def test_reset_and_step_leave_the_global_random_alone(registry: Registry) -> None:
    random.seed(12345)
    state = random.getstate()
    env = TextEnv("trust_and_split", registry=registry)
    env.reset(seed=9)
    while not env.done:
        seat = env.to_move()[0]
        env.prompt(seat)
        env.step(seat, env.legal_reply(seat))
    assert random.getstate() == state


TRANSCRIPT = """
import json
from negotiation_platform.llm_rl import TextEnv
out = []
for game, config, grammar in [
    ("trust_and_split", None, "json"),
    ("split_100", None, "compact"),
    ("adasociety", {"max_length": 2, "negotiation_steps": 1}, "json"),
]:
    env = TextEnv(game, config=config, grammar=grammar)
    env.reset(seed=11)
    while not env.done:
        seat = env.to_move()[-1]
        prompt = env.prompt(seat)
        reply = env.legal_reply(seat)
        out.append([seat, prompt.system, prompt.user, reply, env.step(seat, reply).model_dump()])
    out.append([env.payoffs(), env.round_rewards])
print(json.dumps(out))
"""


def test_same_seed_same_transcript_whatever_the_hash_seed() -> None:
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", TRANSCRIPT],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for hash_seed in ("1", "2")
    ]
    (first, problem), (second, _) = (run.communicate(timeout=120) for run in runs)
    assert [run.returncode for run in runs] == [0, 0], problem
    assert first == second
    assert len(json.loads(first)) > 20
