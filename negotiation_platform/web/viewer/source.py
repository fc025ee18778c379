"""`MatchSource`: what the viewer reads, and nothing more.

`Arena` implements it, for the matches it holds in memory or, with a store, every match the store
keeps (`serve view` reads a store without ever playing). Besides `spectate`, the viewer reads the
catalogue operations `VIEWER_READS`, which a source implements as the catalogue declares them and
the viewer calls through the catalogue's boundary (`dispatch`). Every answer is already what a
spectator may see.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from negotiation_platform.registry import Registry

if TYPE_CHECKING:
    from negotiation_platform.arena.live import LiveMatch

VIEWER_READS = ("list_matches", "watch")
"""The catalogue operations a source implements: the match list and a spectator's view of one match."""


class MatchSource(Protocol):
    registry: Registry

    async def spectate(self, match_id: str, at: int | None = None) -> dict[str, Any]:
        """`watch`'s answer with the game's public view (`view`) and the events seen (`events`) once event
        `at` was logged (default: now), for drawing boards and charts."""
        ...

    def held(self, match_id: str) -> LiveMatch | None:
        """The match if this process holds it (its game says its events in words; None: default words)."""
        ...
