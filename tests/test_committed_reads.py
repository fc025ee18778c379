"""Readers see only what is committed: a change whose store write is slow and then fails is never
shown, by any read operation, on a served arena over a real SQLite file (issue 26, defect 10)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from negotiation_platform.arena import Arena
from negotiation_platform.arena.persistence import Persistence
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.store import open_store
from negotiation_platform.store.records import MatchChange, StoreUnavailable
from negotiation_platform.store.sql import SqlStore

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class SlowThenFailing:
    """An SQLite store whose next write, once armed, blocks until released and then fails."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store
        self.armed = False
        self.entered = threading.Event()
        self.release = threading.Event()

    def apply(self, match_id: str, owner: str, change: MatchChange, lease_seconds: float) -> None:
        if self.armed:
            self.entered.set()
            self.release.wait(10)
            raise StoreUnavailable("the disk is full")
        self.store.apply(match_id, owner, change, lease_seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def test_no_read_shows_a_change_whose_store_write_failed(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "matches.db"))
    assert store is not None
    failing = SlowThenFailing(store)
    arena = Arena(policy=ArenaPolicy.served(reproducible=True))  # steps (and their writes) run off the loop
    arena.use_store(Persistence(failing, "one"))  # type: ignore[arg-type]
    me = await arena.start_game("split_100", seed=1, name="me")
    match_id = me["match_id"]
    them = await arena.join_game(match_id, name="them")
    await arena.perform_action(match_id, me["token"], "propose", {"mine": 70})

    failing.armed = True
    accept = asyncio.create_task(arena.perform_action(match_id, them["token"], "accept", {}))
    await asyncio.to_thread(failing.entered.wait, 10)  # the match is finished in memory; its write hangs
    reads = {
        "get_result": asyncio.create_task(arena.get_result(match_id)),
        "get_turn_state": asyncio.create_task(arena.get_turn_state(match_id, me["token"])),
        "waiting get_turn_state": asyncio.create_task(arena.get_turn_state(match_id, them["token"], wait_seconds=1)),
        "watch": asyncio.create_task(arena.watch(match_id)),
        "spectate": asyncio.create_task(arena.spectate(match_id)),
        "list_matches": asyncio.create_task(arena.list_matches()),
    }
    await asyncio.sleep(0.2)
    failing.armed = False
    failing.release.set()
    with pytest.raises(NegotiationError) as refused:
        await accept
    assert refused.value.code is ErrorCode.STORE_UNAVAILABLE
    answers = {name: await task for name, task in reads.items()}

    assert answers["get_result"]["status"] == "running" and answers["get_result"]["result"] is None
    assert answers["list_matches"]["matches"][0]["status"] == "running"
    for name in ("get_turn_state", "waiting get_turn_state", "watch", "spectate"):
        assert answers[name]["status"] == "running", name
        assert "result" not in answers[name], name
    stored = store.get_match(match_id)
    assert stored is not None and stored.status == "running" and stored.result is None
    # the accept was not kept: it can be sent again, and now it holds
    assert (await arena.perform_action(match_id, them["token"], "accept", {}))["status"] == "finished"
    assert (await arena.get_result(match_id))["payoffs"] == {"me": 70.0, "them": 30.0}
