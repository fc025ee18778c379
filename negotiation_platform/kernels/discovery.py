"""Which games have kernels: found through the `register_kernels` hook, built-in and plugin alike.

A plugin returns {game_id: KernelFactory}, functions that import their kernel (and JAX) only when
called, so registering kernels never imports JAX. `make` loads only the games entry-point group:
kernels come with the games they play, and the transports' and agents' plugins are not needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import KernelFactory, Registry
from negotiation_platform.registry.registry import GAMES_GROUP

if TYPE_CHECKING:  # typing only: listing the kernel games must not import JAX
    from negotiation_platform.kernels.env import Env

    Kernel = tuple[Env[Any, Any], Any]


def kernel_games(registry: Registry) -> dict[str, KernelFactory]:
    """game_id → its kernel factory."""
    return registry.kernels()


def kernel_for(registry: Registry, game_id: str, config: Mapping[str, object] | None = None) -> Kernel:
    """(env, params) for a game under `config` (validated by the game's own Config)."""
    factories = kernel_games(registry)
    factory = factories.get(game_id)
    if factory is None:
        raise NegotiationError(
            ErrorCode.UNKNOWN_GAME, f"No kernel for {game_id!r}; kernels exist for {sorted(factories)}."
        )
    return cast("Kernel", factory(registry.game(game_id).cls.parse_config(config)))


def make(game_id: str, *, registry: Registry | None = None, **config: object) -> Kernel:
    """(env, params) for `game_id` with config overrides, as gymnax's `make` — e.g. `make("split_100", rounds=4)`."""
    return kernel_for(registry or Registry(groups=(GAMES_GROUP,)), game_id, config or None)
