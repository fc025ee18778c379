"""split_100: two players split $100 by alternating offers (reference game of the spec design)."""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from negotiation_platform.games.bargaining import BargainingPosition
from negotiation_platform.games.base_game import (
    MAX_MESSAGE_CHARS,
    MAX_ROUNDS,
    MAX_SECONDS,
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
    OutcomeSpec,
    PhaseLimits,
    PhaseSpec,
)
from negotiation_platform.spec.narration import Fact, Happening, does, dollars, name


class Split100Config(GameConfig):
    total: int = Field(default=100, ge=1, le=1_000_000, description="Dollars to split.")
    rounds: int = Field(default=10, ge=1, le=MAX_ROUNDS, description="Rounds; each player has one turn per round.")
    discount: float = Field(default=1.0, gt=0, le=1, description="Payoffs are multiplied by discount**(round-1).")
    max_message_length: int = Field(default=500, ge=1, le=MAX_MESSAGE_CHARS)
    seconds_per_turn: float | None = Field(default=None, gt=0, le=MAX_SECONDS)


@cache
def _propose_payload(total: int) -> type[BaseModel]:
    """One payload model per total (cached: pydantic model classes are costly to build)."""

    class Propose(BaseModel):
        model_config = ConfigDict(extra="forbid", title="ProposePayload")
        mine: int = Field(ge=0, le=total, description="Dollars you keep; the other player gets the rest.")

    return Propose


class Split100Game(BaseGame[Split100Config]):
    """Alternating offers over a fixed sum; accept the standing offer or walk away with nothing."""

    Config = Split100Config

    @classmethod
    def build_spec(cls, config: Split100Config) -> GameSpec:
        return GameSpec(
            id="split_100",
            title="Split $100",
            summary=f"Two players split ${config.total}. Players alternate: on your turn you may send at most "
            "one public message and must take exactly one action.",
            rounds=config.rounds,
            phases=(
                PhaseSpec(
                    name="bargain",
                    description="alternating offers",
                    limits=PhaseLimits(turns=1, seconds_per_turn=config.seconds_per_turn),
                    actions=(
                        ActionSpec(
                            name="propose",
                            description="offer a split, replacing any standing offer",
                            payload=_propose_payload(config.total),
                        ),
                        ActionSpec(name="accept", description="accept the other player's standing offer"),
                        ActionSpec(name="walk_away", description="end the game with no deal"),
                    ),
                    messaging=MessagingPolicy(channel=Channel.PUBLIC, per_turn=1, max_length=config.max_message_length),
                    default_action=DefaultAction(action="walk_away"),
                ),
            ),
            outcome=OutcomeSpec(
                description=f"An accepted offer splits ${config.total} as proposed, multiplied by "
                f"{config.discount:g}**(round-1); walking away or running out of rounds pays 0 to both."
            ),
        )

    @classmethod
    def max_collective_payoff(cls, config: Split100Config) -> float:
        """The pot: an agreement in the first round splits all of it (later rounds only discount it)."""
        return float(config.total)

    def initialize_game(self, players: list[str]) -> bool:
        if len(players) != 2:
            raise ValueError("split_100 needs exactly 2 players")
        self.players = list(players)
        self.game_data = {"standing_offer": None, "agreement": None, "walked_away": None}
        self.state = GameState.ACTIVE
        return True

    def available_actions(self, player_id: str, candidates: list[str]) -> list[str]:
        """Accepting needs the other player's standing offer (the engine asks this of every move it
        takes, with the move alone as the candidate: most ask nothing about accepting)."""
        if "accept" not in candidates:
            return list(candidates)
        offer = self.game_data["standing_offer"]
        can_accept = offer is not None and offer["by"] != player_id
        return [a for a in candidates if a != "accept" or can_accept]

    def process_action(self, action: PlayerAction) -> dict[str, object]:
        self.add_action(action)
        data = self.game_data
        if action.action_type == "propose":
            data["standing_offer"] = {"by": action.player_id, "mine": action.action_data["mine"]}
        elif action.action_type == "accept":
            offer = data["standing_offer"]
            proposer_share = offer["mine"]
            data["agreement"] = {
                "round": action.round_number,
                "split": {
                    offer["by"]: proposer_share,
                    action.player_id: self.settings.total - proposer_share,
                },
            }
        elif action.action_type == "walk_away":
            data["walked_away"] = action.player_id
        return data

    def check_end_conditions(self) -> bool:
        return self.game_data["agreement"] is not None or self.game_data["walked_away"] is not None

    def agreement_terms(self) -> dict[str, JsonValue] | None:
        return self.game_data.get("agreement")

    def calculate_scores(self) -> dict[str, float]:
        agreement = self.game_data.get("agreement")
        if agreement is None:
            return dict.fromkeys(self.players, 0.0)
        factor = self.settings.discount ** (agreement["round"] - 1)
        return {p: float(agreement["split"][p]) * factor for p in self.players}

    def get_player_view(self, player_id: str) -> dict[str, JsonValue]:
        return {
            "round": self.current_round,
            "rounds": self.max_rounds,
            "total": self.settings.total,
            "discount_now": self.settings.discount ** (max(self.current_round, 1) - 1),
            "standing_offer": self.game_data["standing_offer"],
        }

    def bargaining_position(self, player_id: str) -> BargainingPosition | None:
        offer = self.game_data["standing_offer"]
        standing = None
        if offer is not None and offer["by"] != player_id:
            standing = self.settings.total - offer["mine"]
        return {
            "action": "propose",
            "field": "mine",
            "best": self.settings.total,
            "reservation": 0,
            "standing": standing,
            "accept_action": "accept",
        }

    def seat_facts(self, player_id: str) -> list[Fact]:
        total, offer = self.settings.total, self.game_data["standing_offer"]
        facts = [Fact("to split", dollars(total)), Fact("round", f"{self.current_round} of {self.max_rounds}")]
        if self.settings.discount < 1:
            factor = self.settings.discount ** (max(self.current_round, 1) - 1)
            facts.append(Fact("payoffs now", f"x {factor:.3g} (they shrink every round)"))
        if offer is None:
            facts.append(Fact("standing offer", "none yet"))
        elif offer["by"] == player_id:
            facts.append(
                Fact(
                    "your standing offer",
                    f"you keep {dollars(offer['mine'])}, they would get {dollars(total - offer['mine'])}",
                )
            )
        else:
            facts.append(
                Fact(
                    "standing offer",
                    f"{offer['by']} offers: you would get {dollars(total - offer['mine'])} "
                    f"({offer['by']} keeps {dollars(offer['mine'])})",
                )
            )
        facts.append(Fact("no deal", "you get $0"))
        return facts

    def action_effect(self, player_id: str, action: str) -> str | None:
        offer = self.game_data["standing_offer"]
        if action == "accept" and offer is not None and offer["by"] != player_id:
            return f"you get {dollars(self.settings.total - offer['mine'])}"
        if action == "walk_away":
            return "no deal, you get $0"
        return None

    def describe_event(self, event: Happening, reader: str | None) -> str:
        """Offers from the reader's side: "concession offers you 18 and keeps 82"."""
        actor, total = event.actor, self.settings.total
        if event.kind != "action" or actor not in self.players:
            return super().describe_event(event, reader)
        other = next(p for p in self.players if p != actor)
        keep = "keep" if actor == reader else "keeps"
        if event.action_type == "propose":
            mine = event.payload.get("mine")
            if isinstance(mine, int):
                return f"{does(actor, reader, 'offer')} {name(other, reader)} {total - mine} and {keep} {mine}"
        agreement = self.game_data.get("agreement")
        if event.action_type == "accept" and agreement is not None:
            split = agreement["split"]
            gets = "get" if other == reader else "gets"
            return (
                f"{does(actor, reader, 'accept')}: {name(actor, reader)} {'get' if actor == reader else 'gets'} "
                f"{split[actor]}, {name(other, reader)} {gets} {split[other]}"
            )
        if event.action_type == "walk_away":
            return f"{does(actor, reader, 'walk')} away: no deal, 0 each"
        return super().describe_event(event, reader)

    def get_game_prompt(self, player_id: str) -> str:
        offer = self.game_data["standing_offer"]
        if offer is None:
            offer_line = "There is no standing offer."
        elif offer["by"] == player_id:
            offer_line = f"Your standing offer: you keep {offer['mine']}."
        else:
            offer_line = (
                f"The other player's standing offer: they keep {offer['mine']}, "
                f"you get {self.settings.total - offer['mine']}."
            )
        return compose_prompt(
            self.rules_text,
            f"SPLIT ${self.settings.total} — round {self.current_round} of {self.max_rounds}",
            [offer_line, f"Payoffs this round are multiplied by {self.get_player_view(player_id)['discount_now']:g}."],
            self.open_actions(player_id),
        )
