"""The A2A transport: the arena as an A2A agent, remote A2A agents as players, and mixed matches."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import jsonschema
import pytest
from a2a.client import A2ACardResolver, ClientConfig
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import AgentSkill
from a2a_servers import exact, json_rpc, served
from mcp import Client
from starlette.applications import Starlette

from negotiation_a2a import wire
from negotiation_a2a.agent_server import build_agent_app
from negotiation_a2a.arena_server import HELP, SCHEMA_LABEL, build_arena_app
from negotiation_a2a.client import A2aArena, RemoteA2aAgent, connect
from negotiation_mcp.client import McpArena
from negotiation_mcp.serving import http_app
from negotiation_platform.agents import BatnaAwareAgent, ConcessionAgent, RandomAgent, play_match
from negotiation_platform.agents.driver import SeatHandle, run_seat
from negotiation_platform.arena import Arena
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.engine import Event, Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.operations import OPERATIONS

pytestmark = pytest.mark.anyio
BASE = "http://127.0.0.1:9"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def in_process(arena: Arena | None = None) -> AsyncIterator[tuple[Arena, A2aArena, httpx.AsyncClient]]:
    """The arena's A2A app behind an ASGI transport: no socket."""
    arena = arena or Arena()
    app = build_arena_app(arena, BASE)
    async with (
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as http,
        connect(BASE, http=http) as api,
    ):
        yield arena, api, http


def replay_payoffs(arena: Arena, match_id: str) -> dict[str, float]:
    live = arena.held(match_id)
    assert live is not None and live.match is not None
    events = [Event.from_dict(e) for e in arena.events(match_id)]
    rebuilt = Match.replay(live.entry.cls, live.match.players, events, config=live.config, seed=live.seed)
    assert rebuilt.result is not None
    return rebuilt.result.final_scores


class TestArenaAsA2aAgent:
    async def test_agent_card_lists_the_operations_as_skills(self) -> None:
        async with in_process() as (_, _, http):
            response = await http.get("/.well-known/agent-card.json")
            assert response.status_code == 200
            card = response.json()
            assert {s["id"] for s in card["skills"]} == set(OPERATIONS)
            assert card["supportedInterfaces"][0] == {
                "url": f"{BASE}/a2a/jsonrpc",
                "protocolBinding": "JSONRPC",
                "protocolVersion": "1.0",
            }
            example = json.loads(next(s for s in card["skills"] if s["id"] == "perform_action")["examples"][0])
            assert example["operation"] == "perform_action" and "payload" in example["arguments"]

    async def test_every_operation(self) -> None:
        async with in_process() as (_, api, _):
            assert "split_100" in {g["id"] for g in (await api.list_games())["games"]}
            assert "alternating" in (await api.get_game_rules("split_100"))["rules"]
            a = await api.start_game("auction", seed=5, name="a")
            b = await api.join_game(a["match_id"], name="b")
            c = await api.join_game(a["match_id"], name="c")
            mid = a["match_id"]
            assert (await api.list_matches())["matches"][0]["status"] == "running"
            await api.send_public_message(mid, a["token"], "hello all")
            await api.send_private_message(mid, a["token"], ["b"], "hello b")
            for seat in (a, b, c):
                await api.perform_action(mid, seat["token"], "done")
            state = await api.get_turn_state(mid, c["token"])
            assert state["phase"] == "bid" and state["your_turn"] is True
            assert [e["data"]["content"] for e in state["events"] if e["kind"] == "message"] == ["hello all"]
            assert isinstance(state["cursor"], int)  # data-part floats come back as ints
            for seat, amount in ((a, 30), (b, 40), (c, 20)):
                await api.perform_action(mid, seat["token"], "bid", {"amount": amount})
            result = await api.get_result(mid)
            assert result["terms"]["winner"] == "b" and result["terms"]["price"] == 40

    async def test_errors_come_back_as_structured_data(self) -> None:
        async with in_process() as (_, api, _):
            cases = [
                (ErrorCode.UNKNOWN_GAME, api.get_game_rules("chess")),
                (ErrorCode.UNKNOWN_MATCH, api.join_game("missing")),
                (ErrorCode.UNKNOWN_OPERATION, api.call("fly_away")),
                (ErrorCode.INVALID_ARGUMENT, api.call("list_games", surprise=1)),
                (ErrorCode.INVALID_CONFIG, api.start_game("split_100", config={"rounds": "many"})),
            ]
            for code, call in cases:
                with pytest.raises(NegotiationError) as info:
                    await call
                assert info.value.code is code and info.value.message
            s = await api.start_game("split_100", name="s")
            await api.join_game(s["match_id"], name="t")
            with pytest.raises(NegotiationError) as info:
                await api.perform_action(s["match_id"], "stolen-token", "propose", {"mine": 50})
            assert info.value.code is ErrorCode.FORBIDDEN

    async def test_plain_text_gets_help(self) -> None:
        async with in_process() as (_, api, _):
            answer = await wire.ask(api.client, [wire.text("hi, what can you do?")], "ctx-1", 10)
            assert wire.text_of(answer) == HELP

    async def test_one_context_carries_a_whole_match(self) -> None:
        async with in_process() as (arena, api, _):
            me = await api.start_game("split_100", seed=2, name="me", opponents=["concession"])
            while True:
                state = await api.call("get_turn_state", wait_seconds=5)  # match_id and token from the context
                if state["status"] == "finished":
                    break
                if state["your_turn"]:
                    await api.call(
                        "perform_action",
                        action_type="accept" if state["view"]["standing_offer"] else "propose",
                        payload={} if state["view"]["standing_offer"] else {"mine": 60},
                    )
            result = await api.call("get_result", match_id=me["match_id"])
            assert result == await arena.get_result(me["match_id"])

    async def test_a_whole_match_through_a2a_equals_the_in_process_one(self) -> None:
        agents = lambda: [BatnaAwareAgent(name="x"), ConcessionAgent(name="y")]  # noqa: E731
        async with in_process() as (_, api, _):
            through = await play_match(api, "resource_allocation", agents(), seed=9)
        direct = await play_match(Arena(), "resource_allocation", agents(), seed=9)
        assert through["payoffs"] == pytest.approx(direct["payoffs"])
        assert through["terms"] == direct["terms"] and len(through["events"]) == len(direct["events"])

    async def test_over_uvicorn_on_loopback(self) -> None:
        arena = Arena()
        async with served(lambda base: build_arena_app(arena, base)) as base:
            async with httpx.AsyncClient() as http:
                card = await A2ACardResolver(http, base).get_agent_card()
                assert card.supported_interfaces[0].url == f"{base}/a2a/jsonrpc"
            async with connect(base) as api:
                result = await play_match(
                    api, "split_100", [ConcessionAgent(name="p"), RandomAgent(seed=3, name="q")], seed=4
                )
        assert result["status"] == "finished"
        assert result["payoffs"] == (await arena.get_result(result["match_id"]))["payoffs"]


class Misbehaving(AgentExecutor):
    """A remote 'agent' that is slow, talks nonsense, or makes illegal moves."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        if self.mode == "slow":
            await asyncio.sleep(3)
            part = wire.data({"action_type": "reject", "payload": {}})
        elif self.mode == "garbage":
            part = wire.text("I would rather talk about the weather.")
        else:
            part = wire.data({"action_type": "teleport", "payload": {"where": "moon"}})
        await event_queue.enqueue_event(wire.reply([part], context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def misbehaving_app(mode: str, base: str) -> Starlette:
    skill = AgentSkill(id="negotiate", name="negotiate", description="misbehaves", tags=["test"])
    return wire.a2a_app(Misbehaving(mode), wire.agent_card(f"{mode} agent", "test", base, [skill]))


class TestRemoteAgents:
    async def test_a_served_builtin_agent_plays_as_a_remote_seat(self) -> None:
        async with served(lambda base: build_agent_app(ConcessionAgent(name="far"), base)) as base:
            result = await play_match(
                Arena(), "split_100", [RemoteA2aAgent(target=base, name="far"), ConcessionAgent(name="near")], seed=3
            )
        direct = await play_match(
            Arena(), "split_100", [ConcessionAgent(name="far"), ConcessionAgent(name="near")], seed=3
        )
        assert result["payoffs"] == direct["payoffs"]
        assert not [e for e in result["events"] if e["kind"] == "timeout"]

    @pytest.mark.parametrize(
        ("mode", "reason"), [("slow", "late reply"), ("garbage", "malformed reply"), ("illegal", "illegal move")]
    )
    async def test_a_bad_remote_agent_gets_default_moves_and_the_match_goes_on(self, mode: str, reason: str) -> None:
        arena = Arena()
        async with served(lambda base: misbehaving_app(mode, base)) as base:
            remote = RemoteA2aAgent(target=base, name="remote", reply_seconds=0.5)
            result = await asyncio.wait_for(
                play_match(arena, "company_car", [remote, ConcessionAgent(name="local")], seed=6), timeout=60
            )
        assert result["status"] == "finished"
        timeouts = [e for e in result["events"] if e["kind"] == "timeout"]
        assert timeouts and all(e["data"]["reason"].startswith(reason) for e in timeouts)
        defaults = [e for e in result["events"] if e["kind"] == "action" and e["actor"] == "remote"]
        assert defaults and all(
            e["data"] == {"action_type": "reject", "payload": {}, "forfeited": True} for e in defaults
        )
        assert replay_payoffs(arena, result["match_id"]) == result["payoffs"]


async def test_one_match_three_ways_mcp_http_remote_a2a_and_builtin() -> None:
    arena = Arena()
    async with (
        served(lambda base: http_app(arena)) as mcp_base,
        served(lambda base: build_agent_app(ConcessionAgent(name="remote"), base)) as agent_base,
        Client(f"{mcp_base}/mcp") as client,
    ):
        api = McpArena(client)
        me = await api.start_game("auction", seed=14, name="mcp_player", opponents=[f"a2a:{agent_base}", "random"])
        assert me["opponents"] == ["a2a", "random"]
        seat = SeatHandle(RandomAgent(seed=1, name="mcp_player"), me["agent_id"], me["token"])
        await asyncio.wait_for(run_seat(api, me["match_id"], seat, wait_seconds=5), timeout=60)
        over_mcp = await api.get_result(me["match_id"])
    recorded = await arena.get_result(me["match_id"])
    assert over_mcp == recorded and recorded["status"] == "finished"
    actors = {
        e["actor"] for e in arena.events(me["match_id"]) if e["kind"] == "action" and not e["data"].get("timed_out")
    }
    assert actors == {"mcp_player", "a2a", "random"}
    assert replay_payoffs(arena, me["match_id"]) == recorded["payoffs"]


class TestThirdPartyClients:
    async def test_answers_keep_integers_and_the_context_remembers_the_seat_through_get_result(self) -> None:
        arena = Arena()
        async with served(lambda base: build_arena_app(arena, base)) as base, httpx.AsyncClient() as http:
            url = f"{base}/a2a/jsonrpc"
            start = {"operation": "start_game", "arguments": {"game_id": "split_100", "seed": 3, "name": "me"}}
            reply = await json_rpc(http, url, start)
            started = exact(reply)
            [data] = [p["data"] for p in reply["parts"] if "data" in p]
            assert data["seats"] == 2.0 and isinstance(started["seats"], int) and started["seats"] == 2
            assert {k: v for k, v in data.items() if k != "seats"} == {k: v for k, v in started.items() if k != "seats"}
            await arena.join_game(started["match_id"], name="you")
            context = started["context_id"]
            state = exact(await json_rpc(http, url, {"operation": "get_turn_state", "arguments": {}}, context))
            assert isinstance(state["cursor"], int) and isinstance(state["round"], int)
            move = {"action_type": "walk_away", "payload": {}}
            await json_rpc(http, url, {"operation": "perform_action", "arguments": move}, context)
            result = exact(await json_rpc(http, url, {"operation": "get_result", "arguments": {}}, context))
            assert result == await arena.get_result(started["match_id"]) and result["status"] == "finished"
            stranger = exact(await json_rpc(http, url, {"operation": "get_result", "arguments": {}}))
            assert stranger["error"]["code"] == "invalid_argument"  # a context without a seat supplies nothing

    async def test_a_served_matchs_seed_survives_the_data_parts_doubles(self) -> None:
        # issue 27: served seeds had 63 bits; a data part (a protobuf Struct: doubles, as JS reads JSON)
        # rounded them, so a client could not replay the match from the seed it was given
        arena = Arena(policy=ArenaPolicy.served())
        async with served(lambda base: build_arena_app(arena, base)) as base, httpx.AsyncClient() as http:
            url = f"{base}/a2a/jsonrpc"
            start = {"operation": "start_game", "arguments": {"game_id": "split_100", "opponents": ["concession"]}}
            context = (await json_rpc(http, url, start))["contextId"]
            move = {"action_type": "walk_away", "payload": {}}
            await json_rpc(http, url, {"operation": "perform_action", "arguments": move}, context)
            reply = await json_rpc(http, url, {"operation": "get_result", "arguments": {}}, context)
        [data] = [p["data"] for p in reply["parts"] if "data" in p]
        assert data["status"] == "finished" and int(data["seed"]) == exact(reply)["seed"] <= 2**53 - 1

    async def test_the_card_gives_every_skill_its_argument_schema_and_a_valid_example(self) -> None:
        async with served(lambda base: build_arena_app(Arena(), base)) as base, httpx.AsyncClient() as http:
            card = (await http.get(f"{base}/.well-known/agent-card.json")).json()
        skills = {skill["id"]: skill for skill in card["skills"]}
        assert set(skills) == set(OPERATIONS)
        for name, operation in OPERATIONS.items():
            label_line = skills[name]["description"].splitlines()[-1]
            assert label_line.startswith(SCHEMA_LABEL)
            schema = json.loads(label_line.removeprefix(SCHEMA_LABEL))
            assert set(schema["properties"]) == set(operation.required + operation.optional)
            assert schema["additionalProperties"] is False
            example = json.loads(skills[name]["examples"][0])
            assert example["operation"] == name
            jsonschema.validate(example["arguments"], schema)
            operation.request.model_validate(example["arguments"])  # and the catalogue's request model
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate({**example["arguments"], "surprise": 1}, schema)
        get_result = json.loads(skills["get_result"]["description"].splitlines()[-1].removeprefix(SCHEMA_LABEL))
        assert get_result["required"] == []  # the seat's context supplies match_id

    @pytest.mark.parametrize("agent", [ConcessionAgent(name="far"), RandomAgent(seed=2, name="far")])
    async def test_the_seat_card_example_gets_a_legal_move(self, agent: Any) -> None:
        async with served(lambda base: build_agent_app(agent, base)) as base, httpx.AsyncClient() as http:
            card = await A2ACardResolver(http, base).get_agent_card()
            [skill] = card.skills
            request = json.loads(skill.examples[0])
            client = await wire.open_client(card, ClientConfig(httpx_client=http, streaming=False))
            answer = await wire.ask(client, wire.structured(request), uuid.uuid4().hex, 10)
        [move] = wire.values_of(answer)
        allowed = {a["name"]: a["payload_schema"] for a in request["turn_state"]["allowed_actions"]}
        assert move["action_type"] in allowed
        jsonschema.validate(move["payload"], allowed[move["action_type"]])
