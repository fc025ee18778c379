"""Payloads and configs are strict JSON: no string or bool read as a number, no non-finite numbers,
no nesting deep enough to exhaust the interpreter's recursion (issue 11, defects 8 and 9)."""

from __future__ import annotations

import asyncio
import json
import math
import random
from typing import Any

import pytest

from negotiation_platform.arena import Arena
from negotiation_platform.arena.arena import MAX_ARGUMENT_CHARS
from negotiation_platform.engine import Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games import Split100Game
from negotiation_platform.wire.strict_json import MAX_DEPTH, MAX_INT_BITS, plain_json_chars

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"x": value}
    return value


async def split_match() -> tuple[Arena, str, str]:
    arena = Arena()
    a = await arena.start_game("split_100", seed=3, name="alice")
    await arena.join_game(a["match_id"], name="bob")
    return arena, a["match_id"], a["token"]


async def refused_payload(
    arena: Arena, match_id: str, token: str, action: str, payload: Any, code: ErrorCode = ErrorCode.INVALID_PAYLOAD
) -> NegotiationError:
    before = arena.events(match_id)
    with pytest.raises(NegotiationError) as info:
        await arena.perform_action(match_id, token, action, payload)
    assert info.value.code is code, info.value
    assert arena.events(match_id) == before  # a refusal changes nothing
    return info.value


BOUNDARY = ErrorCode.INVALID_ARGUMENT
"""What the request refuses before the game reads its payload or config (the boundary's limits), for
every caller of the operation, in process as over the network."""


@pytest.mark.parametrize(
    ("payload", "says", "request_says"),
    [
        ({"mine": "50"}, "valid integer", None),
        ({"mine": True}, "valid integer", None),
        ({"mine": 50.5}, "valid integer", None),
        ({"mine": None}, "valid integer", None),
        ({"mine": math.inf}, "finite", "NaN or infinite"),
        ({"mine": math.nan}, "finite", "NaN or infinite"),
        ({"mine": 50, "extra": nested(3_000)}, f"deeper than {MAX_DEPTH}", f"deeper than {MAX_DEPTH}"),
        (nested(3_000), f"deeper than {MAX_DEPTH}", f"deeper than {MAX_DEPTH}"),
        ({"mine": [50]}, "valid integer", None),
        ({"mine": 10**5_000}, f"larger than {MAX_INT_BITS} bits", "integer beyond"),  # too long for json.dumps
        ({"mine": 50, "note": [-(2**2_000)]}, f"larger than {MAX_INT_BITS} bits", "integer beyond"),
    ],
)
async def test_payloads_are_not_coerced(payload: Any, says: str, request_says: str | None) -> None:
    """The game's model refuses what the request lets through; a seat of this process (`LocalSeat`,
    no request) meets the same strict JSON checks where its payload comes in."""
    arena, match_id, token = await split_match()
    if request_says is None:
        error = await refused_payload(arena, match_id, token, "propose", payload)
        assert says in error.message
        return
    error = await refused_payload(arena, match_id, token, "propose", payload, BOUNDARY)
    assert request_says in error.message
    seat = await arena.seat_for(match_id, token)
    with pytest.raises(NegotiationError) as info:
        await seat.act("propose", payload)
    assert info.value.code is ErrorCode.INVALID_PAYLOAD and says in info.value.message, info.value


@pytest.mark.parametrize("mine", [50, 50.0])
async def test_a_whole_number_is_a_number_however_written(mine: float) -> None:
    arena, match_id, token = await split_match()
    await arena.perform_action(match_id, token, "propose", {"mine": mine})
    proposed = [e for e in arena.events(match_id) if e["kind"] == "action"]
    assert proposed[-1]["data"]["payload"] == {"mine": 50}


async def test_an_integer_fits_a_float_field_but_infinity_does_not() -> None:
    arena = Arena()
    a = await arena.start_game("resource_allocation", seed=1)
    await arena.join_game(a["match_id"])
    state = await arena.get_turn_state(a["match_id"], a["token"])
    token = a["token"] if state["your_turn"] else None
    assert token is not None
    await refused_payload(arena, a["match_id"], token, "propose", {"gpu_hours": math.inf, "cpu_hours": 10}, BOUNDARY)
    await refused_payload(arena, a["match_id"], token, "propose", {"gpu_hours": "40", "cpu_hours": 10})
    await arena.perform_action(a["match_id"], token, "propose", {"gpu_hours": 40, "cpu_hours": 40})


def test_the_engine_and_is_valid_action_are_as_strict() -> None:
    match = Match(Split100Game, ["a", "b"], seed=1)
    for payload in ({"mine": "50"}, {"mine": True}, nested(3_000)):
        with pytest.raises(NegotiationError) as info:
            match.submit(match.acting()[0], "propose", payload)
        assert info.value.code is ErrorCode.INVALID_PAYLOAD
        assert not match.game.is_valid_action(match.acting()[0], {"type": "propose", **payload})


@pytest.mark.parametrize(
    ("game_id", "config", "code", "says"),
    [
        ("split_100", {"rounds": True}, ErrorCode.INVALID_CONFIG, "valid integer"),
        ("split_100", {"rounds": "5"}, ErrorCode.INVALID_CONFIG, "valid integer"),
        ("split_100", {"discount": "0.5"}, ErrorCode.INVALID_CONFIG, "valid number"),
        ("split_100", {"seconds_per_turn": math.inf}, BOUNDARY, "NaN or infinite"),
        ("split_100", {"seconds_per_turn": math.nan}, BOUNDARY, "NaN or infinite"),
        ("company_car", {"buyer_batna": -math.inf}, BOUNDARY, "NaN or infinite"),
        ("company_car", {"batna_decay": {"buyer": math.nan}}, BOUNDARY, "NaN or infinite"),
        ("auction", {"pricing": 1}, ErrorCode.INVALID_CONFIG, "first"),
        ("split_100", {"total": nested(3_000)}, BOUNDARY, f"deeper than {MAX_DEPTH}"),
    ],
)
async def test_configs_are_not_coerced(game_id: str, config: dict[str, Any], code: ErrorCode, says: str) -> None:
    arena = Arena()
    with pytest.raises(NegotiationError) as info:
        await arena.start_game(game_id, config=config)
    assert info.value.code is code and says in info.value.message, info.value
    assert (await arena.list_matches())["matches"] == []


async def test_legitimate_json_configs_still_parse() -> None:
    arena = Arena()
    rules = await arena.get_game_rules("split_100", {"discount": 1, "seconds_per_turn": 30, "rounds": 4.0})
    assert rules["spec"]["rounds"] == 4
    issues = {"x": {"options": ["a", "b"], "points": {"IT": [1, 2], "Marketing": [2, 1]}}}
    config = {"issues": issues, "weights": {"IT": {"x": 1}, "Marketing": {"x": 1}}}
    await arena.start_game("integrative_negotiation", config=config)


@pytest.mark.parametrize("wait_seconds", [math.nan, math.inf, -1, True, "5"])
async def test_wait_seconds_must_be_finite(wait_seconds: Any) -> None:
    arena, match_id, token = await split_match()
    with pytest.raises(NegotiationError) as info:
        await asyncio.wait_for(arena.get_turn_state(match_id, token, wait_seconds=wait_seconds), timeout=5)
    assert info.value.code is ErrorCode.INVALID_ARGUMENT


def test_the_size_bound_of_a_plain_payload_is_never_below_its_json_length() -> None:
    """`perform_action` skips serialising a payload whose bound is within the limit, so the bound must
    hold for every character (escaped, or a surrogate pair) and every integer it accepts."""
    rng = random.Random(7)
    characters = ["a", "é", "\U0001f600", '"', "\\", "\n", "\x00", "\u2028"]

    def text() -> str:
        return "".join(rng.choice(characters) for _ in range(rng.randint(0, 6)))

    for _ in range(5_000):
        values: list[Any] = [
            None,
            True,
            False,
            text(),
            rng.randint(-(2**64) + 1, 2**64 - 1),
            -(2**63),
            rng.randint(-9, 9),
        ]
        payload = {text(): rng.choice(values) for _ in range(rng.randint(0, 4))}
        chars = plain_json_chars(payload)
        assert chars is not None and chars >= len(json.dumps(payload)), payload
    assert plain_json_chars({"mine": 2**64}) is None  # measured: such integers can be too long to write
    assert plain_json_chars({"mine": 1.5}) is None and plain_json_chars({"x": {"y": 1}}) is None


async def test_a_plain_payload_beyond_the_limit_is_still_refused() -> None:
    arena, match_id, token = await split_match()
    error = await refused_payload(arena, match_id, token, "propose", {"mine": 50, "note": "x" * MAX_ARGUMENT_CHARS})
    assert "larger than" in error.message


async def test_an_in_process_seats_payload_beyond_the_limit_is_refused_measured_or_serialised() -> None:
    arena, match_id, token = await split_match()
    seat = await arena.seat_for(match_id, token)
    before = arena.events(match_id)
    for payload in ({"mine": 50, "note": "x" * MAX_ARGUMENT_CHARS}, {"mine": 50, "note": ["x" * MAX_ARGUMENT_CHARS]}):
        with pytest.raises(NegotiationError) as info:
            await seat.act("propose", payload)
        assert info.value.code is ErrorCode.INVALID_PAYLOAD and "larger than" in info.value.message
    assert arena.events(match_id) == before
    assert plain_json_chars({1: "a"}) is None and plain_json_chars(["a"]) is None  # not flat plain data: measured
    assert (await seat.act("propose", {"mine": 50})).status == "running"
