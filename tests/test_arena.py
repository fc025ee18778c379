"""The arena: seats and tokens, waiting, deadlines, structured refusals, results."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from negotiation_platform.agents import ConcessionAgent, RandomAgent, play_match
from negotiation_platform.agents.base import Decision
from negotiation_platform.agents.driver import MAX_ATTEMPTS, observe, open_seats, take_turn
from negotiation_platform.arena import Arena
from negotiation_platform.errors import ErrorCode, NegotiationError

pytestmark = pytest.mark.anyio


async def refused(code: ErrorCode, awaitable) -> NegotiationError:  # type: ignore[no-untyped-def]
    with pytest.raises(NegotiationError) as info:
        await awaitable
    assert info.value.code is code, info.value
    return info.value


async def two_seats(arena: Arena, game: str = "split_100", **config):  # type: ignore[no-untyped-def]
    a = await arena.start_game(game, config=config or None, seed=11, name="alice")
    b = await arena.join_game(a["match_id"], name="bob")
    return a["match_id"], a, b


async def test_catalogue(registry) -> None:
    arena = Arena(registry)
    games = {g["id"]: g for g in (await arena.list_games())["games"]}
    assert games["split_100"]["source"] == "negotiation-platform"
    rules = await arena.get_game_rules("auction", {"bidders": 4})
    assert rules["spec"]["roles"]["min_players"] == 4 and "4 bidders" in rules["rules"]
    await refused(ErrorCode.UNKNOWN_GAME, arena.get_game_rules("chess"))
    err = await refused(ErrorCode.INVALID_CONFIG, arena.start_game("split_100", config={"rounds": -1}))
    assert err.details["problems"][0]["field"] == "rounds"
    # not an object: the request's refusal, as over the network (the game's config model reads only objects)
    await refused(ErrorCode.INVALID_ARGUMENT, arena.start_game("split_100", config=[1]))  # type: ignore[arg-type]


async def test_seats_tokens_and_start(registry) -> None:
    arena = Arena(registry)
    a = await arena.start_game("split_100", name="alice")
    state = await arena.get_turn_state(a["match_id"], a["token"])
    assert state["status"] == "waiting_for_players" and not state["your_turn"]
    await refused(ErrorCode.NOT_STARTED, arena.perform_action(a["match_id"], a["token"], "propose", {"mine": 50}))
    b = await arena.join_game(a["match_id"], name="alice")
    assert b["agent_id"] == "alice_2" and b["token"] != a["token"]
    await refused(ErrorCode.MATCH_FULL, arena.join_game(a["match_id"]))
    await refused(ErrorCode.UNKNOWN_MATCH, arena.join_game("nope"))
    listed = (await arena.list_matches())["matches"][0]
    assert listed["status"] == "running" and listed["seats"] == {"filled": 2, "total": 2}
    assert "seed" not in listed  # the seed would reveal private draws


async def test_a_token_acts_only_for_its_own_seat(registry) -> None:
    arena = Arena(registry)
    match_id, a, b = await two_seats(arena)
    other = await arena.start_game("split_100")
    await refused(ErrorCode.FORBIDDEN, arena.perform_action(match_id, "forged", "propose", {"mine": 1}))
    await refused(ErrorCode.FORBIDDEN, arena.get_turn_state(match_id, other["token"]))
    await refused(ErrorCode.UNKNOWN_MATCH, arena.get_turn_state("missing", a["token"]))
    # b's token cannot move for alice, whose turn it is
    await refused(ErrorCode.NOT_YOUR_TURN, arena.perform_action(match_id, b["token"], "propose", {"mine": 99}))
    state = await arena.get_turn_state(match_id, a["token"])
    assert state["agent_id"] == "alice" and state["your_turn"]


async def test_each_error_code_reaches_the_caller(registry) -> None:
    arena = Arena(registry)
    match_id, a, _b = await two_seats(arena)
    tok = a["token"]
    await refused(ErrorCode.UNKNOWN_ACTION, arena.perform_action(match_id, tok, "teleport", {}))
    await refused(ErrorCode.INVALID_PAYLOAD, arena.perform_action(match_id, tok, "propose", {"mine": 101}))
    await refused(ErrorCode.INVALID_ARGUMENT, arena.perform_action(match_id, tok, "propose", "50"))  # type: ignore[arg-type]
    await refused(ErrorCode.INVALID_ACTION, arena.perform_action(match_id, tok, "accept", {}))
    await refused(ErrorCode.PHASE_CLOSED, arena.send_private_message(match_id, tok, ["bob"], "hi"))  # public-only game
    await refused(ErrorCode.MESSAGE_TOO_LONG, arena.send_public_message(match_id, tok, "x" * 501))
    # past the boundary's text limit: the request's refusal, as over the network (the game's limit is lower)
    await refused(ErrorCode.INVALID_ARGUMENT, arena.send_public_message(match_id, tok, "x" * 70_000))
    await refused(ErrorCode.INVALID_ARGUMENT, arena.send_public_message(match_id, tok, 42))  # type: ignore[arg-type]
    await refused(ErrorCode.INVALID_ARGUMENT, arena.get_turn_state(match_id, tok, since=-1))
    await arena.send_public_message(match_id, tok, "hello")
    await refused(ErrorCode.LIMIT_REACHED, arena.send_public_message(match_id, tok, "again"))
    state = await arena.get_turn_state(match_id, tok)
    assert [e["data"]["content"] for e in state["events"] if e["kind"] == "message"] == ["hello"]


async def test_phase_closed_and_private_visibility_in_auction(registry) -> None:
    arena = Arena(registry)
    a = await arena.start_game("auction", seed=3, name="a")
    b = await arena.join_game(a["match_id"], name="b")
    c = await arena.join_game(a["match_id"], name="c")
    mid = a["match_id"]
    await refused(ErrorCode.PHASE_CLOSED, arena.perform_action(mid, a["token"], "bid", {"amount": 5}))
    await refused(ErrorCode.UNKNOWN_RECIPIENT, arena.send_private_message(mid, a["token"], ["zed"], "hi"))
    await arena.send_private_message(mid, a["token"], ["b"], "just us")
    seen = {}
    for name, seat in (("a", a), ("b", b), ("c", c)):
        state = await arena.get_turn_state(mid, seat["token"])
        seen[name] = [e["data"]["content"] for e in state["events"] if e["kind"] == "message"]
    assert seen == {"a": ["just us"], "b": ["just us"], "c": []}
    state_c = await arena.get_turn_state(mid, c["token"])
    live = arena.held(mid)
    assert live is not None and live.match is not None
    match = live.match
    others = {k: v for k, v in match.game.game_data["values"].items() if k != "c"}
    assert all(f"'{k}': {v}" not in str(state_c) for k, v in others.items())


async def test_wait_wakes_on_the_other_players_move(registry) -> None:
    arena = Arena(registry)
    match_id, a, b = await two_seats(arena)
    first = await arena.get_turn_state(match_id, b["token"])
    assert not first["your_turn"]

    async def alice_moves_later() -> None:
        await asyncio.sleep(0.2)
        await arena.perform_action(match_id, a["token"], "propose", {"mine": 60})

    started = time.monotonic()
    task = asyncio.create_task(alice_moves_later())
    state = await arena.get_turn_state(match_id, b["token"], since=first["cursor"], wait_seconds=5)
    waited = time.monotonic() - started
    await task
    assert state["your_turn"] and 0.15 < waited < 3
    assert [e["data"]["action_type"] for e in state["events"] if e["kind"] == "action"] == ["propose"]


async def test_wait_gives_up_after_wait_seconds(registry) -> None:
    arena = Arena(registry)
    match_id, _a, b = await two_seats(arena)
    cursor = (await arena.get_turn_state(match_id, b["token"]))["cursor"]
    started = time.monotonic()
    state = await arena.get_turn_state(match_id, b["token"], since=cursor, wait_seconds=0.3)
    assert 0.25 < time.monotonic() - started < 2 and not state["your_turn"] and state["events"] == []


async def test_deadline_plays_the_default_action(registry) -> None:
    arena = Arena(registry)
    match_id, a, b = await two_seats(arena, seconds_per_turn=0.2)
    state = await arena.get_turn_state(match_id, a["token"])
    assert 0 < state["deadline_seconds"] <= 0.2
    final = await arena.get_turn_state(match_id, b["token"], since=state["cursor"], wait_seconds=3)
    assert final["status"] == "finished"
    result = await arena.get_result(match_id)
    assert result["agreement"] is False and result["payoffs"] == {"alice": 0.0, "bob": 0.0}
    timed_out = [e for e in arena.events(match_id) if e["kind"] == "action" and e["data"].get("timed_out")]
    assert timed_out[0]["actor"] == "alice" and timed_out[0]["data"]["action_type"] == "walk_away"


async def test_full_match_through_the_driver(registry) -> None:
    arena = Arena(registry)
    result = await play_match(arena, "split_100", [ConcessionAgent(name="c1"), RandomAgent(seed=2, name="r")], seed=5)
    assert result["status"] == "finished"
    assert set(result["payoffs"]) == {"c1", "r"}
    if result["agreement"]:
        assert sum(result["payoffs"].values()) == pytest.approx(100.0)
    auction = await play_match(arena, "auction", [RandomAgent(seed=i) for i in range(3)], seed=9)
    assert auction["agreement"] is True and auction["terms"]["winner"] in auction["players"]
    # the union of what the seats were shown, sealed bids included, is the whole log
    assert auction["events"] == arena.events(auction["match_id"])
    assert result["events"] == arena.events(result["match_id"])
    pending = await arena.start_game("split_100")
    assert (await arena.get_result(pending["match_id"]))["status"] == "waiting_for_players"


async def play_with_restart(registry, game: str, restart_after: int | None) -> list[Any]:
    """A match of random agents; after `restart_after` moves every agent is replaced by a fresh one with
    the same seed that has seen nothing, as a restarted server's house seats are."""
    arena = Arena(registry)
    fresh = [RandomAgent(seed=7, name="left"), RandomAgent(seed=8, name="right")]
    match_id, seats = await open_seats(arena, game, fresh, seed=3)
    moves = 0
    while True:
        for seat in seats:
            turn = await arena.get_turn_state(match_id, seat.token, since=seat.cursor, include_prompt=False)
            seat.cursor = turn["cursor"]
            if turn["status"] == "finished":  # the moves and the result (match ids are random)
                moved = [e for e in arena.events(match_id) if e["kind"] in ("action", "message", "timeout")]
                return [*moved, (await arena.get_result(match_id))["payoffs"]]
            if not turn["your_turn"]:
                observe(seat.agent, turn)  # as the drivers do
            elif await take_turn(arena, match_id, seat, turn):
                moves += 1
                if moves == restart_after:
                    for handle, seed in zip(seats, (7, 8), strict=True):
                        handle.agent, handle.cursor = RandomAgent(seed=seed, name=handle.agent.name), None


@pytest.mark.parametrize("game", ["coins_classic", "resource_allocation"])
async def test_a_random_agent_made_again_mid_match_plays_on_as_the_first_would(registry, game: str) -> None:
    unbroken = await play_with_restart(registry, game, None)
    moves = len(unbroken) - 1
    assert moves > 6
    for restart_after in (1, moves // 2, moves - 2):
        assert await play_with_restart(registry, game, restart_after) == unbroken, restart_after


async def test_two_concession_agents_agree_on_split_100(registry) -> None:
    result = await play_match(
        Arena(registry), "split_100", [ConcessionAgent(name="x"), ConcessionAgent(name="y")], seed=1
    )
    assert result["agreement"] is True and sum(result["payoffs"].values()) == 100.0
    assert all(35 <= v <= 65 for v in result["payoffs"].values())


class StubbornAgent:
    """Always claims more than there is: every proposal is refused."""

    name = "stubborn"

    def decide(self, turn: dict[str, Any]) -> Decision:
        return Decision(action="propose", payload={"mine": 1_000})


async def test_an_agent_refused_again_and_again_forfeits_its_turn_not_the_match(registry) -> None:
    arena = Arena(registry)
    result = await play_match(
        arena, "split_100", [StubbornAgent(), ConcessionAgent(seed=1)], seed=5, config={"rounds": 2}
    )
    assert result["status"] == "finished"
    forfeits = [e for e in arena.events(result["match_id"]) if e["kind"] == "timeout"]
    assert forfeits and all(e["data"]["players"] == ["stubborn"] for e in forfeits)
    reason = forfeits[0]["data"]["reason"]
    assert f"refused {MAX_ATTEMPTS} times in a row" in reason and "less than or equal to 100" in reason


def count_prompts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every prompt split_100 builds (by the seat it is for)."""
    from negotiation_platform.games import Split100Game

    built: list[str] = []
    original = Split100Game.get_game_prompt

    def counted(self: Split100Game, player_id: str) -> str:
        built.append(player_id)
        return original(self, player_id)

    monkeypatch.setattr(Split100Game, "get_game_prompt", counted)
    return built


async def test_the_prompt_is_built_on_request_once_per_turn(registry, monkeypatch) -> None:
    built = count_prompts(monkeypatch)
    arena = Arena(registry)
    mid, a, _ = await two_seats(arena)
    assert "prompt" not in await arena.get_turn_state(mid, a["token"], include_prompt=False)
    assert built == []
    first = await arena.get_turn_state(mid, a["token"])
    again = await arena.get_turn_state(mid, a["token"])
    assert first["prompt"] == again["prompt"] and built == ["alice"]
    await arena.perform_action(mid, a["token"], "propose", {"mine": 70})
    after = await arena.get_turn_state(mid, a["token"])
    assert built == ["alice", "alice"] and "you keep 70" in after["prompt"]
    await refused(ErrorCode.INVALID_ARGUMENT, arena.get_turn_state(mid, a["token"], include_prompt="yes"))


class PromptReader:
    """Proposes once with the prompt it was shown, then accepts; it reads the prompt (by default)."""

    name = "reader"

    def __init__(self) -> None:
        self.prompts: list[str | None] = []

    def decide(self, turn: dict[str, Any]) -> Decision:
        self.prompts.append(turn.get("prompt"))
        names = [a["name"] for a in turn["allowed_actions"]]
        return Decision(action="accept") if "accept" in names else Decision(action="propose", payload={"mine": 50})


async def test_drivers_ask_for_the_prompt_only_for_agents_that_read_it(registry, monkeypatch) -> None:
    built = count_prompts(monkeypatch)
    await play_match(Arena(registry), "split_100", [RandomAgent(seed=1), ConcessionAgent(seed=2)], seed=3)
    assert built == []
    reader = PromptReader()
    await play_match(Arena(registry), "split_100", [reader, ConcessionAgent(seed=2)], seed=3)
    assert reader.prompts and all(p and "SPLIT $100" in p for p in reader.prompts)
    assert set(built) == {"reader"}


async def test_steps_run_on_the_loop_in_process_and_in_threads_when_served(registry, monkeypatch) -> None:
    import dataclasses
    import threading

    from negotiation_platform.arena.policy import ArenaPolicy
    from negotiation_platform.games import Split100Game

    threads: list[int] = []
    original = Split100Game.process_action

    def recorded(self: Split100Game, action: Any) -> dict[str, Any]:
        threads.append(threading.get_ident())
        return original(self, action)

    monkeypatch.setattr(Split100Game, "process_action", recorded)
    assert ArenaPolicy.served().steps_in_thread and not ArenaPolicy().steps_in_thread
    for policy in (ArenaPolicy(), dataclasses.replace(ArenaPolicy(), steps_in_thread=True)):
        arena = Arena(registry, policy=policy)
        mid, a, _ = await two_seats(arena)
        await arena.perform_action(mid, a["token"], "propose", {"mine": 70})
    assert threads[0] == threading.get_ident() and threads[1] != threading.get_ident()


def test_an_arenas_policy_is_fixed_when_the_arena_is_made() -> None:
    """Clocks, limits and draws armed under one policy never meet another: no setter, and a frozen policy."""
    import dataclasses

    from negotiation_platform.arena.policy import ArenaPolicy

    policy = ArenaPolicy.served(turn_timeout=5)
    arena = Arena(policy=policy)
    with pytest.raises(AttributeError):
        arena.policy = ArenaPolicy()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        arena.policy.turn_timeout = 1  # type: ignore[misc]
    assert arena.policy is policy and arena.policy.turn_timeout == 5
