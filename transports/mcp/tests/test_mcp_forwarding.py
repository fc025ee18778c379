"""Two `serve mcp` processes on one PostgreSQL with a peer secret: a call that changes a match the
other process holds is forwarded to it and answered, so a plain round-robin balancer works; the
peer route refuses whatever is not signed with the secret, and a call is forwarded only to the
URL the store's lease names."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from mcp import Client
from mcp_servers import SERVE_MCP, free_port, start_mcp_server

from negotiation_mcp.client import McpArena
from negotiation_platform.agents import ConcessionAgent, RandomAgent, play_match
from negotiation_platform.arena.forwarding import PEER_PATH, SIGNATURE_HEADER, TIME_HEADER, signature
from negotiation_platform.arena.limits import Caller
from negotiation_platform.arena.peer_answer import MAX_ANSWER_BYTES
from negotiation_platform.catalogue.remote import RemoteArena
from negotiation_platform.errors import ErrorCode, NegotiationError
from tests.cli_servers import server_log
from tests.http_probe import oversized_post
from tests.pg_cluster import fresh_database

pytestmark = pytest.mark.anyio
SECRET = b"a secret the two processes share"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def database(postgres_cluster_url: str) -> str:
    return fresh_database(postgres_cluster_url, f"forwarding_{time.time_ns()}")


@pytest.fixture(scope="module")
def ports(database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[int]]:
    """Two processes on `database`, each named by the URL the other reaches it at, sharing SECRET."""
    secret = tmp_path_factory.mktemp("peers") / "secret"
    secret.write_bytes(SECRET + b"\n")
    ports = [free_port(), free_port()]
    flags = ("--store", database, "--peer-secret-file", str(secret), "--reproducible")
    with ThreadPoolExecutor() as starting:  # both at once: a start is mostly waiting for imports
        servers = list(
            starting.map(lambda p: start_mcp_server(p, *flags, "--instance", f"http://127.0.0.1:{p}/mcp"), ports)
        )
    try:
        yield ports
    finally:
        for server in servers:
            server_log(server)


@pytest.fixture
async def arenas(ports: list[int]) -> AsyncIterator[list[McpArena]]:
    async with AsyncExitStack() as stack:
        yield [McpArena(await stack.enter_async_context(Client(f"http://127.0.0.1:{p}/mcp"))) for p in ports]


class RoundRobin(RemoteArena):
    """A plain round-robin balancer in front of the processes: each call goes to the next one."""

    def __init__(self, arenas: list[McpArena]) -> None:
        self.arenas = arenas
        self.sent: list[tuple[str, int]] = []

    async def call(self, operation: str, **arguments: Any) -> dict[str, Any]:
        index = len(self.sent) % len(self.arenas)
        self.sent.append((operation, index))
        return await self.arenas[index].call(operation, **arguments)


def players(seed: int) -> list[ConcessionAgent | RandomAgent]:
    return [RandomAgent(seed=seed, name="ann"), ConcessionAgent(name="bob")]


def outcome(result: dict[str, Any]) -> tuple[Any, ...]:
    """What a match did, whatever its id."""
    events = [(e["kind"], e["actor"], e["data"], e["visible_to"]) for e in result["events"]]
    log = json.dumps(events).replace(result["match_id"], "MATCH_ID")
    return result["status"], result["agreement"], result["terms"], result["payoffs"], log


async def test_a_round_robin_balancer_plays_a_whole_match_as_one_process_would(
    arenas: list[McpArena], database: str
) -> None:
    one, _ = arenas
    alone = await play_match(one, "company_car", players(7), seed=7)
    balanced = RoundRobin(arenas)
    spread = await play_match(balanced, "company_car", players(7), seed=7)
    assert outcome(spread) == outcome(alone) and spread["status"] == "finished"
    assert balanced.sent[0] == ("start_game", 0)  # the first process holds the match; the second, sent
    assert ("join_game", 1) in balanced.sent and ("perform_action", 1) in balanced.sent  # changes, forwarded them
    with psycopg.connect(database) as db:  # the holder seated bob as the caller who asked the other process
        callers = db.execute("SELECT caller FROM seats WHERE match_id = %s", (spread["match_id"],)).fetchall()
    assert [c for (c,) in callers] == [Caller("address:127.0.0.1").key()] * 2


async def alternating(arenas: list[McpArena], seed: int) -> str:
    """A split_100 match against the house's concession agent (played by the process that starts the
    match) played to its end with every call going to the other process than the call before it; the
    match's status. Each change is sent together with a read on the other process, which rebuilds the
    match from the store while its holder writes (and its house player moves)."""
    first = seed % 2
    started = await arenas[first].start_game(
        "split_100", config={"rounds": 3}, seed=seed, name="me", opponents=["concession"]
    )
    match_id, token, cursor = started["match_id"], started["token"], 0
    turns = itertools.cycle([arenas[1 - first], arenas[first]])

    async def with_a_read(change: Awaitable[dict[str, Any]]) -> None:
        await asyncio.gather(change, next(turns).get_turn_state(match_id, token, since=cursor))

    for _ in range(100):
        state = await next(turns).get_turn_state(match_id, token, since=cursor, wait_seconds=1)
        cursor = state["cursor"]
        if state["status"] == "finished":
            return str(state["status"])
        if state["your_turn"]:
            await with_a_read(next(turns).send_public_message(match_id, token, "ninety or nothing"))
            await with_a_read(next(turns).perform_action(match_id, token, "propose", {"mine": 90}))
    raise AssertionError(f"match {match_id} did not end")


async def test_two_processes_play_matches_calls_alternating_between_them(arenas: list[McpArena]) -> None:
    """Each of 20 matches at once, its calls alternating between the two processes: none is refused
    (a process reading a match another plays rebuilds it from one snapshot of the store)."""
    ended = await asyncio.gather(*(alternating(arenas, seed) for seed in range(20)), return_exceptions=True)
    assert [repr(e) for e in ended if isinstance(e, BaseException)] == []
    assert ended == ["finished"] * 20


async def test_the_play_page_of_the_other_process_plays_a_seat(arenas: list[McpArena], ports: list[int]) -> None:
    one, _ = arenas
    started = await one.start_game("split_100", seed=3, name="me", human_seats=1)
    [human] = started["human_seats"]
    api = f"http://127.0.0.1:{ports[1]}/play/api/matches/{started['match_id']}"  # the process that does not hold it
    async with httpx.AsyncClient() as http:
        proposed = await http.post(
            f"{api}/action",
            headers={"X-Seat-Token": started["token"]},
            json={"action_type": "propose", "payload": {"mine": 70}},
        )
        assert proposed.status_code == 200 and proposed.json()["acting"] == [human["agent_id"]], proposed.text
        said = await http.post(f"{api}/message", headers={"X-Seat-Token": human["token"]}, json={"content": "no"})
        assert said.status_code == 200, said.text
    state = await one.get_turn_state(started["match_id"], human["token"])
    assert [(e["actor"], e["kind"]) for e in state["events"][-2:]] == [("me", "action"), ("human", "message")]


def post(port: int, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{PEER_PATH}", body, headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def signed(body: bytes, secret: bytes = SECRET, stamp: float | None = None) -> dict[str, str]:
    when = repr(time.time() if stamp is None else stamp)
    return {"content-type": "application/json", TIME_HEADER: when, SIGNATURE_HEADER: signature(secret, when, body)}


async def test_the_peer_route_answers_only_calls_signed_with_the_secret(
    arenas: list[McpArena], ports: list[int]
) -> None:
    one, _ = arenas
    me = await one.start_game("split_100", seed=1, name="me")
    call = {"operation": "join_game", "arguments": {"match_id": me["match_id"]}, "caller": {"address": "x"}}
    body = json.dumps(call).encode()
    forged = [
        {"content-type": "application/json"},  # no signature
        signed(body, secret=b"a guess at the secret, wrong"),
        signed(body, stamp=time.time() - 120),  # an old request
        {**signed(body), TIME_HEADER: repr(time.time() + 1)},  # the time changed after signing
    ]
    for headers in forged:
        assert post(ports[1], body, headers) == (
            401,
            {"error": {"code": "forbidden", "message": "This route takes only calls signed by a peer arena process."}},
        )
    assert (await one.get_result(me["match_id"]))["status"] == "waiting_for_players"  # nobody joined

    headers = signed(body)  # a true peer's call: answered (by the holder, never forwarded again) ...
    status, answer = post(ports[1], body, headers)
    assert status == 200 and answer["error"]["code"] == "wrong_owner"
    assert post(ports[1], body, headers)[0] == 401  # ... once: the same request sent again is refused
    status, answer = post(ports[0], body, signed(body))
    assert status == 200 and answer["result"]["agent_id"] == "player_2"

    for wrong in ({**call, "url": "http://127.0.0.1:1/"}, {**call, "operation": "start_game"}):
        bad = json.dumps(wrong).encode()  # a body names no peer, and carries only calls that change a match
        assert post(ports[0], bad, signed(bad))[1]["error"]["code"] == "invalid_argument"
    for declared in (True, False):  # a body too large is refused as it streams in, signed or not
        await refused_as_too_large(f"http://127.0.0.1:{ports[0]}{PEER_PATH}", declared=declared)
    status, answer = post(ports[0], body, signed(body))  # and the route goes on answering
    assert status == 200 and answer["error"]["code"] == "match_full"


async def refused_as_too_large(url: str, *, declared: bool) -> None:
    """A POST of a body over the limit to `url` is refused before the body ends: answered 413, or, where
    the server closed the connection with the body unread, reset (the kernel then resets it, and the
    reset may drop the 413 before it is read). The body never ends (see `oversized_post`), so an
    answer or a reset both mean it was refused, never run."""
    try:
        status, answer, _ = await oversized_post(url, declared=declared)
    except ConnectionResetError:
        return
    assert status == 413 and answer["error"]["details"]["limit"] == "max_request_bytes"


class Trap(BaseHTTPRequestHandler):
    """A listener the store's lease is pointed at: it keeps what it is sent and refuses it."""

    received: list[tuple[str, dict[str, str], bytes]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        Trap.received.append((self.path, dict(self.headers.items()), body))
        answer = json.dumps({"error": {"code": "not_your_turn", "message": "the trap"}}).encode()
        self.send_response(200)
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        """Quiet."""


async def test_a_call_is_forwarded_only_to_the_url_the_lease_names(
    arenas: list[McpArena], database: str, tmp_path: Path
) -> None:
    one, two = arenas
    me = await one.start_game("split_100", seed=2, name="me", opponents=["concession"])
    trap = ThreadingHTTPServer(("127.0.0.1", 0), Trap)
    threading.Thread(target=trap.serve_forever, daemon=True).start()
    try:
        for owner in (f"http://127.0.0.1:{trap.server_port}/anything", "arena-3", "file:///etc/passwd"):
            with psycopg.connect(database) as db:
                db.execute("UPDATE leases SET owner = %s WHERE match_id = %s", (owner, me["match_id"]))
            with pytest.raises(NegotiationError) as refused:
                await two.perform_action(me["match_id"], me["token"], "propose", {"mine": 60})
            if owner.startswith("http:"):  # the lease's URL was called, at its peer route, signed
                assert (refused.value.code, refused.value.message) == (ErrorCode.NOT_YOUR_TURN, "the trap")
                path, headers, body = Trap.received.pop()
                assert path == PEER_PATH and headers[SIGNATURE_HEADER] == signature(SECRET, headers[TIME_HEADER], body)
                assert json.loads(body)["arguments"]["token"] == me["token"]
            else:  # no URL: nothing is forwarded, the caller learns who holds the match
                assert refused.value.code is ErrorCode.WRONG_OWNER and refused.value.details == {"owner": owner}
        assert Trap.received == []
    finally:
        trap.shutdown()


class Hostile(BaseHTTPRequestHandler):
    """A peer that answers forwarded calls with `answer`: (status, headers, body) as sent on the wire."""

    answer: tuple[int, dict[str, str], bytes] = (200, {}, b"")

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        status, headers, body = Hostile.answer
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()  # no content-length unless `headers` has one: the body ends when the peer closes
        with contextlib.suppress(OSError):  # the forwarding process may stop reading an answer too large
            self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        """Quiet."""


def refusal(code: str, message: Any, /, **details: Any) -> bytes:
    return json.dumps({"error": {"code": code, "message": message, "details": details}}).encode()


HUGE = 17 * 1024 * 1024
HOSTILE = {  # what the peer answers -> what the forwarding process says was wrong with it
    "garbage": ((200, {}, b"{not json at all"), "Invalid JSON"),
    "not an object": ((200, {}, b"[1, 2]"), "Input should be an object"),
    "a wrongly typed refusal": ((200, {}, json.dumps({"error": {"code": 7, "message": ["x"]}}).encode()), "error.code"),
    "an unknown code": ((200, {}, refusal("you_lose", "m")), "error.code: Input should be"),
    "a result and a refusal": ((200, {}, b'{"result": {}, "error": {"code": "forbidden", "message": "m"}}'), "both"),
    "a wrongly typed result": ((200, {}, b'{"result": {"ok": "yes", "events": 1}}'), "result.ok"),  # not ActionOutcome
    "an HTTP error": ((500, {"content-type": "text/html"}, b"<h1>oops</h1>"), "HTTP status 500"),
    "a huge body": ((200, {}, refusal("not_your_turn", "x" * HUGE)), f"over {MAX_ANSWER_BYTES} bytes"),
    "a huge declared body": ((200, {"content-length": str(10**12)}, b"{}"), f"of {10**12} bytes, over"),
}


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    """The URL of a `Hostile` peer, for as long as the module's tests run."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/mcp"
    finally:
        server.shutdown()


@pytest.mark.parametrize("case", list(HOSTILE))
async def test_a_hostile_peers_answer_becomes_a_structured_refusal(
    arenas: list[McpArena], database: str, hostile: str, case: str
) -> None:
    one, two = arenas
    me = await one.start_game("split_100", seed=2, name="me", opponents=["concession"])
    with psycopg.connect(database) as db:  # the store names the hostile peer as the match's holder
        db.execute("UPDATE leases SET owner = %s WHERE match_id = %s", (hostile, me["match_id"]))
    Hostile.answer, problem = HOSTILE[case]
    with pytest.raises(NegotiationError) as refused:
        await two.perform_action(me["match_id"], me["token"], "propose", {"mine": 60})
    assert refused.value.code is ErrorCode.WRONG_OWNER and refused.value.details == {"owner": hostile}
    assert f"({hostile}), whose answer was not an arena answer (" in refused.value.message
    assert problem in refused.value.message and len(refused.value.message) < 1000


async def test_a_peers_details_never_replace_its_code_or_message(
    arenas: list[McpArena], database: str, hostile: str
) -> None:
    one, two = arenas
    me = await one.start_game("split_100", seed=2, name="me", opponents=["concession"])
    with psycopg.connect(database) as db:
        db.execute("UPDATE leases SET owner = %s WHERE match_id = %s", (hostile, me["match_id"]))
    Hostile.answer = (200, {}, refusal("not_your_turn", "the peer", code="match_over", message="overridden"))
    with pytest.raises(NegotiationError) as refused:  # the peer's refusal, relayed as it said it
        await two.perform_action(me["match_id"], me["token"], "propose", {"mine": 60})
    assert (refused.value.code, refused.value.message) == (ErrorCode.NOT_YOUR_TURN, "the peer")
    assert refused.value.details == {"code": "match_over", "message": "overridden"}


def test_a_peer_secret_needs_the_url_peers_reach_the_process_at(tmp_path: Path) -> None:
    (tmp_path / "secret").write_bytes(SECRET)
    flags = ("--instance", "arena-1", "--peer-secret-file", str(tmp_path / "secret"), "--port", str(free_port()))
    done = subprocess.run(
        [sys.executable, "-m", "negotiation_platform.cli.main", *SERVE_MCP, *flags],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (
        1,
        "negotiation-platform serve: --peer-secret-file needs --instance URL: the http(s) URL the other processes "
        "reach this one at\n",
    )
