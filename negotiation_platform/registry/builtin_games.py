"""The built-in games as a plugin, named by the `negotiation_platform.games` entry point like any other.

It lives in `registry`, above `games`, because it implements the registry's hooks: `games` stays free
of imports from higher layers (the layers, lowest first, are in README.md's "Layers" table).
"""

from __future__ import annotations

from pydantic import JsonValue

from negotiation_platform.games.auction import AuctionGame
from negotiation_platform.games.base_game import BaseGame, GameConfig
from negotiation_platform.games.company_car import CompanyCarGame
from negotiation_platform.games.integrative_negotiation import IntegrativeNegotiationsGame
from negotiation_platform.games.resource_allocation import ResourceAllocationGame
from negotiation_platform.games.split_100 import Split100Game
from negotiation_platform.registry.hookspecs import hookimpl
from negotiation_platform.registry.kernel_factory import ImportPathKernel, KernelFactory


@hookimpl
def register_games() -> list[type[BaseGame[GameConfig]]]:
    return [Split100Game, AuctionGame, CompanyCarGame, ResourceAllocationGame, IntegrativeNegotiationsGame]


@hookimpl
def register_kernels() -> dict[str, KernelFactory]:
    """Each kernel is imported by name (and JAX with it) only when its factory is called, so the registry
    never depends on the kernels layer above it."""
    kernels = "negotiation_platform.kernels"
    return {
        "split_100": ImportPathKernel(f"{kernels}.split_100:Split100Env"),
        "company_car": ImportPathKernel(f"{kernels}.company_car:CompanyCarEnv"),
        "auction": ImportPathKernel(f"{kernels}.auction:AuctionEnv"),
        "resource_allocation": ImportPathKernel(f"{kernels}.bilateral:ResourceAllocationEnv"),
        "integrative_negotiation": ImportPathKernel(f"{kernels}.bilateral:IntegrativeEnv"),
    }


@hookimpl
def render_board(game_id: str, view: dict[str, JsonValue], events: list[dict[str, JsonValue]]) -> str | None:
    if game_id != "auction":
        return None
    from negotiation_platform.games.auction_board import auction_board

    return auction_board(view)
