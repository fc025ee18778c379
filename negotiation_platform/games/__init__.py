"""Negotiation games: the `BaseGame` interface and the built-in games."""

from negotiation_platform.games.auction import AuctionGame
from negotiation_platform.games.base_game import BaseGame, GameConfig, GameResult, GameState, PlayerAction
from negotiation_platform.games.split_100 import Split100Game

__all__ = [
    "AuctionGame",
    "BaseGame",
    "GameConfig",
    "GameResult",
    "GameState",
    "PlayerAction",
    "Split100Game",
]
