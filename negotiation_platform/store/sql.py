"""`SqlStore`: match records, event logs and ownership leases in SQLite or PostgreSQL (SQLAlchemy Core).

Every method is synchronous and short; the arena calls them off its event loop. Writes of one
arena call are one transaction (`apply`), which first renews the caller's lease on the match and
fails with `WrongOwner` when another process holds it, so two processes never both write a match.

SQLite runs in WAL mode with `synchronous=NORMAL`: a committed write survives a crash of the
process; a power cut or OS crash can lose the last transactions (never corrupt the file).
Write transactions begin IMMEDIATE, so concurrent writers queue on the lock (busy timeout)
instead of failing halfway.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine.interfaces import DBAPIConnection

from negotiation_platform.engine.events import Event, EventKind
from negotiation_platform.store import masked, schema
from negotiation_platform.store.records import (
    UNFINISHED,
    MatchChange,
    MatchPage,
    MatchQuery,
    MatchRecord,
    SeatRecord,
    StoreUnavailable,
    WrongOwner,
    cursor_of,
    parse_cursor,
)

SQLITE_BUSY_SECONDS = 30.0
READ_ONLY = "negotiation_read_only"
"""Execution option: a transaction that only reads (SQLite begins it DEFERRED, not IMMEDIATE)."""
MAX_PAGE = 1000


class SqlStore:
    """The store behind an SQLAlchemy URL (see `negotiation_platform.store.open_store`)."""

    def __init__(self, url: str, *, clock: Callable[[], float] = time.time) -> None:
        self.url = sa.make_url(url)
        self.clock = clock
        self.engine = _engine(self.url)
        self._write_lock = threading.Lock()
        self._writer = self.engine.raw_connection() if self.url.get_backend_name() == "sqlite" else None
        self._compiled = {
            name: str(statement.compile(dialect=self.engine.dialect)) for name, statement in WRITES.items()
        }
        with self._writing() as connection:
            schema.prepare(connection, self.describe())

    def describe(self) -> str:
        """Where the store is, for messages (never the password)."""
        return masked(self.url.render_as_string(hide_password=False))

    def __repr__(self) -> str:
        return f"SqlStore({self.describe()!r})"

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self.engine.dispose()

    # --- writing ------------------------------------------------------------------------------

    def create(self, record: MatchRecord, owner: str, lease_seconds: float) -> None:
        """A new match with its first seat, leased to `owner`."""
        now = self.clock()
        with self._transaction() as run:
            run(
                "create",
                {
                    "match_id": record.match_id,
                    "game_id": record.game_id,
                    "config": _json(record.config),
                    "seed": str(record.seed),
                    "seats_total": record.seats_total,
                    "status": record.status,
                    "creator": record.creator,
                    "created_at": record.created_at,
                    "started_at": now if record.status == "running" else None,
                    "finished_at": None,
                    "updated_at": now,
                    "round": 0,
                    "event_count": 0,
                    "result": None,
                },
            )
            run("lease", {"match_id": record.match_id, "owner": owner, "expires_at": now + lease_seconds})
            for seat in record.seats:
                run("seat", _seat_row(record.match_id, seat))

    def apply(self, match_id: str, owner: str, change: MatchChange, lease_seconds: float) -> None:
        """Write one call's change, renewing `owner`'s lease; `WrongOwner` (and nothing written) if it lost it."""
        now = self.clock()
        with self._transaction() as run:
            if run("renew", {"m": match_id, "o": owner, "until": now + lease_seconds}) != 1:
                raise WrongOwner(match_id, self.owner(match_id))
            if change.seated is not None:
                run("seat", _seat_row(match_id, change.seated))
            if change.unseated is not None:
                run("unseat", {"m": match_id, "a": change.unseated})
            if change.left is not None:
                run("leave", {"m": match_id, "a": change.left})
            if change.new_token_hash is not None:
                run("retoken", {"m": match_id, "a": change.new_token_hash[0], "h": change.new_token_hash[1]})
            if change.context_hash is not None:
                run("bind", {"m": match_id, "a": change.context_hash[0], "h": change.context_hash[1]})
            if change.events:
                run("events", [_event_row(match_id, e) for e in change.events])
            count = change.events[-1].seq if change.events else None
            run("progress", {"m": match_id, "now": now, "count": count, "round": change.round})
            if change.status is not None:
                run(
                    "settle",
                    {
                        "m": match_id,
                        "status": change.status,
                        "started": now if change.status == "running" else None,
                        "finished": now if change.status == "finished" else None,
                        "result": None if change.result is None else _json(change.result),
                    },
                )
            if change.status in ("finished", "abandoned"):
                run("release", {"m": match_id})

    # --- ownership ------------------------------------------------------------------------------

    def claim(self, match_id: str, owner: str, lease_seconds: float) -> str | None:
        """Take the lease of an unfinished match if it is free, expired or already ours; else the holder."""
        now = self.clock()
        with self._writing() as c:
            taken = c.execute(
                schema.leases.update()
                .where(
                    schema.leases.c.match_id == match_id,
                    sa.or_(schema.leases.c.owner == owner, schema.leases.c.expires_at < now),
                )
                .values(owner=owner, expires_at=now + lease_seconds)
            )
            if taken.rowcount == 1:
                return None
            return self._owner(c, match_id) or "nobody (the match is not live)"

    def renew(self, owner: str, lease_seconds: float) -> set[str]:
        """Extend every lease `owner` holds (a live process does this well before they expire); returns
        the matches it still holds, so it can forget those another process has taken over."""
        with self._writing() as c:
            renewed = c.execute(
                schema.leases.update()
                .where(schema.leases.c.owner == owner)
                .values(expires_at=self.clock() + lease_seconds)
                .returning(schema.leases.c.match_id)
            )
            return {row.match_id for row in renewed}

    def release(self, owner: str) -> None:
        """Give up every lease `owner` holds (a clean shutdown), so another process may adopt them at once."""
        with self._writing() as c:
            c.execute(schema.leases.update().where(schema.leases.c.owner == owner).values(expires_at=0.0))

    def adoptable(self, owner: str) -> list[str]:
        """Unfinished matches whose lease is `owner`'s or has expired, oldest first."""
        m, lease = schema.matches, schema.leases
        query = (
            sa.select(m.c.match_id)
            .join(lease, lease.c.match_id == m.c.match_id)
            .where(m.c.status.in_(UNFINISHED), sa.or_(lease.c.owner == owner, lease.c.expires_at < self.clock()))
            .order_by(m.c.created_at, m.c.match_id)
        )
        with self._reading() as c:
            return [row.match_id for row in c.execute(query)]

    def owner(self, match_id: str) -> str | None:
        with self._reading() as c:
            return self._owner(c, match_id)

    @staticmethod
    def _owner(c: sa.Connection, match_id: str) -> str | None:
        owner: str | None = c.execute(
            sa.select(schema.leases.c.owner).where(schema.leases.c.match_id == match_id)
        ).scalar()
        return owner

    # --- reading --------------------------------------------------------------------------------

    def get_match(self, match_id: str) -> MatchRecord | None:
        with self._reading() as c:
            return _match(c, match_id)

    def snapshot(self, match_id: str) -> tuple[MatchRecord, list[Event]] | None:
        """The match and its whole event log as of one moment, or None if there is no such match.

        Read in one transaction that sees one snapshot of the database (SQLite's WAL does so; PostgreSQL
        at REPEATABLE READ), so a match another process moves on meanwhile is never read half before
        and half after one of its writes (a record of 29 events beside a log of 33)."""
        with self._reading(snapshot=True) as c:
            record = _match(c, match_id)
            return None if record is None else (record, [_event(row) for row in c.execute(_log(match_id))])

    def list_matches(self, query: MatchQuery) -> MatchPage:
        """One page of matches, newest first, after the filters of `query`."""
        m = schema.matches
        limit = max(1, min(query.limit, MAX_PAGE))
        select = sa.select(m).order_by(m.c.created_at.desc(), m.c.match_id.desc()).limit(limit + 1)
        if query.status is not None:
            select = select.where(m.c.status == query.status)
        if query.game_id is not None:
            select = select.where(m.c.game_id == query.game_id)
        if query.since is not None:
            select = select.where(m.c.created_at >= query.since)
        if query.cursor is not None:
            created, match_id = parse_cursor(query.cursor)
            select = select.where(
                sa.or_(m.c.created_at < created, sa.and_(m.c.created_at == created, m.c.match_id < match_id))
            )
        with self._reading() as c:
            rows = list(c.execute(select))
            page = rows[:limit]
            seats = _seats_of(c, [r.match_id for r in page])
        records = [_record(r, seats.get(r.match_id, ())) for r in page]
        more = len(rows) > limit
        return MatchPage(records, cursor_of(records[-1]) if more else None)

    def iter_matches(self, query: MatchQuery) -> Iterator[MatchRecord]:
        """Every match after the filters of `query`, page by page (for exports of any size)."""
        while True:
            page = self.list_matches(query)
            yield from page.matches
            if page.next_cursor is None:
                return
            query = MatchQuery(query.status, query.game_id, query.since, query.limit, page.next_cursor)

    def events(self, match_id: str, since: int = 0, *, public_only: bool = False) -> list[Event]:
        """The match's event log after sequence number `since`, as the engine wrote it (visibility
        included); `public_only` keeps the events every player sees (what a spectator may watch
        while the match runs)."""
        select = _log(match_id, since)
        if public_only:
            select = select.where(schema.events.c.visible_to.is_(None))
        with self._reading() as c:
            return [_event(row) for row in c.execute(select)]

    @contextmanager
    def _writing(self) -> Iterator[sa.Connection]:
        """One write transaction, committed at the end; a database failure is a `StoreUnavailable`."""
        with self._failures(), self.engine.begin() as connection:
            yield connection

    @contextmanager
    def _transaction(self) -> Iterator[Callable[[str, Rows], int]]:
        """One write transaction on the driver's connection; yields run(statement name, parameters
        (a dict, or a list of them)) -> rows affected. Committed at the end, rolled back on any error.

        SQLite has one writer at a time anyway, so this process writes through one connection kept
        open, one transaction at a time (no pool round trip, a warm page cache); PostgreSQL writes
        concurrently through the pool."""
        with self._failures():
            if self._writer is not None:
                with self._write_lock:
                    yield from _run_transaction(self._writer, self._compiled, sqlite=True)
                return
            connection = self.engine.raw_connection()
            try:
                yield from _run_transaction(connection, self._compiled, sqlite=False)
            finally:
                connection.close()

    @contextmanager
    def _reading(self, *, snapshot: bool = False) -> Iterator[sa.Connection]:
        """A read transaction; with `snapshot`, all its statements see the database as of one moment."""
        options: dict[str, Any] = {READ_ONLY: True}
        if snapshot and self.url.get_backend_name() == "postgresql":
            options["isolation_level"] = "REPEATABLE READ"  # at READ COMMITTED, each statement sees its own moment
        with self._failures(), self.engine.connect() as connection:
            yield connection.execution_options(**options)

    @contextmanager
    def _failures(self) -> Iterator[None]:
        try:
            yield
        except (sa.exc.SQLAlchemyError, self.engine.dialect.loaded_dbapi.Error) as exc:
            reason = masked(" ".join(str(getattr(exc, "orig", None) or exc).split()))[:300]
            raise StoreUnavailable(f"{self.describe()}: {type(exc).__name__}: {reason}") from exc


Rows = Mapping[str, object] | Sequence[Mapping[str, object]]
"""The parameters of one statement: a row, or the rows of an `executemany`."""


def _run_transaction(
    connection: DBAPIConnection, compiled: dict[str, str], *, sqlite: bool
) -> Iterator[Callable[[str, Rows], int]]:
    cursor = connection.cursor()

    def run(name: str, parameters: Rows) -> int:
        if isinstance(parameters, list) and len(parameters) > 1:
            cursor.executemany(compiled[name], parameters)
        else:
            cursor.execute(compiled[name], parameters[0] if isinstance(parameters, list) else parameters)
        return int(cursor.rowcount)

    try:
        if sqlite:
            cursor.execute("BEGIN IMMEDIATE")
        yield run
        connection.commit()
    except BaseException:
        connection.rollback()
        raise


_m, _lease, _seats = schema.matches, schema.leases, schema.seats
_one_seat = sa.and_(_seats.c.match_id == sa.bindparam("m"), _seats.c.agent_id == sa.bindparam("a"))
WRITES: dict[str, sa.ClauseElement] = {
    "create": _m.insert(),
    "lease": _lease.insert(),
    "renew": _lease.update()
    .where(_lease.c.match_id == sa.bindparam("m"), _lease.c.owner == sa.bindparam("o"))
    .values(expires_at=sa.bindparam("until")),
    "release": _lease.delete().where(_lease.c.match_id == sa.bindparam("m")),
    "seat": _seats.insert().values(
        match_id=sa.bindparam("match_id"),
        agent_id=sa.bindparam("agent_id"),
        position=sa.select(
            sa.func.coalesce(sa.func.max(_seats.c.position), sa.literal_column("-1")) + sa.literal_column("1")
        )
        .where(_seats.c.match_id == sa.bindparam("match_id"))
        .scalar_subquery(),
        name=sa.bindparam("name"),
        token_hash=sa.bindparam("token_hash"),
        house=sa.bindparam("house"),
        left_match=sa.bindparam("left_match"),
        caller=sa.bindparam("caller"),
        context_hash=sa.bindparam("context_hash"),
    ),
    "unseat": _seats.delete().where(_one_seat),
    "leave": _seats.update().where(_one_seat).values(left_match=sa.true()),
    "retoken": _seats.update().where(_one_seat).values(token_hash=sa.bindparam("h")),
    "bind": _seats.update().where(_one_seat).values(context_hash=sa.bindparam("h")),
    "events": schema.events.insert(),
    "progress": _m.update()
    .where(_m.c.match_id == sa.bindparam("m"))
    .values(
        updated_at=sa.bindparam("now"),
        event_count=sa.func.coalesce(sa.bindparam("count", type_=sa.Integer), _m.c.event_count),
        round=sa.func.coalesce(sa.bindparam("round", type_=sa.Integer), _m.c.round),
    ),
    "settle": _m.update()
    .where(_m.c.match_id == sa.bindparam("m"))
    .values(
        status=sa.bindparam("status"),
        started_at=sa.func.coalesce(_m.c.started_at, sa.bindparam("started", type_=sa.Float)),
        finished_at=sa.func.coalesce(_m.c.finished_at, sa.bindparam("finished", type_=sa.Float)),
        result=sa.func.coalesce(sa.bindparam("result", type_=sa.JSON), _m.c.result),
    ),
}
"""Every statement that writes, built once and compiled once per database: an arena call's write runs
them on the driver's connection with named parameters (JSON values passed as text), because building
and executing statements through SQLAlchemy on every call would cost more than the database's own work
(benchmarks/store.py measures what the store costs a move).
In "progress", a value left None keeps what is stored; "settle" runs only when the status changes
(writing an indexed column costs more than the rest of a move), and sets start and finish times once."""


def _engine(url: sa.URL) -> sa.Engine:
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_SECONDS},
            json_serializer=_json,
            paramstyle="named",
        )
        sa.event.listen(engine, "connect", _sqlite_connected)
        sa.event.listen(engine, "begin", _sqlite_begin)
        return engine
    if url.get_backend_name() == "postgresql":
        return sa.create_engine(url.set(drivername="postgresql+psycopg"), pool_pre_ping=True, json_serializer=_json)
    raise ValueError(
        masked(f"unsupported store {url.render_as_string(hide_password=False)}: use a file path or postgresql://")
    )


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


def _sqlite_connected(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # transactions are begun by _sqlite_begin, not by the driver
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(connection: sa.Connection) -> None:
    read_only = connection.get_execution_options().get(READ_ONLY, False)
    connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def _match(c: sa.Connection, match_id: str) -> MatchRecord | None:
    row = c.execute(sa.select(schema.matches).where(schema.matches.c.match_id == match_id)).first()
    return None if row is None else _record(row, _seats_of(c, [match_id]).get(match_id, ()))


def _log(match_id: str, since: int = 0) -> sa.Select[Any]:
    """The match's events after sequence number `since`, in order."""
    e = schema.events
    return sa.select(e).where(e.c.match_id == match_id, e.c.seq > since).order_by(e.c.seq)


def _seat_row(match_id: str, seat: SeatRecord) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "agent_id": seat.agent_id,
        "name": _json(seat.name),
        "token_hash": seat.token_hash,
        "house": None if seat.house is None else _json(seat.house),
        "left_match": seat.left,
        "caller": seat.caller,
        "context_hash": seat.context_hash,
    }


def _seats_of(c: sa.Connection, match_ids: list[str]) -> dict[str, tuple[SeatRecord, ...]]:
    if not match_ids:
        return {}
    s = schema.seats
    found: dict[str, list[SeatRecord]] = {}
    for row in c.execute(sa.select(s).where(s.c.match_id.in_(match_ids)).order_by(s.c.match_id, s.c.position)):
        found.setdefault(row.match_id, []).append(
            SeatRecord(
                row.agent_id, row.name, row.token_hash, row.house, bool(row.left_match), row.caller, row.context_hash
            )
        )
    return {k: tuple(v) for k, v in found.items()}


def _record(row: sa.Row[Any], seats: tuple[SeatRecord, ...]) -> MatchRecord:
    return MatchRecord(
        match_id=row.match_id,
        game_id=row.game_id,
        config=row.config,
        seed=int(row.seed),
        seats_total=row.seats_total,
        status=row.status,
        created_at=row.created_at,
        creator=row.creator,
        seats=seats,
        started_at=row.started_at,
        finished_at=row.finished_at,
        round=row.round,
        event_count=row.event_count,
        result=row.result,
    )


def _event_row(match_id: str, event: Event) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "seq": event.seq,
        "kind": event.kind.value,
        "round": event.round,
        "phase": event.phase,
        "actor": event.actor,
        "data": _json(event.data),
        "visible_to": None if event.visible_to is None else _json(list(event.visible_to)),
    }


def _event(row: sa.Row[Any]) -> Event:
    return Event(
        seq=row.seq,
        kind=EventKind(row.kind),
        round=row.round,
        phase=row.phase,
        actor=row.actor,
        data=row.data,
        visible_to=tuple(row.visible_to) if row.visible_to is not None else None,
    )
