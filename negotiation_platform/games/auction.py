"""auction: 2 to 8 bidders discuss, then submit one sealed bid each (reference game of the spec design)."""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from negotiation_platform.games.bargaining import BargainingPosition
from negotiation_platform.games.base_game import (
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES,
    MAX_SECONDS,
    MAX_VALUE,
    BaseGame,
    GameConfig,
    GameState,
    PlayerAction,
)
from negotiation_platform.games.prompting import compose_prompt
from negotiation_platform.spec import (
    ActionSpec,
    Channel,
    DefaultAction,
    GameSpec,
    MessagingPolicy,
    OutcomeKind,
    OutcomeSpec,
    PhaseEnd,
    PhaseLimits,
    PhaseSpec,
    RolesSpec,
    TurnOrder,
)
from negotiation_platform.spec.narration import Fact, Happening, does, name


class AuctionConfig(GameConfig):
    bidders: int = Field(default=3, ge=2, le=8)
    value_low: int = Field(
        default=0, ge=0, le=MAX_VALUE, description="Private values are drawn uniformly from integers in [low, high]."
    )
    value_high: int = Field(default=100, ge=0, le=MAX_VALUE)
    pricing: Literal["first", "second"] = "first"
    messages_per_bidder: int = Field(default=3, ge=0, le=MAX_MESSAGES)
    max_message_length: int = Field(default=500, ge=1, le=MAX_MESSAGE_CHARS)
    discuss_seconds: float | None = Field(
        default=60.0, gt=0, le=MAX_SECONDS, description="Clock of the discussion phase."
    )
    bid_seconds: float | None = Field(default=None, gt=0, le=MAX_SECONDS, description="Clock of the bidding phase.")

    @model_validator(mode="after")
    def _range(self) -> AuctionConfig:
        if self.value_low > self.value_high:
            raise ValueError("value_low must not exceed value_high")
        return self


@cache
def _bid_payload(high: int) -> type[BaseModel]:
    """The bid payload of auctions whose values go up to `high`: nobody bids more than any value can be."""

    class Bid(BaseModel):
        model_config = ConfigDict(extra="forbid")
        amount: int = Field(ge=0, le=high, description=f"Your sealed bid, 0..{high}.")

    return Bid


class AuctionGame(BaseGame[AuctionConfig]):
    """Discuss-then-bid sealed auction; highest bid wins, ties to the earliest bid."""

    Config = AuctionConfig

    @classmethod
    def build_spec(cls, config: AuctionConfig) -> GameSpec:
        return GameSpec(
            id="auction",
            title="Discuss-then-bid auction",
            summary=f"{config.bidders} bidders compete for one item. Each has a private value drawn uniformly "
            f"from {config.value_low}..{config.value_high}. They may talk, then each submits one sealed bid.",
            roles=RolesSpec(min_players=config.bidders, max_players=config.bidders),
            rounds=1,
            phases=(
                PhaseSpec(
                    name="discuss",
                    description="free chat, public and private",
                    turn_order=TurnOrder.FREE,
                    limits=PhaseLimits(turns=1, seconds_per_turn=config.discuss_seconds),
                    actions=(ActionSpec(name="done", description="finish discussing"),),
                    messaging=MessagingPolicy(
                        channel=Channel.BOTH,
                        per_player=config.messages_per_bidder,
                        max_length=config.max_message_length,
                    ),
                    ends_when=(PhaseEnd.TURNS_USED, PhaseEnd.MESSAGES_USED, PhaseEnd.DEADLINE),
                    default_action=DefaultAction(action="done"),
                ),
                PhaseSpec(
                    name="bid",
                    description="one sealed bid each",
                    turn_order=TurnOrder.SIMULTANEOUS,
                    limits=PhaseLimits(turns=1, seconds_per_turn=config.bid_seconds),
                    actions=(
                        ActionSpec(
                            name="bid", description="submit your sealed bid", payload=_bid_payload(config.value_high)
                        ),
                    ),
                    default_action=DefaultAction(action="bid", payload={"amount": 0}),
                ),
            ),
            outcome=OutcomeSpec(
                kind=OutcomeKind.ENGINE_RULE,
                description=f"The highest bid wins (ties: the earliest bid) and pays the "
                f"{'highest' if config.pricing == 'first' else 'second-highest'} bid. "
                "The winner's payoff is value minus price; everyone else gets 0.",
            ),
        )

    def initialize_game(self, players: list[str]) -> bool:
        if len(players) != self.settings.bidders:
            raise ValueError(f"auction is configured for {self.settings.bidders} bidders")
        self.players = list(players)
        low, high = self.settings.value_low, self.settings.value_high
        self.game_data = {
            "values": {p: self.rng.randint(low, high) for p in players},
            "bids": {},
            "sale": None,
        }
        self.state = GameState.ACTIVE
        return True

    def process_action(self, action: PlayerAction) -> dict[str, object]:
        self.add_action(action)
        if action.action_type == "bid":
            self.game_data["bids"][action.player_id] = action.action_data["amount"]
        return self.game_data

    def end_phase(self, phase_name: str) -> None:
        super().end_phase(phase_name)
        bids: dict[str, int] = self.game_data["bids"]
        if phase_name != "bid" or not bids:
            return
        ranked = sorted(bids.items(), key=lambda kv: -kv[1])  # stable: ties keep submission order
        winner, top = ranked[0]
        price = top if self.settings.pricing == "first" else (ranked[1][1] if len(ranked) > 1 else 0)
        self.game_data["sale"] = {"winner": winner, "price": price, "bids": dict(bids)}
        self.notify({"sale": self.game_data["sale"]})

    def seat_facts(self, player_id: str) -> list[Fact]:
        pricing = "the highest bid" if self.settings.pricing == "first" else "the second-highest bid"
        return [
            Fact("your value of the item", str(self.game_data["values"][player_id])),
            Fact("the winner pays", pricing),
            Fact("your score", "your value minus the price if you win, else 0"),
        ]

    def describe_event(self, event: Happening, reader: str | None) -> str:
        """Bids and the sale in words: "you bid 45", "alice wins at 45 (you bid 30)"."""
        actor = event.actor
        if event.kind == "action" and event.action_type == "bid":
            return f"{does(actor, reader, 'bid', 'bids')} {event.payload.get('amount')}"
        if event.kind == "action" and event.action_type == "done":
            return f"{does(actor, reader, 'finish')} discussing"
        sale = event.data.get("sale")
        if event.kind == "notice" and isinstance(sale, dict):
            winner, bids = sale.get("winner"), sale.get("bids")
            line = f"{does(str(winner), reader, 'win', 'wins')} the item at {sale.get('price')}"
            if isinstance(bids, dict):
                line += " (bids: " + ", ".join(f"{name(p, reader)} {b}" for p, b in bids.items()) + ")"
            return line
        return super().describe_event(event, reader)

    def check_end_conditions(self) -> bool:
        return self.game_data["sale"] is not None

    def agreement_terms(self) -> dict[str, JsonValue] | None:
        return self.game_data.get("sale")

    def calculate_scores(self) -> dict[str, float]:
        sale = self.game_data.get("sale")
        scores = dict.fromkeys(self.players, 0.0)
        if sale is not None:
            winner = sale["winner"]
            scores[winner] = float(self.game_data["values"][winner] - sale["price"])
        return scores

    def get_player_view(self, player_id: str) -> dict[str, JsonValue]:
        return {
            "round": self.current_round,
            "phase": self.current_phase,
            "your_value": self.game_data["values"][player_id],
            "your_bid": self.game_data["bids"].get(player_id),
            "pricing": self.settings.pricing,
            "sale": self.game_data["sale"],
        }

    def public_view(self) -> dict[str, JsonValue]:
        """The bidders and, once the sealed bids are opened, the sale; never a value or a sealed bid."""
        return {
            "round": self.current_round,
            "phase": self.current_phase,
            "pricing": self.settings.pricing,
            "bidders": list(self.players),
            "sale": self.game_data["sale"],
        }

    def bargaining_position(self, player_id: str) -> BargainingPosition | None:
        return {
            "action": "bid",
            "field": "amount",
            "best": self.settings.value_low,
            "reservation": self.game_data["values"][player_id],
            "standing": None,
            "accept_action": None,
        }

    def get_game_prompt(self, player_id: str) -> str:
        view = self.get_player_view(player_id)
        situation = [
            f"Phase: {view['phase']}.",
            f"Your private value for the item: {view['your_value']} (nobody else knows it).",
        ]
        if view["your_bid"] is not None:
            situation.append(f"Your sealed bid: {view['your_bid']}.")
        return compose_prompt(self.rules_text, "SEALED-BID AUCTION", situation, self.open_actions(player_id))
