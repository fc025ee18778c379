"""A configurable game whose spec is built from its config, to exercise each spec feature in tests."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from negotiation_platform.games.base_game import BaseGame, GameConfig, GameState, PlayerAction
from negotiation_platform.spec import (
    ActionSpec,
    Channel,
    DefaultAction,
    FirstMover,
    GameSpec,
    MessagingPolicy,
    OutcomeSpec,
    PhaseEnd,
    PhaseLimits,
    PhaseSpec,
    RolesSpec,
    StartRule,
    TurnOrder,
)


class Move(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int = Field(ge=0, le=9)


class ProbeConfig(GameConfig):
    players: int = 2
    rounds: int = 2
    turn_order: TurnOrder = TurnOrder.ALTERNATING
    start: StartRule = StartRule.FIXED
    first_mover: FirstMover = FirstMover.FIRST_SEAT
    turns: int | None = 1
    actions_per_turn: int = 1
    seconds: float | None = None
    channel: Channel = Channel.BOTH
    uses_turn: bool = False
    per_player: int | None = None
    per_turn: int | None = None
    max_length: int = 50
    ends_when: tuple[PhaseEnd, ...] = (PhaseEnd.TURNS_USED,)
    max_moves: int | None = None
    second_phase: bool = False
    forbid_seven: bool = False


class ProbeGame(BaseGame[ProbeConfig]):
    """Players post numbers; `stop` ends the game; the score is the sum of one's numbers."""

    Config = ProbeConfig

    @classmethod
    def build_spec(cls, config: ProbeConfig) -> GameSpec:
        main = PhaseSpec(
            name="main",
            turn_order=config.turn_order,
            start=config.start,
            first_mover=config.first_mover,
            limits=PhaseLimits(
                turns=config.turns, actions_per_turn=config.actions_per_turn, seconds_per_turn=config.seconds
            ),
            actions=(
                ActionSpec(name="move", description="post a number", payload=Move, max_per_player=config.max_moves),
                ActionSpec(name="note", description="post without ending the turn", ends_turn=False),
                ActionSpec(name="stop", description="end the game"),
                ActionSpec(name="close", description="ask the game to close the phase"),
            ),
            messaging=MessagingPolicy(
                channel=config.channel,
                uses_turn=config.uses_turn,
                per_player=config.per_player,
                per_turn=config.per_turn,
                max_length=config.max_length,
            ),
            ends_when=config.ends_when,
            default_action=DefaultAction(action="move", payload={"n": 0}),
        )
        phases = [main]
        if config.second_phase:
            phases.append(PhaseSpec(name="after", actions=(ActionSpec(name="ack", description="acknowledge"),)))
        return GameSpec(
            id="probe",
            title="Probe",
            summary="A test game.",
            roles=RolesSpec(min_players=config.players, max_players=config.players),
            rounds=config.rounds,
            phases=tuple(phases),
            outcome=OutcomeSpec(description="Sum of your numbers."),
        )

    def initialize_game(self, players: list[str]) -> bool:
        self.players = list(players)
        self.game_data = {
            "moves": [],
            "stopped": False,
            "close": False,
            "secret": {p: self.rng.randint(0, 999) for p in players},
        }
        self.state = GameState.ACTIVE
        return True

    def action_error(self, player_id: str, action: dict[str, Any]) -> str | None:
        if self.settings.forbid_seven and action.get("n") == 7:
            return "7 is not allowed"
        return None

    def process_action(self, action: PlayerAction) -> dict[str, Any]:
        self.add_action(action)
        if action.action_type == "move":
            self.game_data["moves"].append((action.player_id, action.action_data["n"]))
        elif action.action_type == "stop":
            self.game_data["stopped"] = True
        elif action.action_type == "close":
            self.game_data["close"] = True
        return self.game_data

    def begin_phase(self, phase_name: str) -> None:
        super().begin_phase(phase_name)
        self.game_data["close"] = False

    def phase_complete(self, phase_name: str) -> bool:
        return bool(self.game_data["close"])

    def check_end_conditions(self) -> bool:
        return bool(self.game_data["stopped"])

    def calculate_scores(self) -> dict[str, float]:
        return {p: float(sum(n for who, n in self.game_data["moves"] if who == p)) for p in self.players}

    def get_player_view(self, player_id: str) -> dict[str, Any]:
        return {"moves": list(self.game_data["moves"]), "my_secret": self.game_data["secret"][player_id]}

    def get_game_prompt(self, player_id: str) -> str:
        return f"probe prompt for {player_id}"
