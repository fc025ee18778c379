"""Registers the built-in games through the `negotiation_platform.games` entry point, like any plugin."""

from __future__ import annotations

from typing import Any

from negotiation_platform.games.auction import AuctionGame
from negotiation_platform.games.split_100 import Split100Game
from negotiation_platform.registry.hookspecs import hookimpl


@hookimpl
def register_games() -> list[type[Any]]:
    return [Split100Game, AuctionGame]
