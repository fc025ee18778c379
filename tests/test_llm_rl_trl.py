"""TRL's environment_factory over a game: tools per action, reset from a seed row, opponents inside the call, reward.

The trainer itself runs two GRPO steps on CPU with a tiny model built here (tests/llm_rl_models.py): a random
model emits no tool calls, so the environment class is tested directly and the trainer is a smoke test.
"""

from __future__ import annotations

import inspect
import os

import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"

from transformers.utils import get_json_schema

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.llm_rl.text_env import TextEnv
from negotiation_platform.llm_rl.trl_env import make_trl_env, seed_dataset


def tools(env: object) -> dict[str, dict]:
    """The tools TRL would list: the class's public functions but reset and get_reward, as transformers reads them."""
    names = [
        name
        for name, _ in inspect.getmembers(type(env), predicate=inspect.isfunction)
        if not name.startswith("_") and name not in {"reset", "get_reward"}
    ]
    return {name: get_json_schema(getattr(env, name))["function"] for name in names}


def test_split_100_has_one_typed_tool_per_action_and_a_message_tool() -> None:
    listed = tools(make_trl_env("split_100")())
    assert set(listed) == {"propose", "accept", "walk_away", "send_public_message"}
    propose = listed["propose"]["parameters"]
    assert propose["properties"]["mine"]["type"] == "integer"
    assert "at most 100" in propose["properties"]["mine"]["description"]
    assert propose["required"] == ["mine"]
    assert listed["accept"]["parameters"]["properties"] == {}
    assert listed["send_public_message"]["parameters"]["properties"]["content"]["type"] == "string"


def test_a_phase_without_public_messages_gets_no_message_tool() -> None:
    listed = tools(make_trl_env("trust_and_split")())
    assert listed["split"]["parameters"]["properties"]["coins"]["type"] == "integer"
    assert "pass" in listed  # a Python keyword is still a tool name
    assert "send_public_message" in listed  # its talk phase is public
    assert set(tools(make_trl_env("no_press")())) == {"split"}  # no phase of No-Press Split opens messages


def test_reset_starts_the_rows_seed_and_returns_the_learners_prompt() -> None:
    env = make_trl_env("split_100")()
    first = env.reset(seed=5, prompt=[{"role": "user", "content": "x"}])
    text = TextEnv("split_100")
    text.reset(seed=5)
    user = text.prompt(text.seats[0]).user
    situation = user[: user.index("Reply with one JSON object")]
    assert first == situation + "Make your move by calling one of the tools."
    assert "# Split $100" in first  # the rules, shown once: tool results leave them out
    assert env.reset(seed=5) == first
    assert "# Split $100" not in env.propose(mine=60)


def test_a_whole_match_by_tools_against_concession_pays_the_learner_its_payoff() -> None:
    env = make_trl_env("split_100", opponents="concession")()
    env.reset(seed=3)
    answers = [env.send_public_message(content="I want a fair deal.")]
    for mine in (90, 80, 70, 60, 50, 50, 50, 50, 50, 50, 50, 50):
        answer = env.propose(mine=mine)
        answers.append(answer)
        if answer.startswith("The match is over"):
            break
    else:
        answer = env.accept()
        answers.append(answer)
    assert answer.startswith("The match is over"), answers
    payoffs = env._env.payoffs()
    learner = env._env.seats[0]
    assert env.get_reward() == payoffs[learner]
    assert f"your payoff is {payoffs[learner]:g}" in answer
    assert env.propose(mine=10).startswith("The match is over")


def test_a_refused_call_returns_the_reason_and_changes_nothing() -> None:
    env = make_trl_env("split_100")()
    env.reset(seed=1)
    match = env._env.match
    events, state, acting = len(match.events), match.game.get_game_prompt("player_1"), match.acting()
    answer = env.propose(mine=150)
    assert answer.startswith("Refused:") and "mine" in answer and "less than or equal to 100" in answer
    match = env._env.match
    assert (len(match.events), match.game.get_game_prompt("player_1"), match.acting()) == (events, state, acting)
    assert "less than or equal to 100" in env._situation()  # the next prompt says why, as TextEnv's does
    with pytest.raises(TypeError, match="mine"):
        env.propose()  # TRL shows the model this error too


def test_unfinished_rollouts_are_scored_on_the_match_played_out_by_defaults() -> None:
    env = make_trl_env("split_100")()
    env.reset(seed=2)
    reward = env.get_reward()
    assert env._env.done
    assert reward == env._env.payoffs()[env._env.seats[0]]


def test_an_llm_endpoint_plays_the_other_seat_inside_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fake_openai import FakeModel, serve

    model = FakeModel(json_mode=True)  # its first reply is malformed: the seat is asked again with the refusal
    for endpoint in serve(model):
        monkeypatch.setenv("OPENAI_BASE_URL", endpoint)
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        env = make_trl_env("split_100", opponents="llm:fake-model")()
        env.reset(seed=0)
        answer = env.propose(mine=40)
    assert answer.startswith("The match is over: your payoff is 40;"), answer  # the model prefers to accept
    assert env.get_reward() == 40.0
    assert len(model.requests) == 2 and "not usable" in model.requests[1]["messages"][-1]["content"]


def test_bad_opponents_are_refused_when_the_class_is_made() -> None:
    with pytest.raises(NegotiationError) as refused:
        make_trl_env("split_100", opponents="self")
    assert refused.value.code == ErrorCode.INVALID_ARGUMENT
    with pytest.raises(NegotiationError):
        make_trl_env("split_100", opponents="no_such_agent")
    with pytest.raises(NegotiationError, match="not one of"):
        make_trl_env("split_100", seat=2)
    with pytest.raises(NegotiationError, match="other seats"):
        make_trl_env("split_100", opponents=["concession", "random"])


def test_the_second_seat_learns_after_the_opponent_opened() -> None:
    env = make_trl_env("split_100", seat="player_2")()
    env.reset(seed=0)
    opened = [e for e in env._env.match.events if e.actor == "player_1" and e.data.get("action_type") == "propose"]
    assert len(opened) == 1 and env._env.to_move() == ("player_2",)


def test_seed_dataset_rows_are_chat_prompts_with_seeds() -> None:
    rows = seed_dataset(3, start=10)
    assert rows["seed"] == [10, 11, 12]
    assert rows[0]["prompt"][0]["role"] == "user"


def test_grpo_trainer_runs_two_steps_on_cpu_against_split_100(tmp_path) -> None:
    from trl import GRPOConfig, GRPOTrainer

    from tests.llm_rl_models import tiny_model, tiny_tokenizer

    tokenizer = tiny_tokenizer()
    args = GRPOConfig(
        output_dir=str(tmp_path),
        use_vllm=False,
        use_cpu=True,
        bf16=False,
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=16,
        max_steps=2,
        gradient_checkpointing=False,
        report_to="none",
        save_strategy="no",
        logging_steps=1,
    )
    trainer = GRPOTrainer(
        model=tiny_model(tokenizer),
        processing_class=tokenizer,
        train_dataset=seed_dataset(8),
        environment_factory=make_trl_env("split_100"),
        args=args,
    )
    assert {tool.__name__ for tool in trainer.tools} == {"propose", "accept", "walk_away", "send_public_message"}
    trainer.train()
    steps = [entry for entry in trainer.state.log_history if "loss" in entry]
    assert [entry["step"] for entry in steps] == [1, 2]
    assert all("rewards/TrlEnv_split_100/mean" in entry for entry in steps)
