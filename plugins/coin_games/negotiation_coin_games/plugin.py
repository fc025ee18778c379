"""Entry-point target: registers the four coin games with negotiation_platform."""

from __future__ import annotations

from typing import Any

from negotiation_coin_games.base import CoinGame
from negotiation_coin_games.variants import CoinsClassic, DealOrNoDeal, NoPress, TrustAndSplit
from negotiation_platform.registry import hookimpl

GAMES: list[type[CoinGame[Any]]] = [CoinsClassic, TrustAndSplit, DealOrNoDeal, NoPress]
GAME_IDS = frozenset(game.spec.id for game in GAMES)


@hookimpl
def register_games() -> list[type[Any]]:
    return list(GAMES)


@hookimpl
def render_board(game_id: str, view: dict[str, Any], events: list[dict[str, Any]]) -> str | None:
    if game_id not in GAME_IDS:
        return None
    from negotiation_coin_games.board import coin_board

    return coin_board(view)


@hookimpl
def register_kernels() -> dict[str, str]:
    module = "negotiation_coin_games.kernels"
    return {
        "coins_classic": f"{module}:CoinsClassicEnv",
        "trust_and_split": f"{module}:TrustAndSplitEnv",
        "deal_or_no_deal": f"{module}:DealOrNoDealEnv",
        "no_press": f"{module}:NoPressEnv",
    }
