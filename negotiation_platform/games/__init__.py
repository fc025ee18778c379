"""Negotiation games: the `BaseGame` interface, the documented games and the reference games.

>>> from negotiation_platform.games import CompanyCarGame, ResourceAllocationGame, IntegrativeNegotiationsGame
"""

from negotiation_platform.games import negotiation_tools
from negotiation_platform.games.auction import AuctionGame
from negotiation_platform.games.base_game import BaseGame, GameConfig, GameResult, GameState, PlayerAction
from negotiation_platform.games.company_car import CompanyCarGame
from negotiation_platform.games.integrative_negotiation import IntegrativeNegotiationsGame
from negotiation_platform.games.resource_allocation import ResourceAllocationGame
from negotiation_platform.games.split_100 import Split100Game

__all__ = [
    "AuctionGame",
    "BaseGame",
    "CompanyCarGame",
    "GameConfig",
    "GameResult",
    "GameState",
    "IntegrativeNegotiationsGame",
    "PlayerAction",
    "ResourceAllocationGame",
    "Split100Game",
    "negotiation_tools",
]
