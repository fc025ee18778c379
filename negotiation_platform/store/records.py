"""What the store keeps of a match, as plain data: no database types, so the arena and readers
(a CLI, a web viewer, an analysis notebook) use it without importing a database library."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any

from negotiation_platform.engine.events import Event
from negotiation_platform.errors import ErrorCode, NegotiationError

STATUSES = ("waiting_for_players", "running", "finished", "abandoned")
"""A match waits for players, runs, finishes; or is abandoned before it starts (its creator left,
or nobody joined in time)."""
UNFINISHED = ("waiting_for_players", "running")


def token_hash(token: str) -> str:
    """What the store keeps of a seat token (or a caller's credential): its SHA-256, never the secret."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class WrongOwner(Exception):
    """Another arena process holds the match's lease; nothing was written."""

    def __init__(self, match_id: str, owner: str | None) -> None:
        super().__init__(f"match {match_id} is owned by {owner or 'nobody'}")
        self.match_id = match_id
        self.owner = owner


class StoreUnavailable(Exception):
    """The database refused or could not be reached; nothing was written."""


@dataclass(frozen=True)
class SeatRecord:
    agent_id: str
    name: str
    token_hash: str
    house: dict[str, Any] | None = None
    """For a seat the server plays itself (a built-in or remote agent): what rebuilds its player."""
    left: bool = False
    """The seat resigned (leave_game): its turns are default moves."""
    caller: str | None = None
    """The key of the caller that took it (hashes of its address and session; None for a house seat)."""
    context_hash: str | None = None
    """The hash of the A2A context id bound to the seat, a second credential for it (never the id itself)."""

    @property
    def agent(self) -> str:
        """Who played it: the server-side agent (e.g. `concession`, `a2a:URL`), else the name its client gave."""
        house = (self.house or {}).get("agent")
        return house if isinstance(house, str) else self.name


@dataclass(frozen=True)
class MatchRecord:
    """One match as stored. `seed` is secret until the match is finished: readers that show matches
    to anyone but the operator should use `public()`."""

    match_id: str
    game_id: str
    config: dict[str, Any]
    seed: int
    seats_total: int
    status: str
    created_at: float
    """Wall-clock seconds since the epoch, as are the other times."""
    creator: str | None = None
    """The key of whoever created it (hashes of their address and session): per-caller limits count by it."""
    seats: tuple[SeatRecord, ...] = ()
    started_at: float | None = None
    finished_at: float | None = None
    round: int = 0
    event_count: int = 0
    result: dict[str, Any] | None = None
    """Once finished: agreement, terms, payoffs, winner, rounds and the game's full `result`."""

    @property
    def players(self) -> list[str]:
        return [s.agent_id for s in self.seats]

    def public(self) -> dict[str, object]:
        """The record as JSON for anyone: everything but tokens, callers, and the seed while unfinished."""
        row: dict[str, object] = {
            "match_id": self.match_id,
            "game_id": self.game_id,
            "status": self.status,
            "config": self.config,
            "seats": {"filled": len(self.seats), "total": self.seats_total},
            "players": {s.agent_id: s.name for s in self.seats},
            "agents": {s.agent_id: s.agent for s in self.seats},
            "round": self.round,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }
        if self.status == "finished":
            row["seed"] = self.seed
        if self.result is not None:
            row.update(self.result)
        return row


@dataclass(frozen=True)
class MatchQuery:
    """Filters and one page of `list_matches`, newest first. `cursor` is the `next_cursor` of the
    page before (opaque); `since` keeps matches created at or after that wall-clock time."""

    status: str | None = None
    game_id: str | None = None
    since: float | None = None
    limit: int = 50
    cursor: str | None = None


@dataclass(frozen=True)
class MatchPage:
    matches: list[MatchRecord]
    next_cursor: str | None
    """Pass as `MatchQuery.cursor` for the next page; None on the last page."""


@dataclass
class MatchChange:
    """Everything one arena call changed in a match, written in one transaction with a lease check."""

    events: list[Event] = field(default_factory=list)
    status: str | None = None
    """Only when it changed (with `result` when it became finished)."""
    round: int | None = None
    result: dict[str, Any] | None = None
    seated: SeatRecord | None = None
    unseated: str | None = None
    left: str | None = None
    new_token_hash: tuple[str, str] | None = None
    """(agent_id, hash) of a server-played seat given a fresh token when its match is resumed."""
    context_hash: tuple[str, str] | None = None
    """(agent_id, hash) of a context id bound to the seat (see `arena.contexts`)."""


def cursor_of(last: MatchRecord) -> str:
    """The paging cursor after `last` (newest first: matches created before it, ties by id)."""
    return f"{last.created_at!r}/{last.match_id}"


def parse_cursor(cursor: str) -> tuple[float, str]:
    created, _, match_id = cursor.partition("/")
    try:
        value = float(created)
    except ValueError:
        value = math.nan
    if not match_id or not math.isfinite(value):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "cursor must be the next_cursor of an earlier list_matches.")
    return value, match_id
