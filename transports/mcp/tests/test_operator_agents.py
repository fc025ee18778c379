"""Agents the operator owns, against real `serve mcp --transport http` subprocesses and a fake OpenAI endpoint
on 127.0.0.1: a client may not seat an agent that spends the operator's model budget or reads its files
(whatever `--allow-remote-agent` allows), a refused `start_game` leaves no match behind, a client may not
name its seat like a house agent or a person, and a study's `llm:` opponent plays in the server that
serves the study while its participant plays in a real browser."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from browser_helpers import needs_chromium
from mcp import Client
from mcp_servers import free_port, mcp_server, start_mcp_server
from play_page import play_split_100

from negotiation_mcp.client import McpArena
from negotiation_platform.cli.main import main
from negotiation_platform.errors import ErrorCode, NegotiationError
from tests.fake_openai import FakeModel, serve
from tests.play_api import play_link

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def model() -> FakeModel:
    return FakeModel(malformed_first=False)


@pytest.fixture
def endpoint(model: FakeModel) -> Iterator[str]:
    yield from serve(model)


def operator_env(endpoint: str) -> dict[str, str]:
    """The server's environment: its operator's model endpoint and key."""
    return {**os.environ, "OPENAI_BASE_URL": endpoint, "OPENAI_API_KEY": "the-operators-key"}


async def refusal(api: McpArena, **arguments: Any) -> NegotiationError:
    with pytest.raises(NegotiationError) as refused:
        await api.start_game("split_100", **arguments)
    return refused.value


async def test_a_client_seats_no_agent_that_spends_the_operators_budget_or_reads_its_files(
    endpoint: str, model: FakeModel, tmp_path: Path
) -> None:
    base = endpoint.removesuffix("/v1")  # the allow-list covers the endpoint itself: still no llm seat
    flags = ("--allow-remote-agent", f"{base}/", "--offer-opponent", "llm:offered-model")
    with mcp_server(*flags, env=operator_env(endpoint)) as url:
        async with Client(url) as client:
            api = McpArena(client)
            for spec in (f"llm:{base}/agents/x", f"mcp-llm:{base}/agents/x", "llm:gpt-4o", f"policy:{tmp_path}"):
                refused = await refusal(api, name="me", opponents=[spec])
                assert refused.code is ErrorCode.FORBIDDEN, spec
                assert "operator" in refused.message and spec in refused.details["refused"]
            for spec in (f"random:{base}/agents/x", "concession:x", "llm", "a2a", "nobody"):
                assert (await refusal(api, opponents=[spec])).code is ErrorCode.INVALID_ARGUMENT, spec
            assert (await api.list_matches())["matches"] == []  # no refusal left a match behind
            offered = await api.start_game("split_100", name="me", opponents=["llm:offered-model"])
            assert offered["opponents"] == ["llm"]  # what the operator offers, a client may name
            assert [m["match_id"] for m in (await api.list_matches())["matches"]] == [offered["match_id"]]
    assert all(request["model"] == "offered-model" for request in model.requests)  # nothing else was called


async def test_a_client_cannot_name_its_seat_like_a_house_agent_or_a_person() -> None:
    with mcp_server() as url:
        async with Client(url) as client:
            api = McpArena(client)
            for name in ("concession", "Human", " random ", "participant_2", "human_2", "llm", "mcp-llm"):
                assert (await refusal(api, name=name, opponents=["concession"])).code is ErrorCode.INVALID_ARGUMENT
            assert (await api.list_matches())["matches"] == []
            mine = await api.start_game("company_car", name="me")
            with pytest.raises(NegotiationError) as joined:
                await api.join_game(mine["match_id"], name="batna")
            assert joined.value.code is ErrorCode.INVALID_ARGUMENT
            other = await api.join_game(mine["match_id"], name="humane")  # a name that only starts like one
            assert other["agent_id"] == "humane"


async def study_against_an_llm(
    tmp_path: Path, endpoint: str, model: FakeModel, play: Callable[[str], Awaitable[dict[str, float]]]
) -> None:
    """`study create --opponents llm:fake-model` for one participant, served by `serve mcp --store`, the seat
    played with `play` (its link; every seat's payoff): the LLM seat plays through the operator's endpoint."""
    store, links = tmp_path / "study.sqlite", tmp_path / "links.csv"
    port = free_port()
    create = ["study", "create", "--game", "split_100", "--opponents", "llm:fake-model", "--participants", "1"]
    create += ["--store", str(store), "--base-url", f"http://127.0.0.1:{port}", "--out", str(links)]
    assert await anyio.to_thread.run_sync(main, create) == 0
    [row] = list(csv.DictReader(links.open()))
    assert model.calls == 0  # made by the operator's command, played only by the server

    server = start_mcp_server(port, "--store", str(store), env=operator_env(endpoint))
    try:
        finals = await play(row["play_url"])
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert model.calls >= 1 and {request["model"] for request in model.requests} == {"fake-model"}
    out = tmp_path / "results.jsonl"
    export = ["study", "export", "--store", str(store), "--links", str(links), "--out", str(out)]
    assert await anyio.to_thread.run_sync(main, export) == 0
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    [llm] = set(finals) - {record["agent_id"]}
    assert record["status"] == "finished" and record["payoffs"] == finals
    assert any(e["kind"] == "action" and e["actor"] == llm for e in record["transcript"])  # the LLM seat moved


async def test_a_studys_llm_opponent_plays_its_participant_over_the_play_api(
    endpoint: str, model: FakeModel, tmp_path: Path
) -> None:
    async def over_the_api(link: str) -> dict[str, float]:
        return dict((await anyio.to_thread.run_sync(play_link, link))["result"]["payoffs"])

    await study_against_an_llm(tmp_path, endpoint, model, over_the_api)


@needs_chromium
async def test_a_studys_llm_opponent_plays_its_participant_in_the_browser(
    endpoint: str, model: FakeModel, tmp_path: Path, person: Any
) -> None:
    async def in_the_browser(link: str) -> dict[str, float]:
        return await play_split_100(person, link)

    await study_against_an_llm(tmp_path, endpoint, model, in_the_browser)
