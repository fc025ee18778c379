"""The A2A arena against hostile clients and careless remote agents, over real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import uuid
from contextlib import nullcontext
from typing import Any

import httpx
import pytest
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import AgentSkill
from a2a_servers import a2a_server, in_context, served
from starlette.applications import Starlette

from negotiation_a2a import wire
from negotiation_a2a.client import RemoteA2aAgent, connect
from negotiation_platform.agents import ConcessionAgent, play_match
from negotiation_platform.arena import Arena
from negotiation_platform.errors import ErrorCode, NegotiationError
from tests.cli_servers import server_log

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class TestContextIds:
    async def test_a_chosen_or_guessed_context_id_carries_no_seat_and_the_token_always_works(
        self, shared_a2a_base: str
    ) -> None:
        with nullcontext(shared_a2a_base) as base:  # the session's server: this test reads only its match
            async with connect(base) as victim:
                chosen = victim.context_id  # the id the victim's client picked before starting
                me = await victim.start_game("split_100", name="victim", opponents=["concession"])
                issued = victim.context_id
                assert issued != chosen and len(issued) >= 32  # 24 random bytes, urlsafe
                assert (await victim.call("get_turn_state"))["agent_id"] == "victim"  # the issued context works
                for context_id in (chosen, uuid.uuid4().hex, issued[:-1] + ("A" if issued[-1] != "A" else "B")):
                    async with in_context(base, context_id) as attacker:
                        with pytest.raises(NegotiationError) as info:
                            await attacker.call("get_turn_state")
                        assert info.value.code is ErrorCode.INVALID_ARGUMENT  # no remembered match_id or token
                        with pytest.raises(NegotiationError) as info:
                            await attacker.call("perform_action", action_type="propose", payload={"mine": 99})
                        assert info.value.code is ErrorCode.INVALID_ARGUMENT
                async with in_context(base, uuid.uuid4().hex) as other:
                    state = await other.get_turn_state(me["match_id"], me["token"])  # the token works anywhere
                    assert state["agent_id"] == "victim"


class TestServing:
    async def test_a_garbage_json_rpc_body_is_logged_in_one_line(self) -> None:
        with a2a_server() as (base, proc):
            async with httpx.AsyncClient() as http:
                for body in (b"[]", b"{garbage", b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": 5}'):
                    answer = await http.post(
                        f"{base}/a2a/jsonrpc",
                        content=body,
                        headers={"content-type": "application/json", "A2A-Version": "1.0"},
                    )
                    assert "error" in answer.json()
            log = server_log(proc)
        assert "Traceback" not in log and "JSONRPCInvalidRequestException" in log

    async def test_a_taken_port_is_one_clear_line(self) -> None:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            done = subprocess.run(
                [sys.executable, "-m", "negotiation_platform.cli.main", "serve", "a2a", "--port", str(port)],
                capture_output=True,
                text=True,
                timeout=60,
            )
        assert done.returncode != 0
        assert done.stderr.strip().splitlines() == [
            f"negotiation-platform serve: cannot listen on 127.0.0.1:{port}: Address already in use"
        ]

    async def test_a_bearer_token_is_required_when_configured(self, tmp_path: Any) -> None:
        token_file = tmp_path / "token"
        token_file.write_text("s3cret\n")
        with a2a_server("--auth-token-file", str(token_file)) as (base, _):
            async with httpx.AsyncClient() as http:
                for headers in ({}, {"Authorization": "Bearer wrong"}):
                    answer = await http.get(f"{base}/.well-known/agent-card.json", headers=headers)
                    assert answer.status_code == 401 and answer.json()["error"]["code"] == "forbidden"
            async with (
                httpx.AsyncClient(headers={"Authorization": "Bearer s3cret"}) as http,
                connect(base, http=http) as api,
            ):
                assert "split_100" in {g["id"] for g in (await api.list_games())["games"]}


class Fumbling(AgentExecutor):
    """A remote agent that answers nonsense a few times before a readable move."""

    def __init__(self, fumbles: int) -> None:
        self.fumbles = fumbles
        self.seen_refusals: list[str] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        turns = [d["turn_state"] for d in wire.data_parts(context.message) if isinstance(d, dict) and "turn_state" in d]  # type: ignore[arg-type]
        if turns and turns[0].get("refusal"):
            self.seen_refusals.append(turns[0]["refusal"]["error"]["message"])
        if self.fumbles > 0:
            self.fumbles -= 1
            part = wire.text("hmm, let me think about the weather")
        else:
            part = wire.data({"action_type": "reject", "payload": {}})
        await event_queue.enqueue_event(wire.reply([part], context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def fumbling_app(executor: Fumbling, base: str) -> Starlette:
    skill = AgentSkill(id="negotiate", name="negotiate", description="fumbles", tags=["test"])
    return wire.a2a_app(executor, wire.agent_card("fumbling agent", "test", base, [skill]))


class TestRemoteSeatRetries:
    async def test_an_unreadable_answer_is_refused_and_the_agent_may_try_again(self) -> None:
        executor = Fumbling(fumbles=2)
        async with served(lambda base: fumbling_app(executor, base)) as base:
            remote = RemoteA2aAgent(target=base, name="remote", reply_seconds=5)
            result = await asyncio.wait_for(
                play_match(Arena(), "company_car", [remote, ConcessionAgent(name="local")], seed=6), timeout=60
            )
        assert executor.seen_refusals[:2] == ["No move could be read from your reply."] * 2
        first = next(e for e in result["events"] if e["actor"] == "remote" and e["kind"] == "action")
        assert first["data"] == {"action_type": "reject", "payload": {}}  # its own move, no default
        assert not [e for e in result["events"] if e["kind"] == "timeout"]

    async def test_an_agent_that_never_answers_readably_forfeits_with_the_true_reason(self) -> None:
        executor = Fumbling(fumbles=10_000)
        async with served(lambda base: fumbling_app(executor, base)) as base:
            remote = RemoteA2aAgent(target=base, name="remote", reply_seconds=5)
            result = await asyncio.wait_for(
                play_match(Arena(), "company_car", [remote, ConcessionAgent(name="local")], seed=6), timeout=60
            )
        reasons = [e["data"]["reason"] for e in result["events"] if e["kind"] == "timeout"]
        assert reasons and all(r.startswith("malformed reply: No move could be read") for r in reasons)
        assert all(r.endswith("(3 tries)") for r in reasons)
