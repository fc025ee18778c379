"""`MatchSource`: what the viewer reads, and nothing more.

`Arena` implements it for the matches it holds in memory; a durable store can implement the same
three reads for matches recorded on disk. Every answer is already what a spectator may see.
"""

from __future__ import annotations

from typing import Any, Protocol

from negotiation_platform.registry import Registry


class MatchSource(Protocol):
    registry: Registry

    async def list_matches(self, game_id: str | None = None) -> dict[str, Any]:
        """{"matches": [...]}, oldest first: id, game, status, players, round and, once finished, payoffs."""
        ...

    async def watch(self, match_id: str, since: int | None = None, wait_seconds: float = 0) -> dict[str, Any]:
        """The match's status and the events a spectator may see after cursor `since`, waiting up to
        `wait_seconds` for news (the arena's `watch` operation)."""
        ...

    async def spectate(self, match_id: str, at: int | None = None) -> dict[str, Any]:
        """`watch`'s answer with the game's public view (`view`) and the events seen (`events`) once event
        `at` was logged (default: now), for drawing boards and charts."""
        ...
