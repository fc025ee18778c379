"""Entry-point target: registers the four coin games with negotiation_platform."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from negotiation_coin_games.base import CoinGame
from negotiation_coin_games.variants import CoinsClassic, DealOrNoDeal, NoPress, TrustAndSplit
from negotiation_platform.games.base_game import GameConfig
from negotiation_platform.registry import KernelFactory, hookimpl

if TYPE_CHECKING:
    from negotiation_platform.registry.kernel_factory import Kernel

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


def kernel_factory(game_id: str) -> KernelFactory:
    """The factory of one coin game's kernel; it imports the kernels (and JAX) only when called."""

    def build(config: GameConfig) -> Kernel:
        from negotiation_coin_games.kernels import KERNELS

        return KERNELS[game_id].from_config(config)

    return build


@hookimpl
def register_kernels() -> dict[str, KernelFactory]:
    return {game.spec.id: kernel_factory(game.spec.id) for game in GAMES}
