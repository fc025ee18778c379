"""The documented module path of `CompanyCarGame` (`negotiation_platform.games.price_bargaining`).

The game lives in `negotiation_platform.games.company_car`, named after the game it holds; this
module keeps the documented import path working, as the same objects.
"""

from negotiation_platform.games.company_car import MAX_PRICE, CompanyCarConfig, CompanyCarGame

__all__ = ["MAX_PRICE", "CompanyCarConfig", "CompanyCarGame"]
