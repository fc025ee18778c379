"""`MatchSource`: what the viewer reads, and nothing more.

`Arena` implements it, for the matches it holds in memory or, with a store, every match the store
keeps (`serve view` reads a store without ever playing). Every answer is already what a spectator
may see.
"""

from __future__ import annotations

from typing import Any, Protocol

from negotiation_platform.registry import Registry


class MatchSource(Protocol):
    registry: Registry

    async def list_matches(
        self,
        status: str | None = None,
        game_id: str | None = None,
        since: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> dict[str, Any]:
        """{"matches": [...], "next_cursor": ...}, newest first: id, game, status, players, round and,
        once finished, payoffs."""
        ...

    async def watch(self, match_id: str, since: int | None = None, wait_seconds: float = 0) -> dict[str, Any]:
        """The match's status and the events a spectator may see after cursor `since`, waiting up to
        `wait_seconds` for news (the arena's `watch` operation)."""
        ...

    async def spectate(self, match_id: str, at: int | None = None) -> dict[str, Any]:
        """`watch`'s answer with the game's public view (`view`) and the events seen (`events`) once event
        `at` was logged (default: now), for drawing boards and charts."""
        ...
