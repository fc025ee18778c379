"""One edge, once: a request is checked by one step, when its model is built (the boundary, then its
fields), and trusted inside; in-process callers meet the same checks; each operation runs the
implementation it is bound to."""

from __future__ import annotations

from typing import Any

import pytest

from negotiation_platform.arena import Arena, requests
from negotiation_platform.arena.requests import ActionRequest, NoArguments, Request
from negotiation_platform.catalogue import CATALOGUE, checked
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.serving.operations import dispatch, run_operation
from negotiation_platform.wire import boundary, strict_json, unicode_text


@pytest.mark.anyio
async def test_one_perform_action_checks_its_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the boundary checked each of the request's 8 texts (keys too) and the arena checked the
    match id and the action type again: 10 checks of one request. Now its text is checked once, in the
    one boundary walk that building its request makes, and the arena checks none of it again."""
    house = HouseSeats(Arena())
    alice = await run_operation(house, "start_game", {"game_id": "split_100", "name": "alice"})
    await run_operation(house, "join_game", {"match_id": alice["match_id"], "name": "bob"})
    checked_texts: list[str] = []
    check = unicode_text.text_problem

    def counted(text: str) -> str | None:
        checked_texts.append(text)
        return check(text)

    walks: list[object] = []
    walk = boundary.check_request

    def counted_walk(arguments: object) -> None:
        walks.append(arguments)
        walk(arguments)

    for module in (unicode_text, boundary, strict_json):
        monkeypatch.setattr(module, "text_problem", counted)
    monkeypatch.setattr(requests, "check_request", counted_walk)
    seat = {"match_id": alice["match_id"], "token": alice["token"]}
    moved = await run_operation(house, "perform_action", {**seat, "action_type": "propose", "payload": {"mine": 60}})
    assert moved["ok"]
    assert len(checked_texts) == 1
    assert len(walks) == 1


LONE = "m" + chr(0xD800)
BAD_REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("perform_action", {"action_type": "propose", "payload": {"mine": LONE}}),
    ("perform_action", {"action_type": LONE, "payload": {}}),
    ("perform_action", {"action_type": "propose", "payload": "50"}),
    ("perform_action", {"action_type": "propose", "payload": {"mine": 2**60}}),
    ("send_public_message", {"content": "x" * 70_000}),
    ("send_private_message", {"to": "bob", "content": "psst"}),
    ("get_turn_state", {"since": -1}),
    ("get_turn_state", {"wait_seconds": float("nan")}),
]


@pytest.mark.anyio
async def test_an_in_process_call_is_refused_as_the_same_request_from_the_network() -> None:
    """The arena's plain-value methods build the operation's request, so they meet the very checks a
    network request meets, and answer the same refusal."""
    house = HouseSeats(Arena())
    alice = await run_operation(house, "start_game", {"game_id": "split_100", "name": "alice"})
    await run_operation(house, "join_game", {"match_id": alice["match_id"], "name": "bob"})
    seat = {"match_id": alice["match_id"], "token": alice["token"]}
    for name, arguments in BAD_REQUESTS:
        with pytest.raises(NegotiationError) as from_the_network:
            await run_operation(house, name, {**seat, **arguments})
        with pytest.raises(NegotiationError) as in_process:
            await getattr(house.arena, name)(**seat, **arguments)
        assert in_process.value.to_dict() == from_the_network.value.to_dict(), name
        assert in_process.value.code is ErrorCode.INVALID_ARGUMENT, name
    assert house.arena.events(alice["match_id"])[-1]["kind"] != "action"  # nothing reached the match


def test_a_request_built_in_process_is_checked_when_built() -> None:
    with pytest.raises(NegotiationError) as refused:
        ActionRequest(match_id=LONE, token="t", action_type="propose")
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT and "lone surrogate" in refused.value.message
    with pytest.raises(NegotiationError) as large:
        ActionRequest(match_id="m", token="t", action_type="propose", payload={str(i): "x" * 900 for i in range(80)})
    assert large.value.code is ErrorCode.INVALID_PAYLOAD


class Taken(Exception):
    """Raised by a recording implementation with the request it was given."""


@pytest.mark.anyio
async def test_each_operation_runs_its_own_implementation_with_its_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """An arena entry runs the arena's method for its request; each plain-value method builds that very
    request from its arguments (a method that mapped one wrongly would build another)."""
    for name, operation in CATALOGUE.items():
        if operation.request is NoArguments:
            continue
        request = checked(operation, operation.example)
        host = HouseSeats if operation.host == "house" else Arena
        typed = f"{name}_request"

        async def record(self: object, given: Request, **_: object) -> None:
            raise Taken(given)

        monkeypatch.setattr(host, typed, record)
        target = HouseSeats(Arena()) if host is HouseSeats else Arena()
        with pytest.raises(Taken) as ran:
            await operation.run(target, request)
        assert ran.value.args[0] is request, name
        with pytest.raises(Taken) as built:
            await getattr(target, name)(**request.arguments())
        assert built.value.args[0] == request, name


@pytest.mark.anyio
async def test_an_arena_served_without_house_seats_refuses_their_operation() -> None:
    """The viewer and the play page dispatch on the arena alone: `start_game` is the house seats'."""
    with pytest.raises(NegotiationError) as refused:
        await dispatch(Arena(), "start_game", {"game_id": "split_100"})
    assert refused.value.code is ErrorCode.UNKNOWN_OPERATION
    assert refused.value.message == "start_game is not served here."
