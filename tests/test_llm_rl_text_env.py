"""The text environment (`negotiation_platform.llm_rl.TextEnv`) over the installed games."""

from __future__ import annotations

import random

import pytest

from negotiation_platform.engine.match import Match
from negotiation_platform.llm_rl import TextEnv
from negotiation_platform.registry import Registry


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry()


def play_out(env: TextEnv, rng: random.Random, limit: int = 5000) -> dict[str, float]:
    """Step random legal replies to the end; returns each seat's summed step rewards."""
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


@pytest.mark.parametrize("game_id", ["split_100", "trust_and_split"])
def test_random_legal_replies_play_to_the_engines_result(registry: Registry, game_id: str) -> None:
    env = TextEnv(game_id, registry=registry)
    env.reset(seed=5)
    totals = play_out(env, random.Random(1))
    assert env.done and env.to_move() == ()
    replayed = Match.replay(registry.game(game_id).cls, list(env.seats), env.match.events, seed=5)
    assert replayed.result is not None
    assert env.payoffs() == pytest.approx(replayed.result.final_scores)
    assert totals == pytest.approx(env.payoffs())
    rounds = [{seat: sum(r[seat] for r in env.round_rewards)} for seat in env.seats]
    assert rounds == [{seat: pytest.approx(env.payoffs()[seat])} for seat in env.seats]
