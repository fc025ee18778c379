"""Durable matches: where match records and event logs live, so a restarted server goes on.

A store keeps, per match, its record (game, config, seed, seats with their tokens stored as
SHA-256 hashes, status, times and, once finished, the result) and its whole event log with each
event's visibility, written in the same transaction as the answer to the call that caused it.
The engine is deterministic, so replaying the stored input events rebuilds a match exactly.

Locations (`open_store`): `:memory:` keeps nothing (the arena's matches live in its memory only);
a file path is an SQLite database (WAL); a `postgresql://` URL is a PostgreSQL database that
several arena processes share. Both use one schema, versioned (see `schema`).

Reading the past, without replaying anything (`SqlStore`):

* `list_matches(MatchQuery(status=, game_id=, since=, limit=, cursor=))` -> `MatchPage`
  (newest first; `next_cursor` fetches the next page); `iter_matches(query)` walks them all;
* `get_match(match_id)` -> `MatchRecord` (seats, status, times, `result` once finished);
  `record.public()` is its JSON with the seed left out until the match is finished;
* `events(match_id, since=0, public_only=False)` -> the `Event`s of its log with their visibility;
  `public_only` keeps what every player sees;
* `snapshot(match_id)` -> its record and whole log read as of one moment (while another process
  may be moving the match on), to rebuild it from.

Importing this package does not import SQLAlchemy; `open_store` does, when it opens a database.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from negotiation_platform.store.records import (
    STATUSES,
    MatchChange,
    MatchPage,
    MatchQuery,
    MatchRecord,
    SeatRecord,
    token_hash,
)

if TYPE_CHECKING:
    from negotiation_platform.store.sql import SqlStore

MEMORY = ":memory:"
STORE_ENV = "NEGOTIATION_STORE"
"""The default store location when no --store is given (a URL with a password belongs here, not in argv)."""

__all__ = [
    "MEMORY",
    "STATUSES",
    "STORE_ENV",
    "MatchChange",
    "MatchPage",
    "MatchQuery",
    "MatchRecord",
    "SeatRecord",
    "default_location",
    "masked",
    "open_store",
    "token_hash",
]


def default_location() -> str:
    """`$NEGOTIATION_STORE`, else `negotiation.db` in the user's data directory."""
    configured = os.environ.get(STORE_ENV, "").strip()
    if configured:
        return configured
    return str(_data_dir() / "negotiation-platform" / "negotiation.db")


def _data_dir() -> Path:
    home = Path.home()
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    if sys.platform == "darwin":
        return home / "Library" / "Application Support"
    return Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")


_URL_PASSWORD = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*):\S*@")
_PASSWORD_PARAMETER = re.compile(r"(\bpassword=)[^&\s]*", re.IGNORECASE)
MASK = "***"


def masked(text: str) -> str:
    """`text` with every password in it replaced by `***`: a URL's (`scheme://user:***@host`, up to
    the last `@` of the word, so a password holding a raw `@` is hidden whole) and `password=` parameters.
    Every message, log line, help text and repr that may hold a store location passes through here."""
    if "@" not in text and "password=" not in text.lower():
        return text
    return _PASSWORD_PARAMETER.sub(rf"\1{MASK}", _URL_PASSWORD.sub(rf"\1:{MASK}@", text))


def store_url(location: str) -> str | None:
    """The SQLAlchemy URL of a store location; None for `:memory:` (no store)."""
    if location == MEMORY:
        return None
    if location.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        return "postgresql+psycopg://" + location.split("://", 1)[1]
    if location.startswith("sqlite:"):
        return location
    return "sqlite:///" + str(Path(location).expanduser().resolve())


def open_store(location: str) -> SqlStore | None:
    """The store at `location` (see the module docstring), or None for `:memory:`.

    Raises `SchemaMismatch` for a database this version must not read, `StoreUnavailable` for one
    that cannot be reached, and ValueError for a location it cannot use; each message says why.
    """
    url = store_url(location)
    if url is None:
        return None
    if url.startswith("postgresql") and not _has_module("psycopg"):
        raise SystemExit(
            "a postgresql:// store needs the 'postgres' extra: pip install 'negotiation-platform[postgres]'"
        )
    from negotiation_platform.store.sql import SqlStore

    return SqlStore(url)


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
