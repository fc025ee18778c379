"""One edge, once: a request from the network is checked by one step (the boundary, then its request
model) and trusted inside, and each operation runs the implementation it is bound to."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from negotiation_platform.arena import Arena
from negotiation_platform.catalogue import CATALOGUE, checked
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.serving.operations import dispatch, run_operation
from negotiation_platform.wire import boundary, strict_json, unicode_text


@pytest.mark.anyio
async def test_one_perform_action_checks_its_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the boundary checked each of the request's 8 texts (keys too) and the arena checked the
    match id and the action type again: 10 checks of one request."""
    house = HouseSeats(Arena())
    alice = await run_operation(house, "start_game", {"game_id": "split_100", "name": "alice"})
    await run_operation(house, "join_game", {"match_id": alice["match_id"], "name": "bob"})
    checked_texts: list[str] = []
    check = unicode_text.text_problem

    def counted(text: str) -> str | None:
        checked_texts.append(text)
        return check(text)

    for module in (unicode_text, boundary, strict_json):
        monkeypatch.setattr(module, "text_problem", counted)
    seat = {"match_id": alice["match_id"], "token": alice["token"]}
    moved = await run_operation(house, "perform_action", {**seat, "action_type": "propose", "payload": {"mine": 60}})
    assert moved["ok"]
    assert len(checked_texts) == 1


@pytest.mark.anyio
async def test_text_not_checked_at_the_edge_is_still_checked_while_a_request_runs() -> None:
    """Trust is in the very values the edge checked: other text (an equal string included) is checked."""
    lone = "m" + chr(0xD800)
    with unicode_text.checked_at_the_edge([lone]):
        assert unicode_text.unicode_text("match_id", lone) is lone
        with pytest.raises(NegotiationError) as refused:
            unicode_text.unicode_text("match_id", "".join(["m", chr(0xD800)]))
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    with pytest.raises(NegotiationError):
        unicode_text.unicode_text("match_id", lone)


class Recorder:
    """Stands for the arena and the house seats: records the call an operation makes (found by name here
    only to record it)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Any:
        async def call(*args: Any) -> dict[str, Any]:
            self.calls.append((name, args))
            return {}

        return call


@pytest.mark.anyio
async def test_each_operation_runs_its_own_implementation_with_its_request() -> None:
    for name, operation in CATALOGUE.items():
        request = checked(operation, operation.example)
        recorder = Recorder()
        await operation.run(recorder, request)
        [(called, args)] = recorder.calls
        signature = inspect.signature(getattr(HouseSeats if operation.host == "house" else Arena, name))
        made, before = signature.bind(None, *args), signature.bind(None, **request.arguments())
        made.apply_defaults()
        before.apply_defaults()  # what the implementation got before: the arguments given, its defaults
        assert called == name
        assert made.arguments == before.arguments, name


@pytest.mark.anyio
async def test_an_arena_served_without_house_seats_refuses_their_operation() -> None:
    """The viewer and the play page dispatch on the arena alone: `start_game` is the house seats'."""
    with pytest.raises(NegotiationError) as refused:
        await dispatch(Arena(), "start_game", {"game_id": "split_100"})
    assert refused.value.code is ErrorCode.UNKNOWN_OPERATION
    assert refused.value.message == "start_game is not served here."
