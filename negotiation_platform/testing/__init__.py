"""Tools for game authors: `check_game` plays a game and checks what every game must satisfy.

Imported only when asked for (the core never imports it). Its pytest plugin, registered through
the `pytest11` entry point, offers the same function as the `check_game` fixture.
"""

from negotiation_platform.testing.checks import GameCheckError, check_game

__all__ = ["GameCheckError", "check_game"]
