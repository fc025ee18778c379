"""A small game with a private value per seat, and broken variants that `check_game` must catch."""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from negotiation_platform.games.bargaining import BargainingPosition
from negotiation_platform.games.base_game import BaseGame, GameConfig, GameState, PlayerAction
from negotiation_platform.spec import ActionSpec, DefaultAction, GameSpec, OutcomeSpec, PhaseSpec


class Propose(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mine: int = Field(ge=0, le=100)


class SecretSplit(BaseGame[GameConfig]):
    """Two seats split 100; each draws a private outside option, paid when there is no deal."""

    propose_payload: type[BaseModel] = Propose

    @classmethod
    def build_spec(cls, config: GameConfig) -> GameSpec:
        return GameSpec(
            id="secret_split",
            title="Secret split",
            summary="Split 100; each seat has a private outside option.",
            rounds=4,
            phases=(
                PhaseSpec(
                    name="bargain",
                    actions=(
                        ActionSpec(name="propose", description="offer", payload=cls.propose_payload),
                        ActionSpec(name="accept", description="accept the standing offer"),
                        ActionSpec(name="walk_away", description="no deal"),
                    ),
                    default_action=DefaultAction(action="walk_away"),
                ),
            ),
            outcome=OutcomeSpec(description="The accepted split, else each seat's outside option."),
        )

    def draw(self) -> int:
        return self.rng.randint(1_000, 9_999)

    def initialize_game(self, players: list[str]) -> bool:
        self.players = list(players)
        self.game_data = {"secret": {p: self.draw() for p in players}, "offer": None, "deal": None, "over": False}
        self.state = GameState.ACTIVE
        return True

    def available_actions(self, player_id: str, candidates: list[str]) -> list[str]:
        offer = self.game_data["offer"]
        return [a for a in candidates if a != "accept" or (offer is not None and offer["by"] != player_id)]

    def process_action(self, action: PlayerAction) -> dict[str, Any]:
        data = self.game_data
        if action.action_type == "propose":
            data["offer"] = {"by": action.player_id, "mine": action.action_data["mine"]}
        elif action.action_type == "accept":
            data["deal"] = {data["offer"]["by"]: data["offer"]["mine"], action.player_id: 100 - data["offer"]["mine"]}
        data["over"] = action.action_type != "propose"
        return data

    def check_end_conditions(self) -> bool:
        return bool(self.game_data["over"])

    def calculate_scores(self) -> dict[str, float]:
        deal = self.game_data["deal"]
        return self.player_batnas() if deal is None else {p: float(deal[p]) for p in self.players}

    def get_player_view(self, player_id: str) -> dict[str, Any]:
        return {**self.public_view(), "your_secret": self.game_data["secret"][player_id]}

    def public_view(self) -> dict[str, Any]:
        return {"round": self.current_round, "offer": self.game_data["offer"]}

    def player_batnas(self) -> dict[str, float]:
        return {p: float(v) for p, v in self.game_data["secret"].items()}

    def bargaining_position(self, player_id: str) -> BargainingPosition | None:
        return {"action": "propose", "field": "mine", "best": 100, "reservation": 0, "accept_action": "accept"}

    def get_game_prompt(self, player_id: str) -> str:
        return f"Round {self.current_round}: your outside option is {self.game_data['secret'][player_id]}."


class PublicViewLeak(SecretSplit):
    def public_view(self) -> dict[str, Any]:
        return {**super().public_view(), "board": dict(self.game_data["secret"])}


class SeatViewLeak(SecretSplit):
    def get_player_view(self, player_id: str) -> dict[str, Any]:
        rival = next(p for p in self.players if p != player_id)
        return {**super().get_player_view(player_id), "rival_hint": self.game_data["secret"][rival]}


class GlobalRandom(SecretSplit):
    def draw(self) -> int:
        return random.randint(1_000, 9_999)  # the global generator, not the match's seeded one


class SevensOnly(BaseModel):
    """Accepts any number, yet publishes a schema that only allows multiples of 7."""

    model_config = ConfigDict(extra="forbid")
    mine: int = Field(ge=0, le=100, json_schema_extra={"multipleOf": 7})


class SchemaRefusesOwnMoves(SecretSplit):
    propose_payload = SevensOnly


class NoPosition(SecretSplit):
    def bargaining_position(self, player_id: str) -> BargainingPosition | None:
        return None


class NoCeiling(BaseModel):
    """A claim with a floor and no ceiling: `2**1024` validates, and `float()` of it overflows."""

    model_config = ConfigDict(extra="forbid")
    mine: int = Field(ge=0)


class UnboundedPayload(SecretSplit):
    propose_payload = NoCeiling


class OpenConfig(GameConfig):
    stake: float = Field(default=1.0, gt=0, description="No upper bound.")


class UnboundedConfig(SecretSplit):
    Config = OpenConfig


class SkipsAPlayer(SecretSplit):
    def phase_order(self, phase_name: str) -> list[str] | None:
        return self.players[:1]  # not every player: the engine refuses it


class FrozenRound(SecretSplit):
    def begin_round(self, round_number: int) -> None:
        self.game_data["round_seen"] = round_number  # without super(): current_round would stay 0
