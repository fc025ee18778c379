"""Hook specifications: what a plugin distribution may contribute.

Plugins implement these with `@hookimpl` in a module named by an entry point, e.g.::

    [project.entry-points."negotiation_platform.games"]
    my_games = "my_package.plugin"
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from negotiation_platform.registry.kernel_factory import KernelFactory

PROJECT = "negotiation_platform"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_games() -> list[type[Any]]:
    """Return the `BaseGame` subclasses this plugin provides."""
    raise NotImplementedError


@hookspec
def register_agents() -> dict[str, Any]:
    """Return scripted agents by name: factories `f(seed: int) -> Agent`."""
    raise NotImplementedError


@hookspec
def register_transports() -> dict[str, Any]:
    """Return transports by name (e.g. "mcp", "a2a"): objects that can serve an arena."""
    raise NotImplementedError


@hookspec
def register_kernels() -> dict[str, KernelFactory]:
    """Return JAX kernels by game id, as `KernelFactory` functions that import JAX only when called
    ("module:Class" import paths still work for one release, deprecated)."""
    raise NotImplementedError


@hookspec(firstresult=True)
def render_board(game_id: str, view: dict[str, Any], events: list[dict[str, Any]]) -> str | None:
    """Draw a game's board for the match viewer, as an HTML fragment (inline SVG welcome); None for
    games this plugin does not draw.

    `view` is the game's `public_view()`; once a match is over on a server that reveals finished
    matches it also holds `seats`, every seat's own view by agent id. `events` are the events the
    spectator may see up to this point, oldest first. Escape every text that comes from players.
    The first plugin to answer draws the board.
    """
    raise NotImplementedError
