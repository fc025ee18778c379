"""The arena under a served policy, driven through the operations table as transports drive it.

The property test lets several callers send random, often malformed, operations at one arena
and checks what must always hold: a refusal changes nothing, no seat sees another seat's secrets
(tokens, private messages, events not addressed to it), the arena keeps answering at once, and
every match ends once its players are gone.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from negotiation_platform.arena import Arena
from negotiation_platform.arena.limits import Caller
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.serving.operations import OPERATIONS, run_operation

CALLERS = [Caller("address:a"), Caller("address:b"), Caller("address:c")]
GAMES = ["split_100", "deal_or_no_deal", "integrative_negotiation", "auction"]
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


TURN_TIMEOUT = 60.0


class LeapingClock:
    """The arena's clock: real time until `leap()`; from then on each reading is a turn clock later
    than the one before, so every seat due to act runs out of time at once (the arena's own turn
    clocks, played out without waiting for them)."""

    def __init__(self) -> None:
        self.leaping = False
        self.leapt = 0.0

    def __call__(self) -> float:
        if self.leaping:
            self.leapt += TURN_TIMEOUT
        return time.monotonic() + self.leapt

    def leap(self) -> None:
        self.leaping = True


def served_arena(clock: Callable[[], float] = time.monotonic) -> tuple[Arena, HouseSeats]:
    policy = ArenaPolicy.served(
        turn_timeout=TURN_TIMEOUT, max_live_matches=6, max_live_per_caller=3, max_waiting_per_caller=2, finished_ttl=60
    )
    arena = Arena(policy=policy, clock=clock)
    return arena, HouseSeats(arena)


def maybe(draw: st.DrawFn, good: st.SearchStrategy[Any]) -> Any:
    """Mostly a sensible value, sometimes junk."""
    return draw(st.one_of(good, JUNK) if draw(st.integers(0, 4)) == 0 else good)


@st.composite
def steps(draw: st.DrawFn) -> list[tuple[int, str, dict[str, Any], int]]:
    """(caller, operation, arguments, seat pick): arguments are mostly right, sometimes junk."""
    often = ["start_game", "start_game", "join_game", "join_game", "perform_action", "perform_action"]
    names = st.sampled_from([*often, *OPERATIONS, "fly_away"])
    out = []
    for _ in range(draw(st.integers(3, 16))):
        caller = draw(st.integers(0, len(CALLERS) - 1))
        name = draw(names)
        args: dict[str, Any] = {}
        if name in ("start_game", "get_game_rules"):
            args["game_id"] = maybe(draw, st.sampled_from(GAMES))
        if name == "start_game":
            if draw(st.booleans()):
                args["opponents"] = maybe(
                    draw, st.sampled_from([["concession"], ["random"], ["a2a:http://127.0.0.1:9"]])
                )
            if draw(st.booleans()):
                args["seed"] = maybe(draw, st.integers(0, 100))
        if name == "perform_action":
            args["action_type"] = maybe(draw, st.sampled_from(["propose", "accept", "reject", "claim", "bid", "done"]))
            args["payload"] = maybe(draw, st.sampled_from([{}, {"mine": 50}, {"amount": 10}, {"mine": "50"}]))
        if name in ("send_public_message", "send_private_message"):
            args["content"] = maybe(draw, st.just("SECRET"))
        if name == "send_private_message":
            args["to"] = maybe(draw, st.sampled_from([["player_2"], ["player_1"], ["concession"]]))
        if name == "get_turn_state" and draw(st.booleans()):
            args["wait_seconds"] = maybe(draw, st.sampled_from([0, 0.01]))
        if draw(st.integers(0, 7)) == 0:
            args[draw(st.sampled_from(["surprise", "token", "match_id", "config"]))] = draw(JUNK)
        out.append((caller, name, args, draw(st.integers(0, 9))))
    return out


async def quiet(arena: Arena) -> None:
    """Let the built-in opponents finish reacting, so a snapshot is not racing them."""
    last = -1
    for _ in range(200):
        now = sum(len(live.match.events) if live.match else len(live.seats) for live in arena.held_matches())
        if now == last:
            return
        last = now
        await asyncio.sleep(0.01)


async def snapshot(house: HouseSeats, seats: list[dict[str, str]]) -> Any:
    listed = await run_operation(house, "list_matches", {})
    states = []
    for seat in seats:
        try:
            state = await run_operation(house, "get_turn_state", {"match_id": seat["match_id"], "token": seat["token"]})
        except NegotiationError as gone:
            states.append(gone.code.value)
        else:
            states.append((state["status"], state["cursor"], state["your_turn"], state.get("acting")))
    return listed, states


def check_privacy(state: dict[str, Any], seat: dict[str, str], everyone: list[dict[str, str]]) -> None:
    text = json.dumps(state)
    for other in everyone:
        if other["token"] != seat["token"]:
            assert other["token"] not in text
    me = state["agent_id"]
    for event in state["events"]:
        assert event["visible_to"] is None or me in event["visible_to"]
        if event["kind"] == "message" and event["data"]["to"] is not None:
            assert me == event["actor"] or me in event["data"]["to"]


async def play(script: list[tuple[int, str, dict[str, Any], int]]) -> None:
    clock = LeapingClock()
    arena, house = served_arena(clock)
    seats: list[dict[str, str]] = []  # every seat any caller holds, with its caller
    for caller_index, name, arguments, pick in script:
        caller = CALLERS[caller_index]
        mine = [s for s in seats if s["caller"] == caller]
        args = dict(arguments)
        if OPERATIONS.get(name) is not None and "match_id" in OPERATIONS[name].required and "match_id" not in args:
            pool = (seats if name == "join_game" else mine or seats) or [{"match_id": "none", "token": "none"}]
            target = pool[pick % len(pool)]
            args["match_id"] = target["match_id"]
            if OPERATIONS[name].seat and "token" not in args:
                args["token"] = target["token"]
        await quiet(arena)
        before = await snapshot(house, seats)
        try:
            started = time.monotonic()
            result = await asyncio.wait_for(run_operation(house, name, args, caller=caller), 5)
        except NegotiationError as refusal:
            assert isinstance(refusal.code, ErrorCode) and refusal.message
            assert await snapshot(house, seats) == before, (name, args, refusal)
        else:
            if name in ("start_game", "join_game"):
                match_id = result.get("match_id", args.get("match_id"))
                seats.append({"match_id": match_id, "token": result["token"], "caller": caller})
            if name == "get_turn_state":
                seat = next(s for s in seats if s["token"] == args["token"])
                check_privacy(result, seat, seats)
            assert time.monotonic() - started < 2
        pinged = time.monotonic()
        await asyncio.wait_for(run_operation(house, "list_games", {}), 1)
        assert time.monotonic() - pinged < 1
    # Everyone leaves, and from now on every turn clock runs out at once: every match must end within
    # its clocks (a built-in opponent that stopped playing included), or be dropped if it never started.
    clock.leap()
    for seat in seats:
        try:
            await run_operation(house, "leave_game", {"match_id": seat["match_id"], "token": seat["token"]})
        except NegotiationError as refusal:
            assert refusal.code in (ErrorCode.MATCH_OVER, ErrorCode.FORBIDDEN, ErrorCode.UNKNOWN_MATCH)
    give_up = time.monotonic() + 10
    while any(live.status != "finished" for live in arena.held_matches()):
        assert time.monotonic() < give_up, [(m.match_id, m.status) for m in arena.held_matches()]
        await asyncio.sleep(0.02)
    for seat in seats:
        if arena.held(seat["match_id"]) is not None:
            state = await run_operation(house, "get_turn_state", {"match_id": seat["match_id"], "token": seat["token"]})
            check_privacy(state, seat, seats)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps())
def test_random_operations_from_several_callers_keep_the_invariants(script: list[Any]) -> None:
    asyncio.run(play(script))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("get_turn_state", {"match_id": "m", "token": "t", "wait_seconds": math.nan}),
        ("get_turn_state", {"match_id": "m", "token": "t", "wait_seconds": math.inf}),
        ("start_game", {"game_id": "split_100", "config": {"seconds_per_turn": math.inf}}),
    ],
)
async def test_non_finite_numbers_are_refused_before_they_reach_a_match(name: str, arguments: dict[str, Any]) -> None:
    arena, house = served_arena()
    with pytest.raises(NegotiationError) as info:
        await run_operation(house, name, arguments)
    assert info.value.code in (ErrorCode.INVALID_ARGUMENT, ErrorCode.INVALID_CONFIG, ErrorCode.UNKNOWN_MATCH)
    assert arena.held_matches() == []


@pytest.mark.anyio
async def test_deep_nesting_is_refused_without_recursion() -> None:
    _, house = served_arena()
    deep: Any = {}
    for _ in range(3000):
        deep = {"x": deep}
    with pytest.raises(NegotiationError) as info:
        await run_operation(house, "start_game", {"game_id": "split_100", "config": deep})
    assert info.value.code is ErrorCode.INVALID_ARGUMENT and "nested" in info.value.message


@pytest.mark.anyio
async def test_in_process_arenas_stay_reproducible_and_served_ones_do_not() -> None:
    async def values(arena: Arena) -> Any:
        me = await arena.start_game("deal_or_no_deal", seed=3, name="me")
        await arena.join_game(me["match_id"], name="you")
        return (await arena.get_turn_state(me["match_id"], me["token"]))["view"]["your_values"]

    assert await values(Arena()) == await values(Arena())
    served = ArenaPolicy.served()
    seeds = {served.match_seed(f"m{i}", 3) for i in range(5)} | {ArenaPolicy.served().match_seed("m0", 3)}
    assert len(seeds) == 6  # per match and per server secret, whatever the client's seed


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("http://agents.example:9001/a2a", True),
        ("http://agents.example:9001/a2a/seat", True),
        ("http://agents.example:9001/a2a-evil", False),
        ("http://agents.example:9002/a2a", False),
        ("https://agents.example:9001/a2a", False),
        ("http://user@agents.example:9001/a2a", False),
        ("http://agents.example:9001@evil.example/a2a", False),
        ("http://agents.example.evil:9001/a2a", False),
        ("file:///etc/passwd", False),
        ("http://[::1", False),
    ],
)
def test_remote_agent_allow_list_matches_scheme_host_port_and_path(url: str, allowed: bool) -> None:
    policy = ArenaPolicy.served(remote_agents=("http://agents.example:9001/a2a",))
    assert policy.remote_agents is not None and (policy.remote_agents.refusal(url) is None) is allowed
    nothing = ArenaPolicy.served().remote_agents
    assert nothing is not None and nothing.refusal(url) is not None
