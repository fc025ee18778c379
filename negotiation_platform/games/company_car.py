"""company_car (CompanyCarGame): buyer and seller bargain over one price."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from negotiation_platform.games.bargaining import BargainingTerms
from negotiation_platform.games.base_game import ConfigInput, RngInput
from negotiation_platform.games.bilateral import BilateralConfig, BilateralNegotiation
from negotiation_platform.spec.narration import dollars

MAX_PRICE = 10_000_000
"""Prices are whole cents up to this: a price in cents always fits the kernel's int32."""


def _money(default: float, description: str = "") -> Any:
    return Field(default=default, ge=0, le=MAX_PRICE, multiple_of=0.01, description=description)


class CompanyCarConfig(BilateralConfig):
    starting_price: float = _money(45000)
    buyer_budget: float = _money(42000)
    seller_cost: float = _money(36000, "Context for prompts only.")
    buyer_batna: float = _money(41000)
    seller_batna: float = _money(39000)
    min_price: float = _money(10000)
    max_price: float = _money(100000)

    @model_validator(mode="after")
    def _price_range(self) -> CompanyCarConfig:
        if self.min_price >= self.max_price:
            raise ValueError("min_price must be below max_price")
        return self


@cache
def _offer_payload(low: float, high: float) -> type[BaseModel]:
    """Offer payload with the configured price range (cached: one class per range)."""
    return create_model(
        "OfferPayload",
        __config__=ConfigDict(extra="forbid"),
        price=(
            float,
            Field(
                ge=low,
                le=high,
                multiple_of=0.01,
                description=f"Your price in dollars (cents allowed), between {dollars(low)} and {dollars(high)}.",
            ),
        ),
    )


class CompanyCarGame(BilateralNegotiation[CompanyCarConfig]):
    """Bilateral price negotiation for a company car with decaying BATNAs."""

    Config = CompanyCarConfig
    spec_id = "company_car"
    roles = ("buyer", "seller")
    role_labels = {"buyer": "Party A", "seller": "Party B"}
    proposal_action = "offer"
    game_title = "Company car negotiation"
    game_summary = (
        "Two parties negotiate the price of a company car. Party A acquires the car and wants a low price; "
        "Party B hands it over and wants a high price. Each has a BATNA that shrinks every round."
    )

    def __init__(self, config: ConfigInput = None, *, game_id: str = "company_car", rng: RngInput = None) -> None:
        super().__init__(game_id, config, rng=rng)

    @classmethod
    def proposal_payload(cls, config: CompanyCarConfig) -> type[BaseModel]:
        return _offer_payload(config.min_price, config.max_price)

    @classmethod
    def outcome_text(cls, config: CompanyCarConfig) -> str:
        return (
            "On agreement at price p in round r: Party A's surplus is BATNA_A(r) - p, Party B's is p - BATNA_B(r); "
            "each party's utility is its BATNA(r) plus its surplus. Without agreement both get 0."
        )

    def base_batna(self, role: str) -> float:
        return self.settings.buyer_batna if role == "buyer" else self.settings.seller_batna

    def terms_of(self, payload: dict[str, Any]) -> dict[str, float]:
        return {"price": round(float(payload["price"]), 2)}  # the cent grid: 40000.01 is never 40000.010000001

    def role_utility(self, role: str, terms: dict[str, Any], round_number: int) -> float:
        batna = self.get_current_batna(role, round_number)
        price = float(terms["price"])
        surplus = batna - price if role == "buyer" else price - batna
        return batna + surplus

    @property
    def current_price(self) -> float | None:
        offers = self.game_data.get("offers", [])
        return float(offers[-1]["terms"]["price"]) if offers else None

    @property
    def agreement_reached(self) -> bool:
        return self.game_data.get("agreement") is not None

    @property
    def final_price(self) -> float | None:
        agreement = self.game_data.get("agreement")
        return None if agreement is None else float(agreement["terms"]["price"])

    def documented_state(self) -> dict[str, object]:
        return {**super().documented_state(), "final_price": self.final_price}

    def private_details(self, role: str) -> dict[str, object]:
        if role == "buyer":
            return {"budget": self.settings.buyer_budget}
        return {"cost": self.settings.seller_cost}

    def public_details(self) -> dict[str, object]:
        return {"starting_price": self.settings.starting_price}

    def score_note(self, player_id: str) -> str:
        """What the score rewards (docs/games/company_car.md): BATNA plus surplus on a deal, 0 without one."""
        buyer = self.role_of(player_id) == "buyer"
        return (
            "Your score on a deal is your BATNA plus your surplus ("
            + ("BATNA - price" if buyer else "price - BATNA")
            + "), so every dollar "
            + ("below" if buyer else "above")
            + " your BATNA adds to it; without a deal you score 0."
        )

    def amount(self, value: float) -> str:
        return dollars(round(float(value), 2))

    def describe_terms(self, terms: Mapping[str, object]) -> str:
        return dollars(float(str(terms["price"])))

    def situation(self, player_id: str) -> list[str]:
        cfg = self.settings
        lines = [f"The listed price of the car is {cfg.starting_price:,.0f}."]
        if self.role_of(player_id) == "buyer":
            lines.append(f"You want to pay as little as possible; your budget is {cfg.buyer_budget:,.0f}.")
            lines.append("A deal at a price below your BATNA gives you a surplus.")
        else:
            lines.append(f"You want as high a price as possible; the car cost you {cfg.seller_cost:,.0f}.")
            lines.append("A deal at a price above your BATNA gives you a surplus.")
        return lines

    def bargaining_terms(self, player_id: str) -> BargainingTerms:
        buyer = self.role_of(player_id) == "buyer"
        standing = self.standing_offer_for(player_id)
        return {
            "field": "price",
            "best": self.settings.seller_cost if buyer else self.settings.starting_price,
            "reservation": self.get_current_batna(player_id, max(self.current_round, 1)),
            "standing": None if standing is None else standing["terms"]["price"],
        }
