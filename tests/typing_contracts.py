# mypy: warn-unused-ignores
"""Typing contracts of the public seams, checked by `tox -e type` (mypy strict) and never run.

Each `type: ignore[...]` below marks a line mypy must reject: with warn-unused-ignores, an ignore that
is no longer needed (the mistake type-checks again) fails the run. Each `assert_type` pins a public type.
"""

from __future__ import annotations

from typing import assert_type

from negotiation_platform.games.base_game import BaseGame, GameConfig, PlayerAction
from negotiation_platform.games.split_100 import Split100Game
from negotiation_platform.registry import GameEntry, Registry


def misspelled_method(game: Split100Game, action: PlayerAction) -> None:
    """`BaseGame.__getattr__` (config values as attributes) is invisible to type checkers: a typo is an error."""
    game.proces_action(action)  # type: ignore[attr-defined]
    game.process_action(action)


def registry_answers(registry: Registry) -> None:
    assert_type(registry.games(), dict[str, GameEntry])
    assert_type(registry.game("split_100").cls, type[BaseGame[GameConfig]])


def games_are_base_games(game: Split100Game) -> BaseGame[GameConfig]:
    """A game of any config is a `BaseGame[GameConfig]` (the config type is covariant)."""
    return game
