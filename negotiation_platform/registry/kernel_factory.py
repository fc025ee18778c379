"""`KernelFactory`: what a plugin's `register_kernels` offers for a game, typed.

A factory is called with the game's validated config and returns its JAX kernel and the kernel's
params. It imports JAX only when called, so registering kernels never does: a plugin writes a small
function that imports its kernel module inside. Import paths ("module:Class", a class with a
`from_config`) still work for one release, with a DeprecationWarning.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # typing only: this module must not import JAX
    from negotiation_platform.games.base_game import GameConfig

Kernel = tuple[object, object]
"""A kernel and its params, as the registry hands them on: the kernels layer reads them as its `Env` and
that env's params (`negotiation_platform.kernels.kernel_for`); naming `Env` here would make the registry
depend on the layer above it."""


class KernelFactory(Protocol):
    """Builds a game's kernel under a config (an instance of the game's own `Config`)."""

    def __call__(self, config: GameConfig, /) -> Kernel:
        """(kernel, params) for `config`."""
        ...


FORMULATIONS = ("cpu", "accelerator")
"""How a kernel may be written: "cpu" (loops that stop as soon as the data allows, skipped work) or
"accelerator" (fixed-trip or masked work, compact dtypes: no pass waits on the device)."""


@runtime_checkable
class FormulatedKernelFactory(Protocol):
    """A `KernelFactory` whose kernel comes in each of `FORMULATIONS` (the same rules, step for step);
    a factory without one builds a kernel that serves as both."""

    formulations: tuple[str, ...]

    def __call__(self, config: GameConfig, /, formulation: str = "cpu") -> Kernel:
        """(kernel, params) for `config` in `formulation`."""
        ...


class ImportPathKernel:
    """A kernel class named by import path ("module:Class") as a `KernelFactory`: the class's `from_config`.
    The built-in games reach the kernels layer this way (by name, not by import); a plugin's bare string
    is wrapped in one, with a DeprecationWarning (see `as_kernel_factory`)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self, config: GameConfig, /) -> Kernel:
        module_name, _, attribute = self.path.partition(":")
        factory = getattr(importlib.import_module(module_name), attribute)
        kernel: Kernel = factory.from_config(config)
        return kernel

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ImportPathKernel) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)

    def __repr__(self) -> str:
        return f"ImportPathKernel({self.path!r})"


def as_kernel_factory(game_id: str, offered: object) -> KernelFactory | None:
    """`offered` as a factory: itself if callable, an import path wrapped (deprecated); None otherwise."""
    if isinstance(offered, str):
        warnings.warn(
            f"register_kernels: the import path {offered!r} for {game_id!r} is deprecated; "
            "return a KernelFactory (a function of the game's config returning (kernel, params))",
            DeprecationWarning,
            stacklevel=3,
        )
        return ImportPathKernel(offered)
    if callable(offered):
        factory: KernelFactory = offered
        return factory
    return None
