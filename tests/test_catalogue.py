"""One catalogue: each operation declared once, and everything else made from (or checked against) it.

Also the boundary's limits one by one, and answers a JavaScript client can hold.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from negotiation_mcp.server import build_server
from negotiation_platform.arena import Arena, ArenaApi
from negotiation_platform.arena.requests import MatchRequest
from negotiation_platform.catalogue import CATALOGUE
from negotiation_platform.catalogue.remote import RemoteArena
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.serving.operations import dispatch, run_operation
from negotiation_platform.web.viewer.source import VIEWER_READS
from negotiation_platform.wire.boundary import (
    MAX_DEPTH,
    MAX_REQUEST_CHARS,
    MAX_SAFE_INTEGER,
    MAX_TEXT_CHARS,
    check_request,
    safe_answer,
)

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [
    p
    for top in ("negotiation_platform", "transports")  # plugins hold games, which declare no operation
    for p in sorted((ROOT / top).rglob("*.py"))
    if "tests" not in p.relative_to(ROOT).parts
]
ENTRIES = Path("negotiation_platform/catalogue/entries.py")
ARENA = Path("negotiation_platform/arena/arena.py")
HOSTS = {"arena": ARENA, "house": Path("negotiation_platform/serving/house_seats.py")}
"""Where each entry's implementation is (`Operation.host`)."""
TYPED_FACE = Path("negotiation_platform/arena/protocol.py")
"""`ArenaApi`, for type checkers; checked against the catalogue below."""
SAME_NAME_ELSEWHERE = {
    ("list_matches", Path("negotiation_platform/store/sql.py")),  # the store's own query
    ("get_result", Path("negotiation_platform/games/base_game.py")),  # a game's GameResult
}


def declarations(name: str) -> dict[Path, int]:
    """Where `name` is declared: a function of that name, or a table entry keyed by it."""
    key = rf"(?<!== )[\"']{name}[\"']\s*:"  # a table's key, not a comparison such as `if name == "NAME":`
    pattern = re.compile(rf"\bdef {name}\b|{key}|^\s*[\"']{name}[\"'],\s*$", re.MULTILINE)
    found = {}
    for path in SOURCES:
        count = len(pattern.findall(path.read_text(encoding="utf-8")))
        if count:
            found[path.relative_to(ROOT)] = count
    return found


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_each_operation_is_declared_once_in_the_catalogue_besides_its_implementation(name: str) -> None:
    found = declarations(name)
    assert found.pop(ENTRIES, 0) == 1, "its catalogue entry"
    assert found.pop(HOSTS[CATALOGUE[name].host], 0) == 1, "its implementation"
    besides = {ARENA, TYPED_FACE} | {path for n, path in SAME_NAME_ELSEWHERE if n == name}
    # ARENA: HouseSeats.start_game seats opponents around Arena.start_game
    assert set(found) <= besides, f"{name} is declared outside its catalogue entry and implementation: {found}"


def test_the_declaration_finder_sees_declarations() -> None:
    """The counting above would pass vacuously if the pattern found nothing: it finds each kind."""
    found = declarations("perform_action")
    assert found[ENTRIES] == 1 and found[ARENA] == 1 and found[TYPED_FACE] == 1
    assert re.search(r"\bdef watch\b", (ROOT / ARENA).read_text())
    assert declarations("list_matches")[Path("negotiation_platform/store/sql.py")] == 1


REQUIRED = "(required)"


def request_fields(name: str) -> list[tuple[str, Any]]:
    fields = CATALOGUE[name].request.model_fields.items()
    return [(field, REQUIRED if info.is_required() else info.get_default()) for field, info in fields]


def parameters(method: Any) -> list[tuple[str, Any]]:
    signature = inspect.signature(method)
    return [
        (p.name, REQUIRED if p.default is inspect.Parameter.empty else p.default)
        for p in signature.parameters.values()
        if p.name != "self" and p.kind is p.POSITIONAL_OR_KEYWORD
    ]


def test_the_typed_face_arena_api_agrees_with_the_catalogue() -> None:
    methods = [name for name, _ in inspect.getmembers(ArenaApi, inspect.isfunction) if not name.startswith("_")]
    assert methods and set(methods) <= set(CATALOGUE)
    for name in methods:
        face = parameters(getattr(ArenaApi, name))
        assert face == request_fields(name)[: len(face)], name  # same names, order and defaults


def test_remote_arena_has_a_method_per_operation_taking_its_request() -> None:
    for name in CATALOGUE:
        assert parameters(getattr(RemoteArena, name)) == request_fields(name), name
        assert getattr(RemoteArena, name).__doc__ == CATALOGUE[name].description


def test_each_implementation_takes_its_requests_arguments() -> None:
    for name, operation in CATALOGUE.items():
        implementation = getattr(HouseSeats if operation.host == "house" else Arena, name)
        taken = set(inspect.signature(implementation).parameters)
        # list_matches' created_after is the implementation's `since`
        assert set(operation.request.model_fields) - {"created_after"} <= taken, name


class Sent(RemoteArena):
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def call(self, operation: str, **arguments: Any) -> dict[str, Any]:
        self.sent.append((operation, arguments))
        return {}


@pytest.mark.anyio
async def test_a_remote_method_sends_the_arguments_given() -> None:
    remote = Sent()
    await remote.get_turn_state("m", "t", since=3, include_prompt=False)
    await remote.perform_action("m", "t", "propose", {"mine": 60})
    assert remote.sent == [
        ("get_turn_state", {"match_id": "m", "token": "t", "since": 3, "include_prompt": False}),
        ("perform_action", {"match_id": "m", "token": "t", "action_type": "propose", "payload": {"mine": 60}}),
    ]
    with pytest.raises(TypeError):
        await remote.get_turn_state("m")  # its token is required


def test_every_example_validates_against_its_request_model_and_nothing_else_does() -> None:
    for name, operation in CATALOGUE.items():
        operation.request.model_validate(operation.example)
        with pytest.raises(ValueError):
            operation.request.model_validate({**operation.example, "surprise": 1})
        assert json.loads(json.dumps(operation.arguments_schema))["additionalProperties"] is False, name


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"game_id": "split_100", "seed": "5"}, "seed"),
        ({"game_id": "split_100", "seed": True}, "seed"),
        ({"game_id": "split_100", "seed": 5.0}, "seed"),
        ({"game_id": "split_100", "human_seats": -1}, "human_seats"),
        ({"game_id": "split_100", "opponents": "concession"}, "opponents"),
    ],
)
async def test_requests_are_strict(arguments: dict[str, Any], field: str) -> None:
    arena = Arena()
    with pytest.raises(NegotiationError) as info:
        await run_operation(HouseSeats(arena), "start_game", arguments)
    assert info.value.code is ErrorCode.INVALID_ARGUMENT
    assert [p["field"] for p in info.value.details["problems"]] == [field]
    assert (await arena.list_matches())["matches"] == []


@pytest.mark.anyio
async def test_list_matches_filters_by_created_after_and_still_reads_since() -> None:
    arena = Arena()
    house = HouseSeats(arena)
    await arena.start_game("split_100")
    for arguments, listed in [
        ({"created_after": "2000-01-01"}, 1),
        ({"created_after": "2999-01-01"}, 0),
        ({"since": "2999-01-01"}, 0),  # the deprecated alias
    ]:
        assert len((await run_operation(house, "list_matches", arguments))["matches"]) == listed
    with pytest.raises(NegotiationError) as info:
        await run_operation(house, "list_matches", {"created_after": "2000-01-01", "since": "2000-01-01"})
    assert info.value.code is ErrorCode.INVALID_ARGUMENT


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("request_", "limit"),
    [
        ({"a": nested(MAX_DEPTH)}, "max_depth"),
        ({"a": nested(5_000)}, "max_depth"),  # no recursion
        ({"a": "x" * (MAX_TEXT_CHARS + 1)}, "max_text_chars"),
        ({"x" * (MAX_TEXT_CHARS + 1): 1}, "max_text_chars"),
        ({"a": ["y" * 1000] * (MAX_REQUEST_CHARS // 1000)}, "max_request_chars"),
        ({"a": [1, MAX_SAFE_INTEGER + 1]}, "integer_range"),
        ({"a": -MAX_SAFE_INTEGER - 1}, "integer_range"),
        ({"a": math.nan}, "finite_numbers"),
        ({"a": -math.inf}, "finite_numbers"),
    ],
)
def test_the_boundary_refuses_each_limit(request_: dict[str, Any], limit: str) -> None:
    with pytest.raises(NegotiationError) as info:
        check_request(request_)
    assert info.value.code is ErrorCode.INVALID_ARGUMENT and info.value.details["limit"] == limit


def test_the_boundary_accepts_what_is_within_every_limit() -> None:
    check_request({"a": nested(MAX_DEPTH - 2), "b": "x" * MAX_TEXT_CHARS, "c": [MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER]})
    with pytest.raises(NegotiationError) as info:
        check_request({"name": "\ud800"})
    assert "lone surrogate" in info.value.message and info.value.details["field"] == "name"


def test_answers_carry_integers_javascript_holds_or_strings() -> None:
    answer = {"seed": MAX_SAFE_INTEGER, "view": {"big": [2**64, -(2**60)], "ok": True}}
    assert safe_answer(answer) == {"seed": MAX_SAFE_INTEGER, "view": {"big": [str(2**64), str(-(2**60))], "ok": True}}
    small = {"cursor": 3, "flag": True}
    assert safe_answer(small) is small  # nothing to rewrite: the answer itself, not a copy
    with pytest.raises(NegotiationError):
        safe_answer({"x": math.inf})


@pytest.mark.anyio
async def test_an_mcp_client_reads_a_big_integer_of_an_answer_as_its_exact_string(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    arena = Arena()
    started = await arena.start_game("split_100", name="me")
    real = Arena.get_result_request

    async def with_a_big_number(self: Arena, request: MatchRequest) -> dict[str, Any]:
        return {**await real(self, request), "game_total": 2**63 + 1}

    monkeypatch.setattr(Arena, "get_result_request", with_a_big_number)
    async with Client(build_server(arena)) as client:
        result = await client.call_tool("get_result", {"match_id": started["match_id"]})
    assert not result.is_error
    assert result.structured_content is not None and result.structured_content["game_total"] == str(2**63 + 1)


@pytest.mark.anyio
async def test_the_viewer_reads_catalogue_operations_through_the_boundary() -> None:
    assert all(name in CATALOGUE and callable(getattr(Arena, name)) for name in VIEWER_READS)
    arena = Arena()
    with pytest.raises(NegotiationError) as info:
        await dispatch(arena, "watch", {"match_id": "m", "since": MAX_SAFE_INTEGER + 1})
    assert info.value.details["limit"] == "integer_range"


@pytest.mark.anyio
async def test_every_answer_is_what_its_answer_model_declares() -> None:
    """What the MCP tools' output schemas promise (the TypeScript client checks every answer against them)."""
    house = HouseSeats(Arena())
    answers: dict[str, dict[str, Any]] = {}

    async def run(operation: str, **arguments: Any) -> dict[str, Any]:
        answers[operation] = await run_operation(house, operation, arguments)
        return answers[operation]

    await run("list_games")
    await run("get_game_rules", game_id="split_100")
    me = await run("start_game", game_id="split_100", seed=4, name="me")
    await run("join_game", match_id=me["match_id"], name="you")
    seat = {"match_id": me["match_id"], "token": me["token"]}
    await run("send_public_message", **seat, content="hello")
    await run("perform_action", **seat, action_type="propose", payload={"mine": 60})
    await run("get_turn_state", **seat, include_prompt=False)
    await run("watch", match_id=me["match_id"], since=0)
    await run("leave_game", **seat)
    await run("list_matches", status="running")
    await run("get_result", match_id=me["match_id"])
    other = await run("start_game", game_id="auction", seed=4, name="me")
    joined = [(await run("join_game", match_id=other["match_id"], name=n))["agent_id"] for n in ("you", "them")]
    await run("send_private_message", match_id=other["match_id"], token=other["token"], to=joined, content="psst")
    assert set(answers) == set(CATALOGUE)
    for name, answer in answers.items():
        CATALOGUE[name].answer.model_validate(answer, strict=True)
    assert answers["list_matches"]["matches"][0]["seats"] == {"filled": 2, "total": 2}
