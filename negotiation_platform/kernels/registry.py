"""Which games have kernels: found through the `register_kernels` hook, built-in and plugin alike.

A plugin returns {game_id: "module:attribute"} import paths, so registering kernels never
imports JAX; the module is imported only when someone asks for that game's kernel.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry

if TYPE_CHECKING:  # typing only: listing the kernel games must not import JAX
    from negotiation_platform.kernels.env import Env


def kernel_games(registry: Registry) -> dict[str, str]:
    """game_id → import path of its kernel factory."""
    return registry.kernels()


def kernel_for(registry: Registry, game_id: str, config: dict[str, Any] | None = None) -> tuple[Env, Any]:
    """(env, params) for a game under `config` (validated by the game's own Config)."""
    path = kernel_games(registry).get(game_id)
    if path is None:
        raise NegotiationError(
            ErrorCode.UNKNOWN_GAME, f"No kernel for {game_id!r}; kernels exist for {sorted(kernel_games(registry))}."
        )
    module_name, _, attribute = path.partition(":")
    factory = getattr(importlib.import_module(module_name), attribute)
    parsed = registry.game(game_id).cls.parse_config(config)
    return factory.from_config(parsed)  # type: ignore[no-any-return]


def make(game_id: str, *, registry: Registry | None = None, **config: Any) -> tuple[Env, Any]:
    """(env, params) for `game_id` with config overrides, as gymnax's `make` — e.g. `make("split_100", rounds=4)`."""
    return kernel_for(registry or Registry(), game_id, config or None)
