"""LLM research at scale, against the fake OpenAI-compatible endpoint of `tests.fake_openai` on 127.0.0.1:
retries and forfeits with their true reasons, option checks, failures that show, usage and cost,
the response cache, and the per-endpoint concurrency limit."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from negotiation_platform.agents.base import Decision
from negotiation_platform.agents.concession import ConcessionAgent
from negotiation_platform.agents.driver import play_match
from negotiation_platform.agents.llm import LLMAgent, move_deadline
from negotiation_platform.agents.llm_calls import EndpointError
from negotiation_platform.agents.llm_usage import load_prices
from negotiation_platform.arena import Arena
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.errors import NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.research.analysis import failure_summary, usage_by_agent
from negotiation_platform.research.tournament import failure_rows, run_tournament
from tests.fake_openai import FakeModel, closed_port, serve

FAST = {"api_key": "test", "backoff": 0.01, "max_backoff": 0.05}
"""Agent options that keep retries quick."""


class Slow(FakeModel):
    """Answers every `slow_every`-th request (1: every one) only after `delay` seconds."""

    def __init__(self, delay: float, slow_every: int = 1) -> None:
        super().__init__(malformed_first=False)
        self.delay, self.slow_every = delay, slow_every

    def reply(self, request: dict[str, Any]) -> Any:
        with self.lock:
            count = self.calls
        if count % self.slow_every == (1 % self.slow_every):
            time.sleep(self.delay)
        return super().reply(request)


class Throttled(FakeModel):
    """The first request gets 429 with `Retry-After`, the second 503; then it plays."""

    def __init__(self) -> None:
        super().__init__(malformed_first=False)
        self.arrivals: list[float] = []

    def reply(self, request: dict[str, Any]) -> Any:
        self.arrivals.append(time.monotonic())
        if len(self.arrivals) == 1:
            return 429, {"error": {"message": "slow down", "type": "rate_limit"}}, {"Retry-After": "0.3"}
        if len(self.arrivals) == 2:
            return 503, {"error": {"message": "overloaded", "type": "server_error"}}
        return super().reply(request)


def served(model: FakeModel) -> Iterator[str]:
    yield from serve(model)


def play(agent: LLMAgent, game: str = "company_car", seed: int = 1) -> dict[str, Any]:
    return asyncio.run(play_match(Arena(Registry()), game, [agent, ConcessionAgent()], seed=seed))


def forfeit_reasons(result: dict[str, Any]) -> list[str]:
    return [e["data"]["reason"] for e in result["events"] if e["kind"] == "timeout" and e["data"].get("forfeit")]


def test_a_slow_reply_is_retried_and_the_move_still_made() -> None:
    model = Slow(delay=0.5, slow_every=2)  # the 1st, 3rd, 5th... request is slow
    for endpoint in served(model):
        agent = LLMAgent(target="fake-model", base_url=endpoint, timeout=0.15, retries=2, **FAST)
        result = play(agent)
    assert result["status"] == "finished" and not forfeit_reasons(result)
    assert agent.transcript[0]["tries"] == 2 and agent.transcript[0]["problem"] is None


def test_an_endpoint_too_slow_for_every_try_forfeits_the_move_with_that_reason() -> None:
    model = Slow(delay=0.4)
    for endpoint in served(model):
        agent = LLMAgent(target="fake-model", base_url=endpoint, timeout=0.1, retries=1, **FAST)
        result = play(agent)
    reasons = forfeit_reasons(result)
    assert result["status"] == "finished" and reasons
    assert all(r == "endpoint failed: timeout after 0.1 s (2 tries)" for r in reasons)
    assert model.calls == 2 * len(reasons)  # every forfeited move was tried twice
    assert all(e["reply"] is None and e["problem"].startswith("endpoint: timeout") for e in agent.transcript)
    moves = [e["data"] for e in result["events"] if e["kind"] == "action" and e["actor"] == "llm"]
    assert moves and all(m.get("forfeited") and not m.get("timed_out") for m in moves)


def test_the_move_deadline_bounds_the_retries() -> None:
    model = Slow(delay=0.4)
    for endpoint in served(model):
        agent = LLMAgent(target="fake-model", base_url=endpoint, timeout=5, retries=50, move_seconds=0.25, **FAST)
        started = time.monotonic()
        result = play(agent, game="split_100")
    reasons = forfeit_reasons(result)
    assert reasons and all("the move's deadline" in r and r.startswith("endpoint failed: ") for r in reasons)
    assert time.monotonic() - started < 0.5 * len(reasons) + 2
    soon = move_deadline(None, 10.0)
    assert soon is not None and 8.5 < soon - time.monotonic() <= 9.0  # a second before the turn clock's default
    assert move_deadline(None, None) is None and move_deadline(2.0, 10.0) < time.monotonic() + 2.01  # type: ignore[operator]


def test_a_move_gives_up_before_the_turn_clock_plays_its_default() -> None:
    model = Slow(delay=2.0)
    for endpoint in served(model):
        agent = LLMAgent(target="fake-model", base_url=endpoint, timeout=30, retries=5, **FAST)
        arena = Arena(Registry(), policy=ArenaPolicy(turn_timeout=0.8))
        result = asyncio.run(play_match(arena, "split_100", [agent, ConcessionAgent()], seed=1))
    reasons = forfeit_reasons(result)
    assert reasons and all(r.startswith("endpoint failed: timeout after 0.6 s") for r in reasons)
    moves = [e["data"] for e in result["events"] if e["kind"] == "action" and e["actor"] == "llm"]
    assert moves and not any(m.get("timed_out") for m in moves)  # the agent's forfeit came first, every time


class Dawdler:
    """Forfeits every move, but only after the turn clock has run out."""

    name = "dawdler"

    async def decide(self, turn: dict[str, Any]) -> Decision:
        await asyncio.sleep(0.3)
        return Decision(forfeit="too late to say")


def test_a_forfeit_the_turn_clock_overtook_does_not_fail_the_match() -> None:
    arena = Arena(Registry(), policy=ArenaPolicy(turn_timeout=0.1))
    result = asyncio.run(play_match(arena, "split_100", [Dawdler(), ConcessionAgent()], seed=1))
    assert result["status"] == "finished" and not forfeit_reasons(result)
    assert any(e["data"].get("timed_out") for e in result["events"] if e["actor"] == "dawdler")


def test_429_waits_for_retry_after_and_503_is_retried() -> None:
    model = Throttled()
    for endpoint in served(model):
        agent = LLMAgent(target="fake-model", base_url=endpoint, api_key="test", backoff=0.01, retries=3)
        result = play(agent)
    assert result["status"] == "finished" and not forfeit_reasons(result)
    first, second, third = model.arrivals[:3]
    assert 0.3 <= second - first < 1.5  # Retry-After, not the 0.01 s backoff
    assert third - second < 0.3
    assert agent.transcript[0]["tries"] == 3


def test_an_unreachable_default_endpoint_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx
    import openai

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    agent = LLMAgent(target="gpt-x", api_key="test")

    async def refuse(**_: Any) -> Any:
        raise openai.APIConnectionError(request=httpx.Request("POST", "https://api.openai.com/v1/chat/completions"))

    monkeypatch.setattr(agent.caller.client.chat.completions, "create", refuse)
    with pytest.raises(EndpointError) as failed:
        play(agent)
    assert str(failed.value) == (
        "https://api.openai.com/v1 (the default OpenAI URL: set base_url or OPENAI_BASE_URL) could not serve "
        "model 'gpt-x': APIConnectionError: Connection error."
    )


def run_cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "negotiation_platform.cli.main", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env={**os.environ, **env})


def cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli("tournament", *args, **env)


def test_an_unknown_agent_option_exits_2_before_any_request(tmp_path: Path) -> None:
    model = FakeModel()
    for endpoint in served(model):
        done = cli("--games", "split_100", "--agents", "llm:fake-model", "concession", "--out", str(tmp_path),
                   "--agent-config", '{"temprature": 0.3}', OPENAI_BASE_URL=endpoint)  # fmt: skip
    [line] = done.stderr.splitlines()
    assert done.returncode == 2 and model.calls == 0 and not (tmp_path / "matches.jsonl").exists()
    assert "Unknown option(s) ['temprature'] for llm agents; known options: api_key, backoff" in line
    assert "temperature" in line
    with pytest.raises(NegotiationError, match="temprature"):
        run_tournament(["split_100"], ["llm:m", "concession"], out=tmp_path, agent_options={"temprature": 0.3})


def test_failures_show_in_the_summary_and_exit_code_and_a_rerun_clears_them(tmp_path: Path) -> None:
    args = ["--games", "split_100", "--agents", "llm:fake-model", "concession", "--out", str(tmp_path)]
    down = f"http://127.0.0.1:{closed_port()}/v1"
    failed = cli(*args, "--agent-config", json.dumps({"base_url": down, "api_key": "test"}))
    assert failed.returncode == 1, failed.stderr
    assert "3 scheduled: 1 played, 0 skipped (done before), 2 failed; 1 matches" in failed.stdout
    assert f"2× EndpointError: {down} could not serve model 'fake-model': APIConnectionError" in failed.stdout
    assert len(failure_rows(tmp_path)) == 2
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"fake-model": {"input": 1000, "output": 1000}}))
    for endpoint in served(FakeModel(malformed_first=False)):
        config = json.dumps({"base_url": endpoint, "api_key": "test"})
        again = cli(*args, "--agent-config", config, "--prices", str(prices))
    assert again.returncode == 0, again.stderr
    assert "3 scheduled: 2 played, 1 skipped (done before), 0 failed; 3 matches" in again.stdout
    assert (tmp_path / "failures.jsonl").read_text() == ""
    stored = [json.loads(line) for line in (tmp_path / "matches.jsonl").read_text().splitlines()]
    priced = [row["usage_total"]["cost_usd"] for row in stored if "usage_total" in row]
    assert len(priced) == 2 and all(cost > 0 for cost in priced)  # the fake reports 2 tokens a reply


def test_a_malformed_price_table_is_refused(tmp_path: Path) -> None:
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"m": {"input": 1, "outptu": 2}}))
    with pytest.raises(NegotiationError, match="'m' needs non-negative input and output"):
        load_prices(table)
    with pytest.raises(NegotiationError, match="cannot read the price table"):
        load_prices(tmp_path / "missing.toml")


def test_a_rerun_keeps_only_the_latest_failure_of_each_match(tmp_path: Path) -> None:
    options = {"base_url": f"http://127.0.0.1:{closed_port()}/v1", "api_key": "test"}
    seen: list[dict[str, Any]] = []
    for _ in range(2):
        run_tournament(["split_100"], ["llm:m"], out=tmp_path, agent_options=options, on_failure=seen.append)
    assert len(seen) == 2 and [row["key"] for row in failure_rows(tmp_path)] == ["split_100|llm:m,llm:m|0"]
    [summary] = failure_summary(failure_rows(tmp_path))
    assert summary["count"] == 1 and "could not serve model 'm'" in summary["error"]


USAGE = {
    "prompt_tokens": 100,
    "completion_tokens": 20,
    "total_tokens": 120,
    "prompt_tokens_details": {"cached_tokens": 40},
}


def test_usage_and_cost_are_in_the_rows_and_the_analysis(tmp_path: Path) -> None:
    prices_file = tmp_path / "prices.toml"
    prices_file.write_text("[fake-model]\ninput = 1.0\noutput = 2.0\ncached = 0.5\n")
    prices = load_prices(prices_file)
    for endpoint in served(FakeModel(usage=USAGE)):
        rows = run_tournament(["split_100"], ["llm:fake-model", "concession"], out=tmp_path / "t", prices=prices,
                              agent_options={"base_url": endpoint, **FAST})  # fmt: skip
    row = next(r for r in rows if r["agents"] == ["llm:fake-model", "concession"])
    llm, scripted = row["usage"]
    calls = len(row["transcripts"][0])
    assert scripted is None and llm["calls"] == calls > 0 and llm["failed_calls"] == llm["cache_hits"] == 0
    assert (llm["prompt_tokens"], llm["completion_tokens"], llm["cached_tokens"]) == (
        100 * calls,
        20 * calls,
        40 * calls,
    )
    assert llm["cost_usd"] == pytest.approx(calls * (60 * 1.0 + 40 * 0.5 + 20 * 2.0) / 1e6)
    assert row["usage_total"] == llm and row["forfeits"] == [0, 0]
    entry = row["transcripts"][0][1]
    assert entry["usage"] == {"prompt_tokens": 100, "completion_tokens": 20, "cached_tokens": 40}
    assert entry["seconds"] > 0 and entry["cache_hit"] is False
    table = usage_by_agent(rows)
    both = next(r for r in rows if r["agents"] == ["llm:fake-model", "llm:fake-model"])
    assert table["llm:fake-model"]["seats"] == 3
    assert table["total"]["cost_usd"] == pytest.approx(row["usage_total"]["cost_usd"] + both["usage_total"]["cost_usd"])
    with pytest.raises(NegotiationError, match="no prices for models \\['other'\\]"):
        run_tournament(["split_100"], ["llm:other"], out=tmp_path / "u", prices=prices)


@pytest.mark.parametrize("json_mode", [True, False])
def test_a_cached_rerun_makes_no_request_and_gives_the_same_transcript(tmp_path: Path, json_mode: bool) -> None:
    model = FakeModel(json_mode=json_mode, usage=USAGE)
    for endpoint in served(model):
        options = {"base_url": endpoint, "cache": str(tmp_path / "replies.sqlite"), **FAST}
        first = run_tournament(
            ["company_car"], ["llm:fake-model", "concession"], out=tmp_path / "a", agent_options=options
        )
        paid = model.calls
        again = run_tournament(
            ["company_car"], ["llm:fake-model", "concession"], out=tmp_path / "b", agent_options=options
        )
    assert paid > 0 and model.calls == paid
    for before, after in zip(first, again, strict=True):
        assert before["payoffs"] == after["payoffs"] and before["offers"] == after["offers"]
        for old, new in zip(before.get("transcripts", []), after.get("transcripts", []), strict=True):
            assert [(e["reply"], e["problem"]) for e in old or []] == [(e["reply"], e["problem"]) for e in new or []]
            assert all(e["cache_hit"] for e in new or [])
        usage = [u for u in after.get("usage", []) if u is not None]
        assert all(u["calls"] == u["prompt_tokens"] == 0 and u["cache_hits"] > 0 for u in usage)


def test_sampled_replies_are_cached_only_when_asked_and_per_seat(tmp_path: Path) -> None:
    model = FakeModel(malformed_first=False)
    cache = str(tmp_path / "replies.sqlite")
    calls = []
    for endpoint in served(model):
        for seed, options in [
            (1, {}),
            (1, {"cache_sampled": True}),
            (1, {"cache_sampled": True}),
            (2, {"cache_sampled": True}),
        ]:
            agent = LLMAgent(seed, target="m", base_url=endpoint, temperature=0.7, cache=cache, **FAST, **options)
            asyncio.run(play_match(Arena(Registry()), "split_100", [agent, ConcessionAgent()], seed=1))
            calls.append(model.calls)
    unsampled, first, replay, other_seat = (b - a for a, b in zip([0, *calls], calls, strict=False))
    assert unsampled > 0 and first > 0 and replay == 0 and other_seat > 0


def test_the_concurrency_limit_per_endpoint_holds(tmp_path: Path) -> None:
    model = Slow(delay=0.03)
    for endpoint in served(model):
        options = {"base_url": endpoint, "max_concurrency": 2, **FAST}
        rows = run_tournament(
            ["split_100"], ["llm:fake-model"], seeds=4, workers=4, out=tmp_path, agent_options=options
        )
    assert len(rows) == 4 and model.calls >= 8 and model.peak == 2  # four matches at once, two requests at a time


def test_play_replays_a_seed_from_the_cache_and_checks_options_first(tmp_path: Path) -> None:
    model = FakeModel(malformed_first=False)
    cache = str(tmp_path / "replies.sqlite")
    for endpoint in served(model):
        args = ["play", "split_100", "--agents", "llm:fake-model", "concession", "--seed", "3", "--json"]
        env = {"OPENAI_BASE_URL": endpoint, "OPENAI_API_KEY": "test"}
        first = run_cli(*args, "--llm-cache", cache, **env)
        paid = model.calls
        again = run_cli(*args, "--llm-cache", cache, **env)
        refused = run_cli(*args, "--agent-config", '{"temprature": 0}', **env)
    assert first.returncode == again.returncode == 0, first.stderr + again.stderr
    assert paid > 0 and model.calls == paid and json.loads(again.stdout) == json.loads(first.stdout)
    assert refused.returncode == 2 and "Unknown option(s) ['temprature'] for llm agents" in refused.stderr
