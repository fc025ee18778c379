"""The store's SQL schema, one for SQLite and PostgreSQL, and its version check.

`prepare(engine)` creates the tables in an empty database, upgrades one written by an older
version of this package through `MIGRATIONS`, and refuses (with `SchemaMismatch`, a message saying
what to do) a database written by a newer version, or one that holds other tables but no
negotiation-platform schema: a store is never silently misread.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

SCHEMA_VERSION = 2
"""Bump it with every change of the tables below, and add the step from the version before to MIGRATIONS."""

metadata = sa.MetaData()

schema_version = sa.Table("schema_version", metadata, sa.Column("version", sa.Integer, nullable=False))

matches = sa.Table(
    "matches",
    metadata,
    sa.Column("match_id", sa.String(64), primary_key=True),
    sa.Column("game_id", sa.String(128), nullable=False),
    sa.Column("config", sa.JSON, nullable=False),
    sa.Column("seed", sa.String(64), nullable=False),  # text: a reproducible seed may be any integer
    sa.Column("seats_total", sa.Integer, nullable=False),
    sa.Column("status", sa.String(32), nullable=False),
    sa.Column("creator", sa.String(64)),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("started_at", sa.Float),
    sa.Column("finished_at", sa.Float),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Column("round", sa.Integer, nullable=False, default=0),
    sa.Column("event_count", sa.Integer, nullable=False, default=0),
    sa.Column("result", sa.JSON),
    sa.Index("matches_by_status", "status", "created_at"),
    sa.Index("matches_by_game", "game_id", "created_at"),
    sa.Index("matches_by_time", "created_at"),
)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.match_id", ondelete="CASCADE"), primary_key=True),
    sa.Column("agent_id", sa.String(64), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("name", sa.JSON, nullable=False),  # JSON: a display name may hold characters a text column cannot
    sa.Column("token_hash", sa.String(64), nullable=False),
    sa.Column("house", sa.JSON),
    sa.Column("left_match", sa.Boolean, nullable=False, default=False),
    sa.Column("caller", sa.String(64)),  # version 2
    sa.Column("context_hash", sa.String(64)),  # version 2
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.match_id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("phase", sa.String(128)),
    sa.Column("actor", sa.String(64)),
    sa.Column("data", sa.JSON, nullable=False),
    sa.Column("visible_to", sa.JSON),
    sqlite_with_rowid=False,  # SQLite: one b-tree, keyed by (match_id, seq), so an append writes fewer pages
)

leases = sa.Table(
    "leases",
    metadata,
    sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.match_id", ondelete="CASCADE"), primary_key=True),
    sa.Column("owner", sa.String(256), nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
    sa.Index("leases_by_owner", "owner"),
)


def _seat_callers_and_contexts(connection: sa.Connection) -> None:
    """Version 2: each seat keeps who took it (per-caller limits) and the hash of its A2A context id."""
    for column in ("caller", "context_hash"):
        connection.execute(sa.text(f"ALTER TABLE seats ADD COLUMN {column} VARCHAR(64)"))


MIGRATIONS: dict[int, Callable[[sa.Connection], None]] = {1: _seat_callers_and_contexts}
"""version -> the step that upgrades a store of that version to version + 1, run in one transaction."""


class SchemaMismatch(RuntimeError):
    """The database is not a store this version can read; the message says why and what to do."""


def prepare(connection: sa.Connection, where: str) -> None:
    """Create, upgrade or refuse the schema, inside the caller's transaction (which serialises
    concurrent starters: SQLite by its write lock, PostgreSQL by an advisory lock)."""
    if connection.dialect.name == "postgresql":
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(4242000001)"))
    tables = set(sa.inspect(connection).get_table_names())
    if not tables:
        metadata.create_all(connection)
        connection.execute(schema_version.insert().values(version=SCHEMA_VERSION))
        return
    if schema_version.name not in tables:
        raise SchemaMismatch(
            f"{where} holds tables ({', '.join(sorted(tables))}) but no negotiation-platform schema version: "
            "it is not a match store. Point --store at a new file or an empty database."
        )
    version = connection.execute(sa.select(schema_version.c.version)).scalar()
    if version is None:
        raise SchemaMismatch(f"{where} has an empty schema_version table; it cannot be read safely.")
    if version > SCHEMA_VERSION:
        raise SchemaMismatch(
            f"{where} was written by a newer negotiation-platform (store schema {version}; this version reads "
            f"schema {SCHEMA_VERSION}). Upgrade negotiation-platform to use it."
        )
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise SchemaMismatch(
                f"{where} has store schema {version}, which this version ({SCHEMA_VERSION}) cannot upgrade; "
                "export its results with the version that wrote it, then start a new store."
            )
        step(connection)
        version += 1
        connection.execute(schema_version.update().values(version=version))
