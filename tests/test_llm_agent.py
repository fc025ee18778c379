"""The `llm` agent against a small OpenAI-compatible endpoint served from the test on a real 127.0.0.1 socket
(`tests.fake_openai`): its first reply is malformed, then it plays legal moves read from the prompt."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from negotiation_platform.agents.concession import ConcessionAgent
from negotiation_platform.agents.driver import play_match
from negotiation_platform.agents.llm import LLMAgent
from negotiation_platform.arena import Arena
from negotiation_platform.cli.transcript import event_line
from negotiation_platform.engine import Match
from negotiation_platform.engine.events import Event
from negotiation_platform.registry import Registry
from negotiation_platform.research.tournament import run_tournament
from tests.fake_openai import MALFORMED, FakeModel, closed_port, completion, serve


@pytest.fixture
def model() -> FakeModel:
    return FakeModel(json_mode=True)


@pytest.fixture
def endpoint(model: FakeModel) -> Iterator[str]:
    yield from serve(model)


def test_llm_plays_company_car_and_recovers_from_a_malformed_reply(model: FakeModel, endpoint: str) -> None:
    agent = LLMAgent(name="llm", target="fake-model", base_url=endpoint, api_key="test")
    result = asyncio.run(play_match(Arena(Registry()), "company_car", [agent, ConcessionAgent()], seed=4))
    assert result["status"] == "finished"
    assert set(result["payoffs"]) == {"llm", "concession"}
    assert agent.transcript[0]["reply"] == MALFORMED and "JSON" in agent.transcript[0]["problem"]
    assert all(entry["problem"] is None for entry in agent.transcript[1:])
    retry = model.requests[1]["messages"]
    assert retry[2] == {"role": "assistant", "content": MALFORMED} and "not usable" in retry[3]["content"]
    assert all(r["response_format"] == {"type": "json_object"} for r in model.requests)
    assert "Allowed actions now" in model.requests[0]["messages"][1]["content"]
    llm_moves = [e for e in result["events"] if e["actor"] == "llm" and e["kind"] == "action"]
    assert llm_moves and all(e["data"].get("timed_out") is not True for e in llm_moves)


def test_llm_plays_an_auction_without_json_mode() -> None:
    model = FakeModel(json_mode=False)
    for endpoint in serve(model):
        agent = LLMAgent(name="llm", target="fake-model", base_url=endpoint, api_key="test")
        seats = [agent, ConcessionAgent(seed=1, name="c1"), ConcessionAgent(seed=2, name="c2")]
        result = asyncio.run(play_match(Arena(Registry()), "auction", seats, seed=3))
    assert result["status"] == "finished" and not agent.json_mode
    assert any(e["kind"] == "message" and e["actor"] == "llm" for e in result["events"])
    assert any(
        e["kind"] == "action" and e["actor"] == "llm" and e["data"]["action_type"] == "bid" for e in result["events"]
    )
    assert agent.transcript[0]["reply"] == MALFORMED


def test_tournament_llm_seat_keeps_raw_replies(endpoint: str, tmp_path: Path) -> None:
    rows = run_tournament(
        ["company_car"],
        ["llm:fake-model", "concession"],
        seeds=1,
        swap_roles=True,
        out=tmp_path,
        agent_options={"base_url": endpoint, "api_key": "test"},
    )
    mixed = next(row for row in rows if row["agents"] == ["llm:fake-model", "concession"])
    assert mixed["transcripts"][1] is None
    assert mixed["transcripts"][0] and all("reply" in entry for entry in mixed["transcripts"][0])
    stored = [json.loads(line) for line in (tmp_path / "matches.jsonl").read_text().splitlines()]
    assert len(stored) == 4 and not (tmp_path / "failures.jsonl").read_text()
    assert next(row for row in stored if row["key"] == mixed["key"]) == mixed


def test_llm_needs_a_model() -> None:
    from negotiation_platform.errors import NegotiationError

    with pytest.raises(NegotiationError):
        LLMAgent(target="")


class Babbler(FakeModel):
    """Never answers with JSON."""

    def reply(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.requests.append(request)
        return 200, completion("I would rather not say.")


def test_unusable_replies_forfeit_the_move_after_the_bound() -> None:
    model = Babbler(json_mode=True)
    for endpoint in serve(model):
        agent = LLMAgent(target="fake-model", base_url=endpoint, api_key="test", max_replies=2)
        result = asyncio.run(play_match(Arena(Registry()), "company_car", [agent, ConcessionAgent()], seed=1))
    assert result["status"] == "finished"
    assert len(model.requests) == len(agent.transcript) and len(agent.transcript) % 2 == 0
    assert all(entry["problem"] == "it contains no JSON object." for entry in agent.transcript)
    forfeits = [e for e in result["events"] if e["kind"] == "timeout" and e["data"]["players"] == ["llm"]]
    assert forfeits and all(e["data"]["reason"].startswith("2 unusable replies: it contains") for e in forfeits)
    assert all(e["data"]["forfeit"] is True for e in forfeits)
    moves = [e["data"] for e in result["events"] if e["kind"] == "action" and e["actor"] == "llm"]
    assert moves and all(data["forfeited"] and "timed_out" not in data for data in moves)
    shown = [event_line(e) for e in result["events"] if e["actor"] == "llm" or e["kind"] == "timeout"]
    assert "llm forfeited: 2 unusable replies: it contains no JSON object." in shown[0]
    assert shown[1].endswith("(forfeited)") and not any("timed out" in line for line in shown)
    events = [Event.from_dict(e) for e in result["events"]]  # a forfeit replays as a forfeit
    game = Registry().game("company_car").cls
    replayed = Match.replay(game, list(result["players"]), events, seed=1, match_id=result["match_id"])
    assert [e.data for e in replayed.events] == [e["data"] for e in result["events"]]


def test_an_unreachable_endpoint_fails_the_match_not_the_tournament(tmp_path: Path) -> None:
    port = closed_port()
    rows = run_tournament(
        ["split_100"],
        ["llm:fake-model", "concession"],
        out=tmp_path,
        agent_options={"base_url": f"http://127.0.0.1:{port}/v1", "api_key": "test", "timeout": 2},
    )
    assert [row["agents"] for row in rows] == [["concession", "concession"]]
    failures = [json.loads(line) for line in (tmp_path / "failures.jsonl").read_text().splitlines()]
    assert {f["key"] for f in failures} == {
        "split_100|llm:fake-model,llm:fake-model|0",
        "split_100|llm:fake-model,concession|0",
    }
    named = f"EndpointError: http://127.0.0.1:{port}/v1 could not serve model 'fake-model': APIConnectionError"
    assert all(f["error"].startswith(named) for f in failures)
