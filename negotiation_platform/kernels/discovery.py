"""Which games have kernels: found through the `register_kernels` hook, built-in and plugin alike.

A plugin returns {game_id: KernelFactory}, functions that import their kernel (and JAX) only when
called, so registering kernels never imports JAX. `make` loads only the games entry-point group:
kernels come with the games they play, and the transports' and agents' plugins are not needed.

A kernel may come in two formulations (`FORMULATIONS`, a `FormulatedKernelFactory`): "cpu" and
"accelerator". Unless one is asked for, JAX's default backend chooses (`default_formulation`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import FORMULATIONS, FormulatedKernelFactory, KernelFactory, Registry
from negotiation_platform.registry.registry import GAMES_GROUP

if TYPE_CHECKING:  # typing only: listing the kernel games must not import JAX
    from negotiation_platform.kernels.env import Env

    Kernel = tuple[Env[Any, Any], Any]


def kernel_games(registry: Registry) -> dict[str, KernelFactory]:
    """game_id → its kernel factory."""
    return registry.kernels()


def default_formulation() -> str:
    """ "cpu" where JAX runs on the CPU, "accelerator" on any other backend (GPU, TPU)."""
    import jax

    return "cpu" if jax.default_backend() == "cpu" else "accelerator"


def require_formulations(registry: Registry, game_id: str) -> None:
    """Refuse a game whose kernel comes in one formulation, naming the games that offer a choice: asking
    it for one asks for a choice it does not have. (A game without a kernel is left to `kernel_for`.)"""
    factories = kernel_games(registry)
    factory = factories.get(game_id)
    if factory is not None and not isinstance(factory, FormulatedKernelFactory):
        offered = sorted(game for game, each in factories.items() if isinstance(each, FormulatedKernelFactory))
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"{game_id!r}'s kernel comes in one formulation, which serves every backend; "
            f"only {offered} offer a choice of {list(FORMULATIONS)}.",
            game=game_id,
            games_with_formulations=offered,
        )


def kernel_for(
    registry: Registry, game_id: str, config: Mapping[str, object] | None = None, *, formulation: str | None = None
) -> Kernel:
    """(env, params) for a game under `config` (validated by the game's own Config), in `formulation`
    (None: `default_formulation()`; a kernel with one formulation serves both)."""
    if formulation is not None and formulation not in FORMULATIONS:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"No kernel formulation {formulation!r}; choose one of {list(FORMULATIONS)}."
        )
    factories = kernel_games(registry)
    factory = factories.get(game_id)
    if factory is None:
        raise NegotiationError(
            ErrorCode.UNKNOWN_GAME, f"No kernel for {game_id!r}; kernels exist for {sorted(factories)}."
        )
    parsed = registry.game(game_id).cls.parse_config(config)
    if isinstance(factory, FormulatedKernelFactory):
        return cast("Kernel", factory(parsed, formulation=formulation or default_formulation()))
    return cast("Kernel", factory(parsed))


def make(game_id: str, *, registry: Registry | None = None, formulation: str | None = None, **config: object) -> Kernel:
    """(env, params) for `game_id` with config overrides, as gymnax's `make` — e.g. `make("split_100", rounds=4)`,
    `make("adasociety", formulation="accelerator")`."""
    return kernel_for(registry or Registry(groups=(GAMES_GROUP,)), game_id, config or None, formulation=formulation)
