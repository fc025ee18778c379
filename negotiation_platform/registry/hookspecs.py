"""Hook specifications: what a plugin distribution may contribute.

Plugins implement these with `@hookimpl` in a module named by an entry point, e.g.::

    [project.entry-points."negotiation_platform.games"]
    my_games = "my_package.plugin"
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from pydantic import JsonValue

    from negotiation_platform.games.base_game import BaseGame, GameConfig
    from negotiation_platform.registry.kernel_factory import KernelFactory
    from negotiation_platform.registry.plugin_types import AgentFactory, TransportPlugin

PROJECT = "negotiation_platform"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_games() -> list[type[BaseGame[GameConfig]]]:
    """Return the games this plugin provides.

    :return: `BaseGame` subclasses; one that is not, or whose spec or `Config` is invalid, is left out
        and reported in `Registry.problems`, and the others still load.
    """
    raise NotImplementedError


@hookspec
def register_agents() -> dict[str, AgentFactory]:
    """Return agent kinds by name.

    :return: factories called as `factory(seed=..., name=..., **options)` (plus `target=` for a kind
        whose factory says `needs_target = True`, named `kind:TARGET`), each returning an `Agent`
        (`plugin_types.AgentFactory`); an offer that is not callable is left out and reported.
    """
    raise NotImplementedError


@hookspec
def register_transports() -> dict[str, TransportPlugin]:
    """Return transports by name (e.g. "mcp", "a2a").

    :return: objects satisfying the `Transport` protocol (`plugin_types.TransportPlugin` as the
        registry checks it): each adds `serve NAME` to the CLI and may answer `play --via TARGET`.
    """
    raise NotImplementedError


@hookspec
def register_kernels() -> dict[str, KernelFactory]:
    """Return JAX kernels by game id, as `KernelFactory` functions that import JAX only when called
    ("module:Class" import paths still work for one release, deprecated)."""
    raise NotImplementedError


@hookspec(firstresult=True)
def render_board(game_id: str, view: dict[str, JsonValue], events: list[dict[str, JsonValue]]) -> str | None:
    """Draw a game's board for the match viewer, as an HTML fragment (inline SVG welcome); None for
    games this plugin does not draw. The first plugin to answer draws the board.

    :param game_id: The spec id of the match's game.
    :param view: The game's `public_view()`; once a match is over on a server that reveals finished
        matches it also holds `seats`, every seat's own view by agent id.
    :param events: The events the spectator may see up to this point, oldest first.
    :return: An HTML fragment; escape every text that comes from players.
    """
    raise NotImplementedError
