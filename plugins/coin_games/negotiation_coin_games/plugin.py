"""Entry-point target: registers the four coin games with negotiation_platform."""

from __future__ import annotations

from typing import Any

from negotiation_coin_games.variants import CoinsClassic, DealOrNoDeal, NoPress, TrustAndSplit
from negotiation_platform.registry import hookimpl


@hookimpl
def register_games() -> list[type[Any]]:
    return [CoinsClassic, TrustAndSplit, DealOrNoDeal, NoPress]


@hookimpl
def register_kernels() -> dict[str, str]:
    module = "negotiation_coin_games.kernels"
    return {
        "coins_classic": f"{module}:CoinsClassicEnv",
        "trust_and_split": f"{module}:TrustAndSplitEnv",
        "deal_or_no_deal": f"{module}:DealOrNoDealEnv",
        "no_press": f"{module}:NoPressEnv",
    }
