"""Live matches and their seats, as the arena holds them in memory."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pydantic import JsonValue

from negotiation_platform.engine.events import Event
from negotiation_platform.engine.match import Match
from negotiation_platform.games.base_game import GameConfig
from negotiation_platform.registry import GameEntry


@dataclass
class Seat:
    agent_id: str
    token_hash: str
    name: str
    house: dict[str, JsonValue] | None = None
    """How to rebuild the player of a seat the server plays itself (see `Arena.join_game`)."""
    caller: str | None = None
    """The key of the caller that took it (`Caller.key`; None for a house seat): limits count by it."""
    context_hash: str | None = None
    """The hash of the seat's context id, a second credential for it (see `arena.contexts`)."""


@dataclass
class LiveMatch:
    """A match in the arena: its seats, and the engine's `Match` once every seat is filled."""

    match_id: str
    entry: GameEntry
    config: dict[str, JsonValue]
    seed: int
    seats_total: int
    creator: str | None = None
    """The key of the caller that created it (per-caller limits count by it)."""
    reserved: int = 0
    """Free seats held for the house players its `start_game` is seating (no one else may take them)."""
    created_at: float = field(default_factory=time.time)
    seats: list[Seat] = field(default_factory=list)
    match: Match | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    waiting: int = 0
    """How many callers wait on `changed` now."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.TimerHandle | None = None
    turn_started: dict[str, float] = field(default_factory=dict)
    """When each seat that must act now became due: its turn clock runs from there."""
    left: set[str] = field(default_factory=set)
    finished_at: float | None = None
    seated_at: float = 0.0
    """When a seat was last taken: a match still waiting for players long after that is abandoned."""
    stored_status: str | None = None
    """The status its store holds (writes send the status only when it changes)."""
    held_since: float = 0.0
    """When this process began to hold it (created or adopted), on the arena's clock."""
    follower: str | None = None
    """Set on a read-only copy rebuilt from the store: the process that owns the match (or "finished")."""
    event_count: int = 0
    """A read-only copy: the stored log length it was rebuilt from."""
    settings: GameConfig | None = field(default=None, repr=False, compare=False)
    """`config` as its game parsed it, where the arena did (a match started here): its matches start from
    it, not from `config` parsed again."""

    def players(self) -> list[str]:
        return [s.agent_id for s in self.seats]

    @property
    def match_config(self) -> GameConfig | dict[str, JsonValue]:
        """What its `Match` is made with: the parsed config where the arena kept it, else `config`."""
        return self.settings if self.settings is not None else self.config

    async def replayed(self, events: Iterable[Event], clock: Callable[[], float]) -> Match:
        """This match's game rebuilt from `events` (off the loop: replay runs the game's rules), as
        a rebuild from the store and an undo after a failing move both need it."""
        return await asyncio.to_thread(
            Match.replay,
            self.entry.cls,
            self.players(),
            events,
            config=self.match_config,
            seed=self.seed,
            match_id=self.match_id,
            clock=clock,
        )

    prompts: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Each seat's last prompt text and the length of the log it was built at: a prompt depends only
    on the game's state, which changes only with the log, so it is built once per turn, on demand."""

    @property
    def status(self) -> str:
        if self.match is None:
            return "waiting_for_players"
        return "finished" if self.match.finished else "running"

    def signal(self) -> None:
        """Wake everyone waiting on this match, and arm a fresh event for the next waiters."""
        if self.waiting:  # else nobody holds `changed`: it stays armed, unset
            self.changed.set()
            self.changed = asyncio.Event()
