"""A game that raises while processing an accepted move: the caller gets `internal_error`, the match is
rolled back in memory and nothing reaches the store (a real SQLite file), and the match goes on."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from negotiation_platform.arena import Arena
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.errors import ErrorCode
from negotiation_platform.registry import hookimpl
from negotiation_platform.spec import GameSpec
from negotiation_platform.store import open_store
from negotiation_platform.store.sql import SqlStore
from tests.probe_game import ProbeConfig, ProbeGame
from tests.test_store import refused, stored_arena

pytestmark = pytest.mark.anyio


class FaultyConfig(ProbeConfig):
    fail_on: int = Field(default=9, ge=0, le=9, description="The move the game fails on.")
    fail_to_start: bool = False


class FaultyProbe(ProbeGame):
    """The probe game, with a bug: a move of `fail_on` raises once the game has half recorded it."""

    Config = FaultyConfig  # type: ignore[assignment]

    @classmethod
    def build_spec(cls, config: Any) -> GameSpec:
        return super().build_spec(config).model_copy(update={"id": "faulty"})

    def initialize_game(self, players: list[str]) -> bool:
        if self.settings.fail_to_start:
            raise RuntimeError("secret detail of the crash")
        return super().initialize_game(players)

    def process_action(self, action: Any) -> dict[str, Any]:
        state = super().process_action(action)
        if action.action_type == "move" and action.action_data["n"] == self.settings.fail_on:
            raise RuntimeError("secret detail of the crash")
        return state


class _FaultyPlugin:
    @hookimpl
    def register_games(self) -> list[type[Any]]:
        return [FaultyProbe]


def faulty_arena(path: Path, policy: ArenaPolicy | None = None) -> Arena:
    arena = stored_arena(str(path), policy=policy)
    arena.registry.register(_FaultyPlugin(), name="faulty_plugin")
    return arena


def stored(path: Path, match_id: str) -> tuple[str, list[dict[str, Any]]]:
    store = open_store(str(path))
    assert isinstance(store, SqlStore)
    try:
        record = store.get_match(match_id)
        assert record is not None
        return record.status, [e.to_dict() for e in store.events(match_id)]
    finally:
        store.close()


async def test_a_failing_move_is_rolled_back_in_memory_and_store_and_the_match_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "matches.db"
    arena = faulty_arena(path)
    me = await arena.start_game("faulty", seed=3, name="me")
    them = await arena.join_game(me["match_id"], name="them")
    mid = me["match_id"]
    await arena.perform_action(mid, me["token"], "move", {"n": 1})
    memory, store = arena.events(mid), stored(path, mid)
    with caplog.at_level(logging.ERROR):
        err = await refused(ErrorCode.INTERNAL_ERROR, arena.perform_action(mid, them["token"], "move", {"n": 9}))
    assert "the match is as it was" in err.message and "secret detail" not in err.message
    assert [r for r in caplog.records if "game faulty failed" in r.getMessage() and r.exc_info]
    assert arena.events(mid) == memory and stored(path, mid) == store == ("running", memory)
    state = await arena.get_turn_state(mid, them["token"])
    assert state["your_turn"] and state["view"]["moves"] == [("me", 1)]
    await arena.perform_action(mid, them["token"], "move", {"n": 2})
    await arena.perform_action(mid, me["token"], "move", {"n": 3})
    assert stored(path, mid) == ("running", arena.events(mid))
    again = faulty_arena(path)  # a restart replays the store into the same match
    assert await again.resume() == 1
    assert again.events(mid) == arena.events(mid)


async def test_a_default_move_that_fails_on_the_turn_clock_changes_nothing_and_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "matches.db"
    arena = faulty_arena(path, ArenaPolicy.served(reproducible=True, turn_timeout=0.2))
    me = await arena.start_game("faulty", {"fail_on": 0}, seed=3, name="me")  # the default move is 0
    them = await arena.join_game(me["match_id"], name="them")
    mid = me["match_id"]

    async def logged() -> list[dict[str, Any]]:
        """The log as read under the match's lock (never with a change in flight)."""
        return list((await arena.watch(mid))["events"])

    memory, store = await logged(), stored(path, mid)
    with caplog.at_level(logging.ERROR):
        for _ in range(40):
            await asyncio.sleep(0.05)
            if len([r for r in caplog.records if "game faulty failed" in r.getMessage()]) >= 2:
                break
    assert await logged() == memory and stored(path, mid) == store == ("running", memory)
    assert len([r for r in caplog.records if "game faulty failed" in r.getMessage() and r.exc_info]) >= 2  # retried
    due = [seat for seat in (me, them) if (await arena.get_turn_state(mid, seat["token"]))["your_turn"]]
    assert len(due) == 1 and (await arena.perform_action(mid, due[0]["token"], "move", {"n": 5}))["ok"]
    assert stored(path, mid) == ("running", await logged())


async def test_a_game_that_fails_to_start_leaves_the_last_seat_free(tmp_path: Path) -> None:
    arena = faulty_arena(tmp_path / "matches.db")
    me = await arena.start_game("faulty", {"fail_to_start": True}, name="me")
    await refused(ErrorCode.INTERNAL_ERROR, arena.join_game(me["match_id"], name="them"))
    state = await arena.watch(me["match_id"])
    assert state["status"] == "waiting_for_players" and state["seats"] == {"filled": 1, "total": 2}
