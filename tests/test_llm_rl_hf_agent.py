"""`hf:DIR`: a transformers model saved in a directory plays at the table, as the operator seats it.

The model is the tiny random one of `llm_rl_models`, saved with `save_pretrained`: it writes no JSON,
so each of its moves is forfeited after `max_replies` unusable replies and the default move is played.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from negotiation_platform.agents.catalog import make_agent
from negotiation_platform.agents.driver import play_match
from negotiation_platform.agents.seating import SeatedBy
from negotiation_platform.arena import Arena
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.cli import main as cli_main
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.llm_rl.hf_agent import HFAgent
from negotiation_platform.registry import Registry
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.serving.operations import run_operation

FAST = {"max_new_tokens": 8}
"""Short replies: the tiny model writes noise, and the forfeits do not depend on its length."""


@pytest.fixture
def model_dir(tiny_model_dir: Path) -> Path:
    return tiny_model_dir


def test_a_saved_model_plays_split_100_to_the_end_and_the_same_seed_plays_the_same_match(
    model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ["play", "split_100", "--agents", f"hf:{model_dir}", "concession", "--seed", "1", "--json"]
    arguments += ["--agent-config", json.dumps(FAST)]
    command = [sys.executable, "-m", "negotiation_platform.cli.main", *arguments]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    first = json.loads(run.stdout)
    assert first["events"][-1]["kind"] == "match_ended" and set(first["payoffs"]) == {"hf", "concession"}
    forfeits = [e for e in first["events"] if e["kind"] == "timeout" and e["data"]["players"] == ["hf"]]
    assert forfeits and all(e["data"]["reason"].startswith("3 unusable replies: ") for e in forfeits)
    assert any(e["actor"] == "hf" and e["data"].get("forfeited") for e in first["events"] if e["kind"] == "action")
    assert cli_main.main(arguments) == 0  # again, in this process: the same seed plays the same match
    assert json.loads(capsys.readouterr().out) == first


def test_the_seat_keeps_each_raw_reply_and_forfeits_after_max_replies(model_dir: Path) -> None:
    registry = Registry()
    agent = make_agent(registry, f"hf:{model_dir}", 1, {**FAST, "max_replies": 2}, by=SeatedBy.OPERATOR)
    other = make_agent(registry, "concession", 2, by=SeatedBy.OPERATOR)
    result = asyncio.run(play_match(Arena(registry), "split_100", [agent, other], seed=1))
    assert result["result"]["success"]
    transcript: list[dict[str, Any]] = agent.transcript  # type: ignore[attr-defined]
    assert transcript and len(transcript) % 2 == 0  # two replies per forfeited move
    for entry in transcript:
        assert isinstance(entry["reply"], str) and entry["problem"]
        assert 0 < entry["usage"]["completion_tokens"] <= FAST["max_new_tokens"]
    reasons = [e["data"]["reason"] for e in result["events"] if e["kind"] == "timeout"]
    assert reasons and reasons[0] == f"2 unusable replies: {transcript[1]['problem']}"


def test_sampling_draws_from_the_seats_own_seeded_generator(model_dir: Path) -> None:
    conversation = [{"role": "user", "content": "Propose a split of 100."}]

    def replies(seed: int) -> list[str]:
        agent = HFAgent(seed=seed, target=str(model_dir), temperature=1.0, max_new_tokens=12)
        return [agent.reply(conversation)[0] for _ in range(3)]

    assert replies(5) == replies(5)  # the same seat seed draws the same replies...
    assert replies(5) != replies(6)  # ...and another seed others, whatever the global RNG did
    greedy = HFAgent(seed=5, target=str(model_dir), max_new_tokens=12)
    assert len({greedy.reply(conversation)[0] for _ in range(2)}) == 1


def test_a_served_arena_refuses_hf_from_a_client_and_the_operator_may_seat_it(model_dir: Path) -> None:
    house = HouseSeats(Arena(policy=ArenaPolicy.served()))

    async def start() -> None:
        await run_operation(house, "start_game", {"game_id": "split_100", "opponents": [f"hf:{model_dir}"]})

    with pytest.raises(NegotiationError) as refused:
        asyncio.run(start())
    assert refused.value.code is ErrorCode.FORBIDDEN
    assert refused.value.message.startswith("Only this server's operator seats 'hf' agents: they read the server's")
    assert make_agent(Registry(), f"hf:{model_dir}", 0, FAST, by=SeatedBy.OPERATOR).name == "hf"


def test_a_missing_or_unloadable_directory_is_invalid_argument(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = Registry()
    (tmp_path / "empty").mkdir()
    for directory, message in [
        (tmp_path / "nowhere", "hf agents load a model from a directory: there is no directory"),
        (tmp_path / "empty", "No causal language model and tokenizer could be loaded from"),
    ]:
        with pytest.raises(NegotiationError) as refused:
            make_agent(registry, f"hf:{directory}", 0, by=SeatedBy.OPERATOR)
        assert refused.value.code is ErrorCode.INVALID_ARGUMENT and refused.value.message.startswith(message)
    with pytest.raises(NegotiationError) as bad:
        make_agent(registry, f"hf:{tmp_path}", 0, {"max_new_tokens": 0}, by=SeatedBy.OPERATOR)
    assert bad.value.code is ErrorCode.INVALID_ARGUMENT and "max_new_tokens" in bad.value.message
    assert cli_main.main(["play", "split_100", "--agents", "hf:/no/such/dir", "--json"]) == 2
    assert json.loads(capsys.readouterr().err)["error"]["code"] == "invalid_argument"
