"""Coin-splitting negotiation games for negotiation_platform, shipped as a plugin distribution."""

from negotiation_coin_games.base import CoinGame, proportional_allocation
from negotiation_coin_games.variants import CoinsClassic, DealOrNoDeal, NoPress, TrustAndSplit

__all__ = ["CoinGame", "CoinsClassic", "DealOrNoDeal", "NoPress", "TrustAndSplit", "proportional_allocation"]
