"""Advantage Alignment's loop (llm_rl/self_play.py): the weights it puts on each reply, its REINFORCE step, its
self-play rollouts, and GRPO's frozen `self` opponent. The CLI run is in test_llm_rl_train.py."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from negotiation_platform.errors import NegotiationError
from negotiation_platform.llm_rl.advantages import ad_align_credit, discounted_returns, rloo_advantages
from negotiation_platform.llm_rl.self_play import (
    Policy,
    Rollout,
    SeatReply,
    play_rollout,
    reinforce_step,
    reply_weights,
    seat_specs,
)
from negotiation_platform.llm_rl.text_env import TextEnv
from negotiation_platform.llm_rl.train import frozen_self
from negotiation_platform.llm_rl.trl_env import make_trl_env
from negotiation_platform.registry import Registry

A, B = "player_1", "player_2"


def reply(seat: str, round_number: int) -> SeatReply:
    return SeatReply(seat=seat, round=round_number, prompt_ids=[1, 2], reply_ids=[3])


def rollout(seed: int, mine: list[float], theirs: list[float]) -> Rollout:
    rounds = range(1, len(mine) + 1)
    return Rollout(seed=seed, rewards={A: mine, B: theirs}, replies=[reply(seat, r) for r in rounds for seat in (A, B)])


def test_each_reply_is_weighted_by_its_seats_ad_align_credit_for_its_round() -> None:
    rollouts = [
        rollout(0, [10, 1, 10], [1, 10, 1]),
        rollout(0, [1, 1, 1], [1, 1, 1]),
        rollout(4, [10, 10, 10], [10, 10, 10]),
        rollout(4, [1, 10], [10, 1]),  # ended a round early: padded with reward 0
    ]
    weights = reply_weights(rollouts, beta=2.0, gamma=0.96)
    mine = [[10, 1, 10], [1, 1, 1], [10, 10, 10], [1, 10, 0]]
    theirs = [[1, 10, 1], [1, 1, 1], [10, 10, 10], [10, 1, 0]]
    a_mine = rloo_advantages(discounted_returns(mine, 0.96), [0, 0, 4, 4])
    a_theirs = rloo_advantages(discounted_returns(theirs, 0.96), [0, 0, 4, 4])
    expected_a = ad_align_credit(a_mine, a_theirs, 2.0, 0.96)
    expected_b = ad_align_credit(a_theirs, a_mine, 2.0, 0.96)
    for row, (played, got) in enumerate(zip(rollouts, weights, strict=True)):
        want = [(expected_a if r.seat == A else expected_b)[row, r.round - 1] for r in played.replies]
        np.testing.assert_allclose(got, want)
    # By hand: round 1 has no past, so its credit is the advantage; the two rollouts of seed 0 differ by the return.
    first_return = 10 + 0.96 * 1 + 0.96**2 * 10
    second_return = 1 + 0.96 + 0.96**2
    assert weights[0][0] == pytest.approx(first_return - second_return)
    # Round 2 of seed 0's first rollout for A: A_self_2 + β·γ·(γ·A_self_1)·A_other_2, with A_other B's advantage.
    a_self_2 = (1 + 0.96 * 10) - (1 + 0.96)
    a_other_2 = (10 + 0.96 * 1) - (1 + 0.96)
    assert weights[0][2] == pytest.approx(a_self_2 + 2.0 * 0.96 * (0.96 * (first_return - second_return)) * a_other_2)


def test_a_seed_played_once_has_no_baseline_and_is_refused() -> None:
    with pytest.raises(NegotiationError, match="one rollout"):
        reply_weights([rollout(0, [1.0], [2.0]), rollout(1, [1.0], [2.0])], beta=2.0, gamma=0.96)


def log_prob(model: object, prompt: list[int], reply_ids: list[int]) -> float:
    import torch

    ids = torch.tensor([prompt + reply_ids])
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0, len(prompt) - 1 : -1]  # type: ignore[operator]
    return float(torch.log_softmax(logits, -1).gather(1, ids[0, len(prompt) :, None]).sum())


@pytest.mark.parametrize("credit", [1.0, -1.0])
def test_a_step_raises_the_log_prob_of_a_reply_with_positive_credit_and_lowers_a_negative_ones(credit: float) -> None:
    import torch

    from tests.llm_rl_models import tiny_model, tiny_tokenizer

    tokenizer = tiny_tokenizer()
    model = tiny_model(tokenizer)
    written = SeatReply(seat=A, round=1, prompt_ids=[20, 21, 22], reply_ids=[30, 31])
    unweighted = SeatReply(seat=B, round=1, prompt_ids=[20, 21, 22], reply_ids=[40, 41])
    before = log_prob(model, written.prompt_ids, written.reply_ids)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.0)
    played = [Rollout(seed=0, rewards={A: [1.0], B: [0.0]}, replies=[written, unweighted])]
    reinforce_step(Policy(model, tokenizer, "cpu", max_new_tokens=4, seed=0), optimizer, played, [[credit, 0.0]])
    after = log_prob(model, written.prompt_ids, written.reply_ids)
    assert (after - before) * credit > 0.1


def test_self_play_samples_both_seats_from_the_model_and_repeats_under_the_same_seed() -> None:
    from tests.llm_rl_models import tiny_model, tiny_tokenizer

    tokenizer = tiny_tokenizer()
    registry = Registry()
    env = TextEnv("trust_and_split", config={"rounds": 1}, registry=registry, max_retries=0)

    def played(specs: list[str]) -> Rollout:
        return play_rollout(env, Policy(tiny_model(tokenizer), tokenizer, "cpu", 4, seed=1), specs, 3, registry)

    first = played(["self", "self"])
    assert {r.seat for r in first.replies} == {A, B} and {r.round for r in first.replies} == {1}
    assert len(first.replies) == 4  # one message and one split per seat: every reply is one move (no retries)
    assert all(len(r.reply_ids) <= 4 for r in first.replies)
    assert first.rewards == {seat: [row[seat] for row in env.round_rewards] for seat in (A, B)}
    assert played(["self", "self"]) == first
    against = played(["self", "cooperative"])
    assert {r.seat for r in against.replies} == {A}


@pytest.mark.parametrize(
    ("game", "opponents", "said"),
    [
        ("trust_and_split", ["self", "self"], "one other seat"),
        ("trust_and_split", ["no_such_agent"], "no_such_agent"),
    ],
)
def test_ad_align_seats_are_refused_before_training(game: str, opponents: list[str], said: str) -> None:
    with pytest.raises(NegotiationError, match=said):
        seat_specs(game, opponents, Registry(), None)


def test_grpos_self_opponent_is_the_starting_model_frozen(tmp_path: Path) -> None:
    from tests.llm_rl_models import save_tiny_model

    folder = save_tiny_model(tmp_path / "model")
    specs = frozen_self(["self"], folder)
    assert specs == [f"hf:{folder.resolve()}"]
    env = make_trl_env("split_100", opponents=specs)()
    env.reset(seed=2)
    assert env._others[0].agent.directory == str(folder.resolve())  # type: ignore[attr-defined]
