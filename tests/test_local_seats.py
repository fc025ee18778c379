"""In-process seats (`Arena.seat_for`, `LocalSeat`): the typed path the drivers take for an in-process
arena plays exactly as the JSON operations do (same transcripts, results and store rows for every
installed game), acts only for its own seat, and is bound by the same turn clocks and forfeits."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest

from negotiation_platform.agents import RandomAgent, play_match
from negotiation_platform.agents.base import Decision
from negotiation_platform.agents.driver import (
    ApiSeat,
    SeatHandle,
    SeatInPlay,
    link,
    open_seats,
    seat_in_play,
    take_turn,
)
from negotiation_platform.arena import Arena
from negotiation_platform.arena.arguments import MAX_ARGUMENT_CHARS, text_argument
from negotiation_platform.arena.persistence import Persistence
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.arena.seats import LocalSeat
from negotiation_platform.arena.turn_state import StaleTurnState, TurnState
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.store import open_store

pytestmark = pytest.mark.anyio
GAMES = sorted(Registry().games())
SHORT = {"max_length": 6, "negotiation_steps": 3}
CONFIGS: dict[str, dict[str, Any]] = {"adasociety": SHORT, "adasociety_hard": SHORT}
"""Shorter matches of the long games (every game plays its defaults otherwise)."""


class JsonEdge:
    """The arena through its JSON operations only: not an `Arena`, so the drivers reach its seats by
    `ApiSeat`, as they would a transport's client."""

    def __init__(self, arena: Arena) -> None:
        self._arena = arena

    def __getattr__(self, name: str) -> Any:
        return getattr(self._arena, name)


def stored_arena(path: Path) -> Arena:
    arena = Arena(new_match_id=lambda: "m")
    store = open_store(str(path))
    assert store is not None
    arena.use_store(Persistence(store, "here"))
    return arena


def stored_rows(path: Path) -> dict[str, Any]:
    """What the store keeps of match "m", less what differs between any two runs (times, token hashes)."""
    store = open_store(str(path))
    assert store is not None
    record = store.get_match("m")
    assert record is not None
    return {
        "record": (record.game_id, record.config, record.seed, record.status, record.round, record.event_count),
        "result": record.result,
        "seats": [(s.agent_id, s.name, s.left) for s in record.seats],
        "events": [e.to_dict() for e in store.events("m")],
    }


@pytest.mark.parametrize("game", GAMES)
async def test_in_process_seats_play_as_the_json_operations_do(game: str, tmp_path: Path) -> None:
    registry = Registry()
    players = registry.game(game).cls.spec.roles.min_players
    for seed in (1, 2):
        typed, json_only = stored_arena(tmp_path / f"typed{seed}.db"), stored_arena(tmp_path / f"json{seed}.db")
        played = []
        for arena, api in ((typed, typed), (json_only, JsonEdge(json_only))):
            agents = [RandomAgent(seed=seed * 10 + i, name=f"p{i}") for i in range(players)]
            played.append(await play_match(api, game, agents, config=CONFIGS.get(game), seed=seed))  # type: ignore[arg-type]
            await arena.close()
        assert played[0] == played[1]
        assert played[0]["status"] == "finished" and played[0]["events"]
        assert stored_rows(tmp_path / f"typed{seed}.db") == stored_rows(tmp_path / f"json{seed}.db")


async def test_the_drivers_take_the_typed_path_in_process_only() -> None:
    arena = Arena()
    match_id, seats = await open_seats(arena, "split_100", [RandomAgent(seed=1), RandomAgent(seed=2)], seed=1)
    assert isinstance(await link(arena, match_id, seats[0]), LocalSeat)
    assert isinstance(await link(JsonEdge(arena), match_id, seats[0]), ApiSeat)  # type: ignore[arg-type]


async def test_a_local_seat_is_found_by_its_token_and_acts_only_for_itself() -> None:
    arena = Arena()
    a = await arena.start_game("split_100", seed=3, name="alice")
    b = await arena.join_game(a["match_id"], name="bob")
    with pytest.raises(NegotiationError) as wrong:
        await arena.seat_for(a["match_id"], "not-a-token")
    assert wrong.value.code is ErrorCode.FORBIDDEN
    with pytest.raises(NegotiationError) as elsewhere:
        await arena.seat_for("no-such-match", a["token"])
    assert elsewhere.value.code is ErrorCode.UNKNOWN_MATCH
    alice, bob = await arena.seat_for(a["match_id"], a["token"]), await arena.seat_for(a["match_id"], b["token"])
    assert (alice.agent_id, bob.agent_id) == ("alice", "bob")
    with pytest.raises(NegotiationError) as early:
        await bob.act("propose", {"mine": 60})  # alice opens: bob cannot move for her, nor in her place
    assert early.value.code is ErrorCode.NOT_YOUR_TURN
    acted = await alice.act("propose", {"mine": 60})
    assert acted.your_turn is False and acted.acting == ["bob"]
    assert [(e.kind.value, e.actor) for e in acted.events] == [("action", "alice")]
    with pytest.raises(NegotiationError) as bad:
        await bob.act("propose", {"mine": "lots"})
    assert bad.value.code is ErrorCode.INVALID_PAYLOAD
    assert len(arena.events(a["match_id"])) == len(acted.events) + acted.events[0].seq - 1  # the refusal logged nothing


async def test_a_typed_turn_state_is_the_json_answer_and_never_read_stale() -> None:
    arena = Arena()
    a = await arena.start_game("split_100", seed=4, name="alice")
    b = await arena.join_game(a["match_id"], name="bob")
    alice = await arena.seat_for(a["match_id"], a["token"])
    turn = await alice.turn()
    assert turn.to_dict() == await arena.get_turn_state(a["match_id"], a["token"])
    assert dict(turn) == turn.to_dict() and turn["view"] == turn.to_dict()["view"]
    kept, late = (await alice.turn()).freeze(), await alice.turn()
    await alice.act("propose", {"mine": 55})
    assert kept["allowed_actions"] == turn["allowed_actions"]  # frozen before the move: read as it was
    with pytest.raises(StaleTurnState):
        late["allowed_actions"]  # first read after the move: refused, not answered from the new state
    assert [e.seq for e in late.events] == [e.seq for e in turn.events]  # the logged events never go stale
    assert isinstance(turn, TurnState) and b["agent_id"] == "bob"


class SlowAsync:
    """Decides asynchronously, reading its turn state (in place) only after a clock moved the match on."""

    name = "slow"
    reads_prompt = False
    reads_turn_in_place = True

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    async def decide(self, turn: dict[str, Any]) -> Decision:
        await asyncio.sleep(0.3)  # meanwhile its turn clock plays its default move, which ends the match
        self.seen.append([a["name"] for a in turn["allowed_actions"]])
        return Decision(action="propose", payload={"mine": 50})


async def test_clocks_and_forfeits_bind_local_seats() -> None:
    arena = Arena(policy=ArenaPolicy.served(reproducible=True, turn_timeout=0.1))

    async def seats(seed: int) -> list[LocalSeat]:
        a = await arena.start_game("split_100", seed=seed, name="alice")
        b = await arena.join_game(a["match_id"], name="bob")
        return [await arena.seat_for(a["match_id"], started["token"]) for started in (a, b)]

    alice, bob = await seats(5)
    first = await alice.turn()
    assert first.your_turn and first.deadline_seconds is not None and 0 < first.deadline_seconds <= 0.1
    later = await bob.turn(first.cursor, wait_seconds=3)  # alice never moves: her turn clock does
    clocked = [e for e in later.events if e.kind.value == "action" and e.actor == "alice"]
    assert clocked and clocked[0].data == {"action_type": "walk_away", "payload": {}, "timed_out": True}
    assert later.status == "finished"
    other_alice, other_bob = await seats(6)
    forfeited = await other_alice.forfeit("thinking too long")
    timeouts = [e for e in forfeited.events if e.kind.value == "timeout"]
    assert timeouts[0].data == {"players": ["alice"], "reason": "thinking too long", "forfeit": True}
    assert forfeited.events[1].data == {"action_type": "walk_away", "payload": {}, "forfeited": True}
    with pytest.raises(NegotiationError) as over:
        await other_bob.act("accept")
    assert over.value.code is ErrorCode.MATCH_OVER
    await arena.close()


async def test_an_asynchronous_agent_reads_the_turn_state_it_was_given() -> None:
    arena = Arena(policy=ArenaPolicy.served(reproducible=True, turn_timeout=0.1))
    slow = SlowAsync()
    a = await arena.start_game("split_100", seed=6, name="slow")
    await arena.join_game(a["match_id"], name="bob")
    seat = SeatHandle(slow, a["agent_id"], a["token"])
    turn = await (await link(arena, a["match_id"], seat)).turn()
    with pytest.raises(NegotiationError) as overtaken:
        await take_turn(arena, a["match_id"], seat, turn)
    assert overtaken.value.code is ErrorCode.MATCH_OVER  # its turn clock walked away for it while it decided
    assert slow.seen == [["propose", "walk_away"]]  # the turn as handed over, not the finished match's
    await arena.close()


class Relay:
    """Sends its whole turn state on as JSON, as an agent relaying to a remote player does."""

    name = "relay"

    def __init__(self) -> None:
        self.sent: list[str] = []

    def decide(self, turn: dict[str, Any]) -> Decision:
        self.sent.append(json.dumps(turn))
        names = [a["name"] for a in turn["allowed_actions"]]
        return Decision(action="accept") if "accept" in names else Decision(action="propose", payload={"mine": 50})


async def test_agents_that_do_not_read_in_place_get_plain_dicts() -> None:
    relay, other = Relay(), Relay()
    result = await play_match(Arena(), "split_100", [relay, other], seed=7)
    assert result["agreement"] and relay.sent and other.sent
    first = json.loads(relay.sent[0])
    assert first["your_turn"] and first["allowed_actions"] and first["events"][0]["kind"] == "match_started"


def test_a_clients_seat_names_load_the_installed_plugins_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Naming a client's seats (`concession` -> `concession-client`) asks the agent kinds installed here
    once per process, not a fresh `Registry` (every plugin imported again) per seat."""
    from negotiation_platform.agents import driver
    from negotiation_platform.registry import registry as registry_module

    built: list[Registry] = []

    class Counted(Registry):
        def __init__(self) -> None:
            super().__init__()
            built.append(self)

    monkeypatch.setattr(registry_module, "Registry", Counted)
    registry_module.installed_registry.cache_clear()
    try:
        edge = JsonEdge(Arena())
        names = [driver.seat_name(edge, RandomAgent(name=name)) for name in ("concession", "concession", "mine")]
    finally:
        registry_module.installed_registry.cache_clear()  # later tests get a registry of the real class
    assert names == ["concession-client", "concession-client", "mine"]
    assert len(built) <= 1


class Seated:
    """Notes the seat in play while it decides, before and after giving way to the event loop when it answers
    asynchronously: proposes, or accepts what it is offered."""

    reads_prompt = False

    def __init__(self, name: str, *, answers_async: bool) -> None:
        self.name, self.answers_async = name, answers_async
        self.seen: list[SeatInPlay | None] = []

    def decide(self, turn: dict[str, Any]) -> Decision | Awaitable[Decision]:
        offered = any(a["name"] == "accept" for a in turn["allowed_actions"])
        decision = Decision(action="accept") if offered else Decision(action="propose", payload={"mine": 60})
        self.seen.append(seat_in_play())
        if not self.answers_async:
            return decision

        async def later() -> Decision:
            self.seen.append(seat_in_play())
            await asyncio.sleep(0)
            self.seen.append(seat_in_play())
            return decision

        return later()


async def test_the_seat_in_play_is_set_while_an_agent_decides_at_once_or_asynchronously() -> None:
    arena = Arena()
    agents = [Seated("alice", answers_async=True), Seated("bob", answers_async=False)]
    result = await play_match(arena, "split_100", list(agents), seed=1)
    assert result["agreement"] and seat_in_play() is None
    alice, bob = ([(s.agent_id, s.match_id) for s in agent.seen if s is not None] for agent in agents)
    assert alice == [("alice", result["match_id"])] * 3 and len(agents[0].seen) == 3
    assert bob == [("bob", result["match_id"])] and len(agents[1].seen) == 1


async def test_a_games_own_clock_binds_local_seats_without_a_turn_timeout_and_no_clock_arms_no_timer() -> None:
    arena = Arena()  # no turn timeout: only a clock of the game's own spec can run
    timed = await arena.start_game("split_100", config={"seconds_per_turn": 0.1}, seed=1, name="alice")
    await arena.join_game(timed["match_id"], name="bob")
    alice = await arena.seat_for(timed["match_id"], timed["token"])
    await alice.act("propose", {"mine": 60})  # bob's turn starts, on the spec's clock
    later = await alice.turn((await alice.turn()).cursor, wait_seconds=3)  # bob never moves: the clock does
    assert later.status == "finished"
    assert any(e.data.get("timed_out") and e.actor == "bob" for e in later.events if e.kind.value == "action")

    plain = await arena.start_game("split_100", seed=1, name="carol")
    await arena.join_game(plain["match_id"], name="dave")
    carol = await arena.seat_for(plain["match_id"], plain["token"])
    acted = await carol.act("propose", {"mine": 60})
    assert acted.acting == ["dave"] and not acted.your_turn
    assert (await carol.turn()).deadline_seconds is None


def test_text_arguments_are_refused_and_accepted_as_before() -> None:
    assert text_argument("action_type", "propose") == "propose"
    assert text_argument("content", "héllo") == "héllo"
    for value, code in [
        (7, ErrorCode.INVALID_ARGUMENT),
        ("\ud800", ErrorCode.INVALID_ARGUMENT),
        ("a" * (MAX_ARGUMENT_CHARS + 1), ErrorCode.INVALID_ARGUMENT),
    ]:
        with pytest.raises(NegotiationError) as refused:
            text_argument("action_type", value)
        assert refused.value.code is code
    with pytest.raises(NegotiationError) as long_message:
        text_argument("content", "a" * (MAX_ARGUMENT_CHARS + 1))
    assert long_message.value.code is ErrorCode.MESSAGE_TOO_LONG


async def test_seat_all_seats_every_name_in_order_as_linked_local_seats() -> None:
    arena = Arena()
    seats = await arena.seat_all("split_100", ["alice", "bob"], seed=5)
    assert [s.agent_id for s in seats] == ["alice", "bob"] and seats[0].match_id == seats[1].match_id
    for seat in seats:  # each seat's token is its own, as `start_game` and `join_game` answer it
        assert (await arena.seat_for(seat.match_id, seat.token)).agent_id == seat.agent_id
    acted = await seats[0].act("propose", {"mine": 60})
    assert acted.acting == ["bob"]
    started = await arena.start_game("split_100", seed=5, name="alice")
    await arena.join_game(started["match_id"], name="bob")
    joined = await arena.seat_for(started["match_id"], started["token"])
    await joined.act("propose", {"mine": 60})
    assert arena.events(started["match_id"]) == arena.events(seats[0].match_id)


async def test_seat_all_refuses_a_wrong_number_of_names_and_a_name_that_is_no_text() -> None:
    arena = Arena()
    with pytest.raises(ValueError, match="split_100 has 2 seats; got 3 agents"):
        await arena.seat_all("split_100", ["a", "b", "c"])
    with pytest.raises(NegotiationError) as bad:
        await arena.seat_all("split_100", ["a", "x" * (MAX_ARGUMENT_CHARS + 1)])
    assert bad.value.code is ErrorCode.INVALID_ARGUMENT
    with pytest.raises(NegotiationError) as unknown:
        await arena.seat_all("no_such_game", ["a", "b"])
    assert unknown.value.code is ErrorCode.UNKNOWN_GAME
