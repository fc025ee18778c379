"""The four coin games of the coin-splitting source document."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from negotiation_coin_games.base import CoinConfig, CoinGame
from negotiation_coin_games.deal_table import DealTable, deal_table
from negotiation_platform.games.base_game import MAX_VALUE
from negotiation_platform.spec import ActionSpec


class ClassicConfig(CoinConfig):
    value_low: int = Field(default=1, ge=0, le=MAX_VALUE)
    value_high: int = Field(default=20, ge=0, le=MAX_VALUE)

    @model_validator(mode="after")
    def _range(self) -> ClassicConfig:
        if self.value_low > self.value_high:
            raise ValueError("value_low must not exceed value_high")
        return self


class CoinsClassic(CoinGame[ClassicConfig]):
    """One item; each agent's per-coin value is drawn every round and known only to it."""

    Config = ClassicConfig
    spec_id = "coins_classic"
    game_title = "Coins: classic"
    game_summary = (
        "Each round two agents split coins. Each agent's value per coin is drawn anew every round and is "
        "private; agents may tell each other what they like before splitting."
    )

    def draw_round(self, starter: str) -> dict[str, Any]:
        low, high = self.settings.value_low, self.settings.value_high
        values = {p: {"coins": self.rng.randint(low, high)} for p in self.players}
        return {"stock": {"coins": self.settings.coins}, "values": values}

    def visible_values(self, player_id: str) -> dict[str, Any]:
        return {"your_values": self.round_data["values"][player_id]}


HANDS = ("rock", "paper", "scissors")
BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}


class TrustConfig(CoinConfig):
    winner_value: int = Field(default=10, ge=0, le=MAX_VALUE)
    loser_value: int = Field(default=1, ge=0, le=MAX_VALUE)
    hands: Literal["random", "alternating"] = Field(
        default="random",
        description="'random': two different hands drawn at random; 'alternating': the round's starting agent wins.",
    )


class TrustAndSplit(CoinGame[TrustConfig]):
    """A rock-paper-scissors draw decides who values coins at 10 and who at 1; each sees only its hand."""

    Config = TrustConfig
    spec_id = "trust_and_split"
    game_title = "Coins: trust and split"
    game_summary = (
        "Each round both agents are dealt a rock-paper-scissors hand. The winner values each coin at "
        "the high value, the loser at the low value. Each agent sees only its own hand."
    )

    @classmethod
    def max_collective_payoff(cls, config: TrustConfig) -> float:
        """Every round's coins to whoever values them more."""
        return float(config.rounds * config.coins * max(config.winner_value, config.loser_value))

    def draw_round(self, starter: str) -> dict[str, Any]:
        if self.settings.hands == "alternating":
            winner_hand = self.rng.choice(HANDS)
            other = next(p for p in self.players if p != starter)
            hands = {starter: winner_hand, other: BEATS[winner_hand]}
        else:
            # Uniform over ordered pairs of different hands, drawn directly: a hand, then one of the other two.
            first = self.rng.choice(HANDS)
            second = self.rng.choice([h for h in HANDS if h != first])
            hands = dict(zip(self.players, (first, second), strict=True))
        a, b = self.players
        winner = a if BEATS[hands[a]] == hands[b] else b
        values = {
            p: {"coins": self.settings.winner_value if p == winner else self.settings.loser_value} for p in self.players
        }
        return {"stock": {"coins": self.settings.coins}, "values": values, "hands": hands, "winner": winner}

    def visible_values(self, player_id: str) -> dict[str, Any]:
        return {
            "your_hand": self.round_data["hands"][player_id],
            "values_rule": f"the winner of the hands values a coin at {self.settings.winner_value}, "
            f"the loser at {self.settings.loser_value}",
        }


ITEMS = ("books", "hats", "balls")
MAX_ITEMS = 6
MAX_COUNT = 100
"""Most item types, and most units of one type on the table in a round."""


class DealConfig(CoinConfig):
    items: tuple[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")], ...] = Field(
        default=ITEMS, min_length=1, max_length=MAX_ITEMS
    )
    min_total: int = Field(default=5, ge=1, le=MAX_ITEMS * MAX_COUNT)
    max_total: int = Field(default=7, ge=1, le=MAX_ITEMS * MAX_COUNT)
    min_count: int = Field(default=1, ge=1, le=MAX_COUNT, description="A zero count could never be valued by someone.")
    max_count: int = Field(default=4, ge=1, le=MAX_COUNT)
    value_total: int = Field(default=10, ge=1, le=10_000, description="Σ count × value of each agent's values.")

    @model_validator(mode="after")
    def _feasible(self) -> DealConfig:
        if len(set(self.items)) != len(self.items):
            raise ValueError("item names repeat")
        if self.min_total > self.max_total or self.min_count > self.max_count:
            raise ValueError("minimum above maximum")
        self.table()  # refuses a config from which no round can be drawn, or too many to enumerate
        return self

    def table(self) -> DealTable:
        """Every admissible (stock, value pairs) row of this config (enumerated once, then cached)."""
        return deal_table(
            len(self.items), self.min_count, self.max_count, self.min_total, self.max_total, self.value_total
        )


class DealOrNoDeal(CoinGame[DealConfig]):
    """Books, hats and balls in limited stock; only proposals that exactly match the stock pay."""

    Config = DealConfig
    spec_id = "deal_or_no_deal"
    game_title = "Coins: deal or no deal"
    game_summary = (
        "Each round a stock of books, hats and balls is on the table. Each agent values the item types "
        "privately. A round pays only if the two claims together take exactly the whole stock of every item."
    )
    payoff_text = (
        "A round is a deal only if, for every item, the two claims add up exactly to the stock; otherwise both get 0."
    )

    @classmethod
    def item_bounds(cls, config: DealConfig) -> tuple[tuple[str, int], ...]:
        return tuple((item, config.max_count) for item in config.items)

    def draw_round(self, starter: str) -> dict[str, Any]:
        cfg = self.settings
        # Uniform over admissible stocks, then over their value pairs: what drawing stocks until one is
        # admissible would give, without a loop that a config could make endless.
        counts, pairs = self.rng.choice(cfg.table())
        first, second = self.rng.choice(pairs)
        values = {p: dict(zip(cfg.items, v, strict=True)) for p, v in zip(self.players, (first, second), strict=True)}
        return {"stock": dict(zip(cfg.items, counts, strict=True)), "values": values}

    def action_payload_schema(self, player_id: str, action: ActionSpec) -> dict[str, Any]:
        """The split's claims bounded by this round's stock, so agents that sample the schema claim legally."""
        schema = super().action_payload_schema(player_id, action)
        if action.name != "split" or not self.game_data.get("rounds"):
            return schema
        stock = self.round_data["stock"]
        properties = {
            item: {**prop, "maximum": stock[item], "description": f"How many {item} you claim (0..{stock[item]})."}
            for item, prop in schema["properties"].items()
        }
        return {**schema, "properties": properties}

    def action_error(self, player_id: str, action: dict[str, Any]) -> str | None:
        stock = self.round_data["stock"]
        over = {item: action[item] for item in stock if action.get(item, 0) > stock[item]}
        return None if not over else f"You claim more than the stock ({stock}): {over}."

    def allocate(self, claims: dict[str, dict[str, int]]) -> dict[str, dict[str, float]]:
        stock = self.round_data["stock"]
        deal = all(sum(c[item] for c in claims.values()) == stock[item] for item in stock)
        self.round_data["deal"] = deal
        return {agent: {item: float(claim[item]) if deal else 0.0 for item in stock} for agent, claim in claims.items()}

    def visible_values(self, player_id: str) -> dict[str, Any]:
        return {"your_values": self.round_data["values"][player_id]}


class NoPressConfig(CoinConfig):
    messages_per_round: int = Field(default=0, ge=0, le=0, description="No press: agents never talk.")
    starter_value: int = Field(
        default=1, ge=0, le=MAX_VALUE, description="The round's starting agent's value per coin."
    )
    other_value: int = Field(default=10, ge=0, le=MAX_VALUE)


class NoPress(CoinGame[NoPressConfig]):
    """No messages; public values: the round's starting agent values coins at 1, the other at 10."""

    Config = NoPressConfig
    spec_id = "no_press"
    game_title = "Coins: deterministic no-press"
    game_summary = (
        "Each round two agents split coins without talking. Values are public: the round's starting "
        "agent values a coin at the low value, the other agent at the high value."
    )

    @classmethod
    def max_collective_payoff(cls, config: NoPressConfig) -> float:
        """Every round's coins to whoever values them more."""
        return float(config.rounds * config.coins * max(config.starter_value, config.other_value))

    def draw_round(self, starter: str) -> dict[str, Any]:
        values = {
            p: {"coins": self.settings.starter_value if p == starter else self.settings.other_value}
            for p in self.players
        }
        return {"stock": {"coins": self.settings.coins}, "values": values}

    def visible_values(self, player_id: str) -> dict[str, Any]:
        return {"all_values": self.round_data["values"]}
