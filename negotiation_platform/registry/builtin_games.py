"""The built-in games as a plugin, named by the `negotiation_platform.games` entry point like any other.

It lives in `registry`, above `games`, because it implements the registry's hooks: `games` stays free
of imports from higher layers (the layers, lowest first, are in README.md's "Layers" table).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from pydantic import JsonValue

from negotiation_platform.games.auction import AuctionConfig, AuctionGame
from negotiation_platform.games.base_game import BaseGame, GameConfig
from negotiation_platform.games.company_car import CompanyCarConfig, CompanyCarGame
from negotiation_platform.games.integrative_negotiation import IntegrativeConfig, IntegrativeNegotiationsGame
from negotiation_platform.games.resource_allocation import ResourceAllocationConfig, ResourceAllocationGame
from negotiation_platform.games.split_100 import Split100Config, Split100Game
from negotiation_platform.registry.hookspecs import hookimpl
from negotiation_platform.registry.kernel_factory import KernelFactory

if TYPE_CHECKING:
    from negotiation_platform.registry.kernel_factory import Kernel


@hookimpl
def register_games() -> list[type[BaseGame[GameConfig]]]:
    return [Split100Game, AuctionGame, CompanyCarGame, ResourceAllocationGame, IntegrativeNegotiationsGame]


def split_100_kernel(config: GameConfig) -> Kernel:
    from negotiation_platform.kernels.split_100 import Split100Env

    return Split100Env.from_config(cast(Split100Config, config))


def company_car_kernel(config: GameConfig) -> Kernel:
    from negotiation_platform.kernels.company_car import CompanyCarEnv

    return CompanyCarEnv.from_config(cast(CompanyCarConfig, config))


def auction_kernel(config: GameConfig) -> Kernel:
    from negotiation_platform.kernels.auction import AuctionEnv

    return AuctionEnv.from_config(cast(AuctionConfig, config))


def resource_allocation_kernel(config: GameConfig) -> Kernel:
    from negotiation_platform.kernels.bilateral import ResourceAllocationEnv

    return ResourceAllocationEnv.from_config(cast(ResourceAllocationConfig, config))


def integrative_kernel(config: GameConfig) -> Kernel:
    from negotiation_platform.kernels.bilateral import IntegrativeEnv

    return IntegrativeEnv.from_config(cast(IntegrativeConfig, config))


@hookimpl
def register_kernels() -> dict[str, KernelFactory]:
    """Each factory imports its kernel (and JAX) only when called; `registry.game(id).cls.parse_config`
    gives it the game's own config."""
    return {
        "split_100": split_100_kernel,
        "company_car": company_car_kernel,
        "auction": auction_kernel,
        "resource_allocation": resource_allocation_kernel,
        "integrative_negotiation": integrative_kernel,
    }


@hookimpl
def render_board(game_id: str, view: dict[str, JsonValue], events: list[dict[str, JsonValue]]) -> str | None:
    if game_id != "auction":
        return None
    from negotiation_platform.games.auction_board import auction_board

    return auction_board(view)
