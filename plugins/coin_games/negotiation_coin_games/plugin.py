"""Entry-point target: registers the four coin games with negotiation_platform."""

from __future__ import annotations

from typing import Any

from negotiation_coin_games.variants import CoinsClassic, DealOrNoDeal, NoPress, TrustAndSplit
from negotiation_platform.registry import hookimpl


@hookimpl
def register_games() -> list[type[Any]]:
    return [CoinsClassic, TrustAndSplit, DealOrNoDeal, NoPress]
