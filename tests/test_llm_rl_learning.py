"""The tiny model that can learn on the CPU (`llm_rl.tiny_model`) and the learning benchmark's pipeline.

An untrained model's replies are all unusable, so every reward is the default move's and a group has nothing to
compare; the warm start on random legal replies must change that. The benchmark runs 2 steps (`--quick`): it
checks the pipeline, not the learning (its figures are in docs/llm-rl.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from negotiation_platform.llm_rl.self_play import Policy, play_rollout
from negotiation_platform.llm_rl.text_env import TextEnv
from negotiation_platform.llm_rl.tiny_model import grammar_corpus, tiny_model, train_tokenizer, warm_start
from negotiation_platform.registry import Registry

SHORT = {"rounds": 2}


def usable_share(model: object, tokenizer: object, registry: Registry) -> tuple[float, set[float]]:
    """The share of the model's sampled replies the match accepted over 4 matches of one seed against the random
    agent, and the distinct payoffs those matches gave the model."""
    env = TextEnv("no_press", config=SHORT, registry=registry, grammar="compact", max_retries=0)
    policy = Policy(model, tokenizer, "cpu", max_new_tokens=6, seed=0)
    accepted = replies = 0
    payoffs = set()
    for _ in range(4):
        rollout = play_rollout(env, policy, ["self", "random"], 5, registry)
        forfeits = [e for e in env.match.events if e.data.get("forfeit") and e.data["players"] == ["player_1"]]
        replies += len(rollout.replies)
        accepted += len(rollout.replies) - len(forfeits)
        payoffs.add(sum(rollout.rewards["player_1"]))
    return accepted / replies, payoffs


def test_the_warm_start_turns_unusable_replies_into_legal_ones_that_differ_across_a_group() -> None:
    registry = Registry()
    tokenizer = train_tokenizer(grammar_corpus(["no_press"], registry, matches=2))
    assert tokenizer.tokenize("split 10") == ["split", "Ġ10"]  # one decision, one token
    model = tiny_model(tokenizer)
    before, _ = usable_share(model, tokenizer, registry)
    loss = warm_start(model, tokenizer, "no_press", matches=4, epochs=8, config=SHORT, registry=registry)
    after, payoffs = usable_share(model, tokenizer, registry)
    assert before < 0.2 and after >= 0.6, (before, after, loss)
    assert len(payoffs) > 1  # the same seed, the same opponent: the rewards differ by the model's own replies


def test_the_benchmark_trains_two_steps_with_train_llm_and_prints_every_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmarks.llm_learning import main

    figures = main(["--quick", "--out", str(tmp_path)])
    names = [figure.name for figure in figures]
    assert names == [
        "random agent: mean payoff",
        "model at start: mean payoff",
        "train-llm 2x2: last reward",
        "model at end: mean payoff",
    ]
    assert all(figure.value >= 0 and figure.load >= 0 for figure in figures)
    summary = json.loads((tmp_path / "no-press" / "summary.json").read_text())
    assert (summary["game"], summary["algo"], summary["grammar"], summary["steps"], summary["group_size"]) == (
        "no_press", "ad-align", "compact", 2, 2,
    )  # fmt: skip
    assert summary["opponents"] == ["random"] and summary["beta"] == 0 and summary["gamma"] == 0
    assert (tmp_path / "no-press" / "final" / "tokenizer.json").is_file()
    printed = capsys.readouterr().out
    assert all(name in printed for name in names) and "total wall time" in printed
