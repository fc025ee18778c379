"""Events with their plain words attached, for pages, transcripts and prompts that show them to a reader.

The words come from the game's `describe_event`; one that fails (a plugin's bug, an event its rules did
not expect) falls back on the default text, so a page never breaks over a sentence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from negotiation_platform.spec.narration import Happening, default_text

if TYPE_CHECKING:
    from negotiation_platform.games.base_game import BaseGame, GameConfig


def event_text(game: BaseGame[GameConfig] | None, event: Mapping[str, object], reader: str | None) -> str:
    """`event` (its JSON) in words from `reader`'s side (None: a spectator's), by `game` when there is one."""
    happening = Happening.read(event)
    if game is None:
        return default_text(happening, reader)
    try:
        return game.describe_event(happening, reader)
    except Exception:  # a game's wording must never break the page that shows it
        return default_text(happening, reader)


def narrated(
    game: BaseGame[GameConfig] | None, events: Iterable[Mapping[str, object]], reader: str | None
) -> list[dict[str, object]]:
    """Copies of `events` (their JSON), each with `text`: what it says to `reader`."""
    return [{**event, "text": event_text(game, event, reader)} for event in events]
