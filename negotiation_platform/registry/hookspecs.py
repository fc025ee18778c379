"""Hook specifications: what a plugin distribution may contribute.

Plugins implement these with `@hookimpl` in a module named by an entry point, e.g.::

    [project.entry-points."negotiation_platform.games"]
    my_games = "my_package.plugin"
"""

from __future__ import annotations

from typing import Any

import pluggy

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
def register_kernels() -> dict[str, str]:
    """Return JAX kernels by game id, as import paths "module:Factory" (imported only when used)."""
    raise NotImplementedError
