"""An on-disk cache of chat-completion replies, so a re-run or a replay of the same seeds costs nothing.

A reply is keyed by everything that decides it: the endpoint's URL, the model, the messages and the
request's options (temperature, max_tokens, JSON mode). SQLite, one table; every agent of a process
that names the same file shares one connection. Kept: the reply text and the usage the endpoint
reported, or the fact that the endpoint refused JSON mode (so a cached re-run asks for it no more).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TypedDict

from pydantic import JsonValue


class CachedReply(TypedDict, total=False):
    """A stored reply (text, usage, tool calls), or the mark that the endpoint refused JSON mode."""

    text: str
    usage: dict[str, int]
    tool_calls: list[dict[str, JsonValue]]
    json_mode_refused: bool


def cache_key(
    endpoint: str, model: str, messages: Sequence[Mapping[str, object]], options: Mapping[str, object]
) -> str:
    """A stable digest of one request."""
    request = {"endpoint": endpoint, "model": model, "messages": messages, "options": options}
    return hashlib.sha256(json.dumps(request, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class ResponseCache:
    """Replies by request key in a SQLite file (created on first use)."""

    def __init__(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL)")

    def get(self, key: str) -> CachedReply | None:
        row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        stored: CachedReply = json.loads(row[0])  # written by `put` as one of these
        return stored

    def put(self, key: str, reply: Mapping[str, object]) -> None:
        self._db.execute("INSERT OR REPLACE INTO replies (key, reply) VALUES (?, ?)", (key, json.dumps(reply)))


@cache
def open_cache(path: str) -> ResponseCache:
    """The process's one cache for `path` (agents are made per match; the file stays open)."""
    return ResponseCache(path)
