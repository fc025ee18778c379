"""The match store on a real SQLite file and a real PostgreSQL server: what an arena writes, what
readers get back without replaying, leases between processes, restarts, and schema versions."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from negotiation_platform.arena import Arena
from negotiation_platform.arena.persistence import Persistence
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.store import MatchQuery, open_store
from negotiation_platform.store.schema import SCHEMA_VERSION, SchemaMismatch
from negotiation_platform.store.sql import SqlStore


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "matches.db")
    return str(request.getfixturevalue("postgres_url"))


def stored_arena(
    location: str, owner: str = "one", lease_seconds: float = 30.0, policy: ArenaPolicy | None = None
) -> Arena:
    arena = Arena(policy=policy)
    store = open_store(location)
    assert store is not None
    arena.use_store(Persistence(store, owner, lease_seconds))
    return arena


async def refused(code: ErrorCode, call: Any) -> NegotiationError:
    with pytest.raises(NegotiationError) as caught:
        await call
    assert caught.value.code is code, caught.value
    return caught.value


def test_a_restarted_arena_goes_on_with_the_same_tokens_and_cursors(location: str) -> None:
    async def scenario() -> None:
        first = stored_arena(location)
        me = await first.start_game("split_100", seed=5, name="me")
        them = await first.join_game(me["match_id"], name="them")
        match_id = me["match_id"]
        await first.perform_action(match_id, me["token"], "propose", {"mine": 70})
        before = await first.get_turn_state(match_id, them["token"])
        log_before = first.events(match_id)
        # the process dies without a word: a fresh arena on the same store, under the same name
        second = stored_arena(location)
        assert await second.resume() == 1
        after = await second.get_turn_state(match_id, them["token"])
        assert {k: after[k] for k in ("cursor", "your_turn", "events", "view")} == {
            k: before[k] for k in ("cursor", "your_turn", "events", "view")
        }
        assert second.events(match_id) == log_before
        await refused(ErrorCode.FORBIDDEN, second.perform_action(match_id, "forged", "accept", {}))
        await second.perform_action(match_id, them["token"], "accept", {})
        result = await second.get_result(match_id)
        assert result["payoffs"] == {"me": 70.0, "them": 30.0} and result["seed"] == 5
        await second.close()

    asyncio.run(scenario())


def test_tokens_are_stored_only_as_hashes_and_the_seed_stays_secret_until_the_end(location: str) -> None:
    async def scenario() -> SqlStore:
        arena = stored_arena(location)
        me = await arena.start_game("split_100", seed=123456, name="me")
        them = await arena.join_game(me["match_id"], name="them")
        assert_not_stored(arena, [me["token"], them["token"]])
        store = arena.persistence.store  # type: ignore[union-attr]
        record = store.get_match(me["match_id"])
        assert record is not None and "seed" not in record.public()
        assert (await arena.get_result(me["match_id"]))["result"] is None
        await arena.perform_action(me["match_id"], me["token"], "propose", {"mine": 50})
        await arena.perform_action(me["match_id"], them["token"], "accept", {})
        finished = store.get_match(me["match_id"])
        assert finished is not None and finished.public()["seed"] == 123456
        await arena.close()
        return store

    asyncio.run(scenario())


def assert_not_stored(arena: Arena, secrets: list[str]) -> None:
    store = arena.persistence.store  # type: ignore[union-attr]
    with store.engine.connect() as c:
        dump = " ".join(
            str(row) for table in ("matches", "seats", "events") for row in c.execute(sa.text(f"SELECT * FROM {table}"))
        )
    assert dump and not any(secret in dump for secret in secrets)


def test_readers_list_filter_and_page_without_replaying(location: str) -> None:
    async def scenario() -> None:
        arena = stored_arena(location)
        house = HouseSeats(arena)
        finished = []
        for seed in range(3):
            started = await house.start_game("split_100", seed=seed, opponents=["concession"])
            await arena.perform_action(started["match_id"], started["token"], "propose", {"mine": 1})
            finished.append(started["match_id"])
        waiting = await arena.start_game("company_car", name="alone")
        store = arena.persistence.store  # type: ignore[union-attr]
        for _ in range(200):  # the house seats answer on the loop
            if all(store.get_match(m).status == "finished" for m in finished):  # type: ignore[union-attr]
                break
            await asyncio.sleep(0.02)
        listed = await arena.list_matches(status="finished", limit=2)
        assert len(listed["matches"]) == 2 and listed["next_cursor"] is not None
        rest = await arena.list_matches(status="finished", limit=2, cursor=listed["next_cursor"])
        assert {m["match_id"] for m in listed["matches"] + rest["matches"]} == set(finished)
        assert rest["next_cursor"] is None
        games = await arena.list_matches(game_id="company_car")
        assert [m["match_id"] for m in games["matches"]] == [waiting["match_id"]]
        assert (await arena.list_matches(since="2999-01-01"))["matches"] == []
        assert len((await arena.list_matches(since="2000-01-01T00:00:00Z"))["matches"]) == 4
        await refused(ErrorCode.INVALID_ARGUMENT, arena.list_matches(status="sleeping"))
        await refused(ErrorCode.INVALID_ARGUMENT, arena.list_matches(since="yesterday"))
        await refused(ErrorCode.INVALID_ARGUMENT, arena.list_matches(cursor="nonsense"))
        await refused(ErrorCode.INVALID_ARGUMENT, arena.list_matches(limit=0))
        record = store.get_match(finished[0])
        assert record is not None and record.result is not None
        assert record.result["agreement"] is True and record.seats[1].house == {
            "agent": "concession",
            "seed": record.seats[1].house["seed"],
            "by": "client",  # HouseSeats.start_game seats a client's opponents unless the operator says so
        }  # type: ignore[index]
        log = store.events(finished[0])
        assert [e.seq for e in log] == list(range(1, record.event_count + 1))
        assert log[-1].kind.value == "match_ended"
        assert all(e.visible_to is None for e in store.events(finished[0], public_only=True))
        await arena.close()

    asyncio.run(scenario())


def test_private_events_keep_their_visibility(location: str) -> None:
    async def scenario() -> None:
        arena = stored_arena(location)
        a = await arena.start_game("auction", seed=3, name="a")
        await arena.join_game(a["match_id"], name="b")
        await arena.join_game(a["match_id"], name="c")
        await arena.send_private_message(a["match_id"], a["token"], ["b"], "just us")
        store = arena.persistence.store  # type: ignore[union-attr]
        private = [e for e in store.events(a["match_id"]) if e.kind.value == "message"]
        assert [(e.data["content"], e.visible_to) for e in private] == [("just us", ("a", "b"))]
        assert not [e for e in store.events(a["match_id"], public_only=True) if e.kind.value == "message"]
        await arena.close()

    asyncio.run(scenario())


def test_a_live_match_is_written_only_by_its_owner(location: str) -> None:
    async def scenario() -> None:
        one, two = stored_arena(location, "one"), stored_arena(location, "two")
        me = await one.start_game("split_100", seed=1, name="me")
        them = await one.join_game(me["match_id"], name="them")
        match_id = me["match_id"]
        refusal = await refused(
            ErrorCode.WRONG_OWNER, two.perform_action(match_id, me["token"], "propose", {"mine": 60})
        )
        assert refusal.details == {"owner": "one"} and "one" in refusal.message
        await refused(ErrorCode.WRONG_OWNER, two.leave_game(match_id, them["token"]))
        # reading works anywhere, from the store; a wait sees the owner's move
        seen = await two.get_turn_state(match_id, them["token"])
        assert seen["cursor"] == (await one.get_turn_state(match_id, them["token"]))["cursor"]
        waiting = asyncio.create_task(two.get_turn_state(match_id, them["token"], since=seen["cursor"], wait_seconds=5))
        await asyncio.sleep(0.1)
        await one.perform_action(match_id, me["token"], "propose", {"mine": 60})
        assert (await waiting)["your_turn"]
        assert (await two.list_matches())["matches"][0]["match_id"] == match_id
        await refused(ErrorCode.FORBIDDEN, two.get_turn_state(match_id, "forged"))
        await one.close()
        await two.close()

    asyncio.run(scenario())


def test_a_dead_owners_match_is_adopted_once_its_lease_expires(location: str) -> None:
    async def scenario() -> None:
        one = stored_arena(location, "one", lease_seconds=1)
        me = await one.start_game("split_100", seed=1, name="me")
        them = await one.join_game(me["match_id"], name="them")
        two = stored_arena(location, "two", lease_seconds=1)
        await asyncio.sleep(1.2)  # "one" lives: it renews its lease
        await refused(ErrorCode.WRONG_OWNER, two.perform_action(me["match_id"], me["token"], "propose", {"mine": 55}))
        one._table.stop_renewing()  # "one" hangs: nothing renews its lease any more
        await asyncio.sleep(1.2)
        await two.perform_action(me["match_id"], me["token"], "propose", {"mine": 55})
        # the hung owner's copy is stale: its write is refused (nothing kept), and the copy forgotten
        await refused(ErrorCode.WRONG_OWNER, one.perform_action(me["match_id"], me["token"], "propose", {"mine": 99}))
        assert (await one.get_turn_state(me["match_id"], them["token"]))["your_turn"]  # read from the store
        await two.perform_action(me["match_id"], them["token"], "accept", {})
        assert (await one.get_result(me["match_id"]))["payoffs"] == {"me": 55.0, "them": 45.0}
        await one.close()
        await two.close()

    asyncio.run(scenario())


def test_a_process_that_lost_a_lease_forgets_its_copy(location: str) -> None:
    async def scenario() -> None:
        one = stored_arena(location, "one", lease_seconds=1)
        me = await one.start_game("split_100", seed=1, name="me")
        await one.join_game(me["match_id"], name="them")
        store = one.persistence.store  # type: ignore[union-attr]
        with store.engine.begin() as c:  # another process took the match over meanwhile
            c.execute(sa.text("UPDATE leases SET owner = 'two'"))
        await asyncio.sleep(0.8)  # one renewal later
        assert one.held(me["match_id"]) is None
        await refused(ErrorCode.WRONG_OWNER, one.perform_action(me["match_id"], me["token"], "propose", {"mine": 9}))
        await one.close()

    asyncio.run(scenario())


def test_leaving_before_the_start_frees_the_seat_or_abandons_the_match(location: str) -> None:
    async def scenario() -> None:
        arena = stored_arena(location)
        a = await arena.start_game("auction", name="a")
        b = await arena.join_game(a["match_id"], name="b")
        await arena.leave_game(a["match_id"], b["token"])
        store = arena.persistence.store  # type: ignore[union-attr]
        assert store.get_match(a["match_id"]).players == ["a"]  # type: ignore[union-attr]
        c = await arena.join_game(a["match_id"], name="c")
        assert c["agent_id"] == "c"
        await arena.leave_game(a["match_id"], a["token"])
        assert store.get_match(a["match_id"]).status == "abandoned"  # type: ignore[union-attr]
        restarted = stored_arena(location)
        assert await restarted.resume() == 0
        await refused(ErrorCode.UNKNOWN_MATCH, restarted.join_game(a["match_id"]))
        await arena.close()
        await restarted.close()

    asyncio.run(scenario())


def test_a_store_of_a_newer_version_or_of_something_else_is_refused(tmp_path: Path) -> None:
    newer = tmp_path / "newer.db"
    open_store(str(newer)).close()  # type: ignore[union-attr]
    with sqlite3.connect(newer) as c:
        c.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(SchemaMismatch, match="newer negotiation-platform"):
        open_store(str(newer))

    older = tmp_path / "older.db"
    open_store(str(older)).close()  # type: ignore[union-attr]
    with sqlite3.connect(older) as c:
        c.execute("UPDATE schema_version SET version = 0")
    with pytest.raises(SchemaMismatch, match="cannot upgrade"):
        open_store(str(older))

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE invoices (id INTEGER)")
    with pytest.raises(SchemaMismatch, match="not a match store"):
        open_store(str(other))


def test_an_older_store_is_upgraded_step_by_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from negotiation_platform.store import schema

    path = tmp_path / "old.db"
    open_store(str(path)).close()  # type: ignore[union-attr]
    with sqlite3.connect(path) as c:
        c.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION - 1,))
    steps: list[int] = []
    monkeypatch.setitem(schema.MIGRATIONS, SCHEMA_VERSION - 1, lambda connection: steps.append(1))
    open_store(str(path)).close()  # type: ignore[union-attr]
    with sqlite3.connect(path) as c:
        assert c.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    assert steps == [1]


def test_a_version_1_store_gains_seat_callers_and_contexts_and_its_matches_go_on(location: str) -> None:
    async def scenario() -> None:
        first = stored_arena(location)
        me = await first.start_game("split_100", seed=5, name="me")
        them = await first.join_game(me["match_id"], name="them")
        await first.close()
        store = first.persistence.store  # type: ignore[union-attr]
        with store.engine.begin() as c:  # the tables as version 1 made them
            for column in ("caller", "context_hash"):
                c.exec_driver_sql(f"ALTER TABLE seats DROP COLUMN {column}")
            c.exec_driver_sql("UPDATE schema_version SET version = 1")
        store.close()
        second = stored_arena(location)  # upgrades the store, then adopts its match
        assert await second.resume() == 1
        context = await second.bind_context(me["match_id"], them["token"])
        await second.perform_action(me["match_id"], me["token"], "propose", {"mine": 70})
        third = stored_arena(location, owner="two")  # another process reads the binding from the store
        assert await third.context_match(context) == me["match_id"]
        assert (await third.get_turn_state(me["match_id"], context))["agent_id"] == "them"
        with second.persistence.store.engine.connect() as c:  # type: ignore[union-attr]
            assert c.exec_driver_sql("SELECT version FROM schema_version").scalar() == SCHEMA_VERSION == 2
            assert context not in str(c.exec_driver_sql("SELECT * FROM seats").fetchall())  # only its hash

    asyncio.run(scenario())


def test_a_seat_context_ends_with_its_match(location: str) -> None:
    async def scenario() -> None:
        arena = stored_arena(location)
        me = await arena.start_game("split_100", name="me")
        context = await arena.bind_context(me["match_id"], me["token"])
        assert await arena.context_match(context) == me["match_id"]
        assert await arena.context_match(context[:-1] + ("A" if context[-1] != "A" else "B")) is None
        await arena.leave_game(me["match_id"], me["token"])  # abandoned: its seat, and context, are gone
        assert await arena.context_match(context) is None
        assert await stored_arena(location, owner="two").context_match(context) is None

    asyncio.run(scenario())


def test_sqlite_runs_in_wal_mode(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "wal.db"))
    assert store is not None
    with store.engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert c.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
    store.close()


def test_memory_keeps_nothing_and_paths_become_sqlite_urls(tmp_path: Path) -> None:
    from negotiation_platform.store import store_url

    assert open_store(":memory:") is None
    assert store_url(str(tmp_path / "x.db")) == f"sqlite:///{tmp_path / 'x.db'}"
    assert store_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    page = MatchQuery(status="finished")
    assert page.limit == 50
