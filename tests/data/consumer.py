"""A program that uses negotiation_platform only through its public API, as a user would.

The tests type-check it with `mypy --strict` (so every public name must be visible to type
checkers) and run it (so what it does must work). It defines a game with a spec, registers it
through a plugin object, plays it with built-in and home-made agents, and reads the results.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from negotiation_platform import (
    ActionSpec,
    Agent,
    Arena,
    BargainingPosition,
    BaseGame,
    Decision,
    ErrorCode,
    GameConfig,
    GameResult,
    GameSpec,
    GameState,
    Match,
    NegotiationError,
    OutcomeSpec,
    PhaseSpec,
    PlayerAction,
    RandomAgent,
    Registry,
    RolesSpec,
    TurnOrder,
    hookimpl,
    play_match,
)

MAX_POT = 100


class PotConfig(GameConfig):
    pot: int = Field(default=MAX_POT, ge=1, le=MAX_POT)
    rounds: int = Field(default=3, ge=1, le=20)


class Claim(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mine: int = Field(ge=0, le=MAX_POT, description="How much of the pot you claim.")


class PotSplit(BaseGame[PotConfig]):
    """Both players claim part of a pot at once; claims that fit in the pot are paid."""

    Config = PotConfig

    @classmethod
    def build_spec(cls, config: PotConfig) -> GameSpec:
        return GameSpec(
            id="pot_split",
            title="Pot split",
            summary=f"Two players claim shares of a pot of {config.pot}, sealed, every round.",
            roles=RolesSpec(names=("left", "right"), min_players=2, max_players=2),
            rounds=config.rounds,
            phases=(
                PhaseSpec(
                    name="claim",
                    turn_order=TurnOrder.SIMULTANEOUS,
                    actions=(ActionSpec(name="claim", description="claim part of the pot", payload=Claim),),
                ),
            ),
            outcome=OutcomeSpec(description="If the claims fit in the pot, each gets its claim; otherwise nothing."),
        )

    def initialize_game(self, players: list[str]) -> bool:
        self.players = list(players)
        self.game_data = {"claims": {}, "deal": None}
        self.state = GameState.ACTIVE
        return True

    def action_error(self, player_id: str, action: dict[str, Any]) -> str | None:
        pot = self.settings.pot
        return None if action["mine"] <= pot else f"The pot holds only {pot}."

    def process_action(self, action: PlayerAction) -> dict[str, Any]:
        self.add_action(action)
        self.game_data["claims"][action.player_id] = int(action.action_data["mine"])
        return self.game_data

    def end_phase(self, phase_name: str) -> None:
        claims: dict[str, int] = self.game_data["claims"]
        if sum(claims.values()) <= self.settings.pot:
            self.game_data["deal"] = dict(claims)
        self.game_data["claims"] = {}

    def check_end_conditions(self) -> bool:
        return self.game_data["deal"] is not None

    def agreement_terms(self) -> dict[str, Any] | None:
        deal: dict[str, int] | None = self.game_data["deal"]
        return None if deal is None else dict(deal)

    def calculate_scores(self) -> dict[str, float]:
        deal: dict[str, int] = self.game_data["deal"] or {}
        return {p: float(deal.get(p, 0)) for p in self.players}

    def bargaining_position(self, player_id: str) -> BargainingPosition | None:
        pot = float(self.settings.pot)
        return {"action": "claim", "field": "mine", "best": pot, "reservation": 0.0, "accept_action": None}

    def get_game_prompt(self, player_id: str) -> str:
        return f'{self.rules_text}\nClaim part of the pot: {{"mine": 0..{self.settings.pot}}}.'


class PotPlugin:
    @hookimpl
    def register_games(self) -> list[type[Any]]:
        return [PotSplit]


class HalfClaimer:
    """A home-made agent: claims half the pot, read from the rules it is shown."""

    def __init__(self, name: str, pot: int) -> None:
        self.name = name
        self.pot = pot

    def decide(self, turn: dict[str, Any]) -> Decision:
        if not turn["allowed_actions"]:
            return Decision()
        return Decision(action="claim", payload={"mine": self.pot // 2})


def play_in_process(registry: Registry) -> dict[str, Any]:
    """A whole match through the arena, with a built-in agent and a home-made one."""
    agents: list[Agent] = [HalfClaimer("half", MAX_POT), RandomAgent(seed=3, name="random")]
    return asyncio.run(play_match(Arena(registry), "pot_split", agents, config={"rounds": 5}, seed=11))


def play_directly() -> GameResult:
    """A match driven action by action through the engine, with a refusal along the way."""
    match = Match(PotSplit, ["ann", "bob"], config={"pot": 10}, seed=1)
    try:
        match.submit("ann", "claim", {"mine": 11})
    except NegotiationError as refused:
        assert refused.code is ErrorCode.INVALID_ACTION, refused.code
    match.submit("ann", "claim", {"mine": 6})
    match.submit("bob", "claim", {"mine": 4})
    assert match.result is not None, "claims of 6 and 4 fit a pot of 10"
    return match.result


def main() -> None:
    registry = Registry()
    registry.register(PotPlugin(), name="pot_plugin")
    assert "pot_split" in registry.games(), registry.problems
    played = play_in_process(registry)
    direct = play_directly()
    assert direct.final_scores == {"ann": 6.0, "bob": 4.0} and direct.winner == "ann"
    print(f"arena: {played['status']} after {played['rounds']} rounds, payoffs {played['payoffs']}")
    print(f"engine: payoffs {direct.final_scores}, terms {direct.game_data['terms']}")


if __name__ == "__main__":
    main()
