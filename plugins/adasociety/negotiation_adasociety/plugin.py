"""Entry-point target: registers the AdaSociety games, the `gatherer` agent and the JAX kernels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from negotiation_adasociety.config import AdaSocietyConfig
from negotiation_adasociety.game import AdaSocietyGame, AdaSocietyHardGame
from negotiation_adasociety.gatherer import GathererAgent
from negotiation_platform.games.base_game import GameConfig
from negotiation_platform.registry import FORMULATIONS, KernelFactory, hookimpl

if TYPE_CHECKING:
    from negotiation_platform.registry.kernel_factory import Kernel


@hookimpl
def register_games() -> list[type[Any]]:
    return [AdaSocietyGame, AdaSocietyHardGame]


@hookimpl
def register_agents() -> dict[str, Any]:
    return {"gatherer": GathererAgent}


class AdaSocietyKernel:
    """Either preset's kernel (the config says which) in either formulation (`FORMULATIONS`): the CPU
    one, or the accelerator one (`negotiation_adasociety.accelerator`). Imports the kernel (and JAX)
    only when called."""

    formulations = FORMULATIONS

    def __call__(self, config: GameConfig, /, formulation: str = "cpu") -> Kernel:
        from negotiation_adasociety.accelerator import AcceleratorAdaSocietyEnv
        from negotiation_adasociety.kernels import AdaSocietyEnv

        kernel = AcceleratorAdaSocietyEnv if formulation == "accelerator" else AdaSocietyEnv
        return kernel.from_config(cast(AdaSocietyConfig, config))


adasociety_kernel = AdaSocietyKernel()
"""The factory both AdaSociety games register."""


@hookimpl
def register_kernels() -> dict[str, KernelFactory]:
    return {"adasociety": adasociety_kernel, "adasociety_hard": adasociety_kernel}


@hookimpl
def render_board(game_id: str, view: dict[str, Any], events: list[dict[str, Any]]) -> str | None:
    if game_id not in (AdaSocietyGame.spec_id(), AdaSocietyHardGame.spec_id()):
        return None
    from negotiation_adasociety.board import adasociety_board

    return adasociety_board(view)
