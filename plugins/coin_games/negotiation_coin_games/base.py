"""The protocol shared by the four coin games: per-round talk, then a sealed simultaneous split.

A variant says which items are on the table each round, what each agent values them at, what
each agent may see, and how claims turn into allocations. Everything random is drawn from the
match's seeded generator when a round begins, so a prompt or a view never consumes randomness.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field, create_model

from negotiation_platform.games.base_game import (
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES,
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
    FirstMover,
    GameSpec,
    MessagingPolicy,
    OutcomeKind,
    OutcomeSpec,
    PhaseLimits,
    PhaseSpec,
    StartRule,
    TurnOrder,
)
from negotiation_platform.spec.narration import Happening, does, name, plain_value

TALK, SPLIT = "talk", "split"


class CoinConfig(GameConfig):
    rounds: int = Field(default=10, ge=1, le=MAX_ROUNDS)
    messages_per_round: int = Field(
        default=1, ge=0, le=MAX_MESSAGES, description="Messages each agent sends per round (0: no talk)."
    )
    max_message_length: int = Field(default=500, ge=1, le=MAX_MESSAGE_CHARS)
    coins: int = Field(default=10, ge=1, le=1_000_000, description="Q: coins of each item type per round.")
    seconds_per_turn: float | None = Field(default=None, gt=0, le=MAX_SECONDS)


CoinConfigT = TypeVar("CoinConfigT", bound=CoinConfig)


def proportional_allocation(quantity: float, claims: dict[str, float]) -> dict[str, float]:
    """Each agent gets Q·x / max(Q, Σx): exact claims when they fit, scaled down when they over-claim."""
    scale = max(quantity, sum(claims.values()))
    return {agent: quantity * claim / scale if scale else 0.0 for agent, claim in claims.items()}


@cache
def split_payload(items: tuple[tuple[str, int], ...]) -> type[BaseModel]:
    """The split action's payload: one integer claim per item type, 0..max on the table."""
    fields: dict[str, Any] = {
        item: (int, Field(ge=0, le=most, description=f"How many {item} you claim (0..{most}).")) for item, most in items
    }
    return create_model("SplitPayload", __config__=ConfigDict(extra="forbid"), **fields)


class CoinGame(BaseGame[CoinConfigT]):
    """Template of the coin games; variants fill in the abstract methods."""

    spec_id: ClassVar[str]
    game_title: ClassVar[str]
    game_summary: ClassVar[str]
    payoff_text: ClassVar[str] = (
        "Claims that together exceed an item's stock are scaled down proportionally "
        "(each gets Q x claim / max(Q, sum of claims)); unclaimed coins are lost."
    )

    # --- variant hooks --------------------------------------------------------------------

    @classmethod
    def item_bounds(cls, config: CoinConfigT) -> tuple[tuple[str, int], ...]:
        """(item, largest possible stock) pairs for the split payload."""
        return (("coins", config.coins),)

    @abstractmethod
    def draw_round(self, starter: str) -> dict[str, Any]:
        """Draw this round's stock, values and private information: {"stock", "values", "private"}."""

    def allocate(self, claims: dict[str, dict[str, int]]) -> dict[str, dict[str, float]]:
        """Allocations per agent and item; by default proportional scaling per item."""
        stock = self.round_data["stock"]
        per_item = {
            item: proportional_allocation(stock[item], {a: c[item] for a, c in claims.items()}) for item in stock
        }
        return {agent: {item: per_item[item][agent] for item in stock} for agent in claims}

    @abstractmethod
    def visible_values(self, player_id: str) -> dict[str, Any]:
        """What `player_id` knows this round about values and hands (never the other's private values)."""

    # --- spec -----------------------------------------------------------------------------

    @classmethod
    def build_spec(cls, config: CoinConfigT) -> GameSpec:
        phases = []
        if config.messages_per_round > 0:
            phases.append(
                PhaseSpec(
                    name=TALK,
                    description="agents alternate messages, the round's starting agent first",
                    start=StartRule.ROTATING,
                    first_mover=FirstMover.SEEDED,
                    limits=PhaseLimits(turns=config.messages_per_round, seconds_per_turn=config.seconds_per_turn),
                    actions=(ActionSpec(name="pass", description="say nothing this turn"),),
                    messaging=MessagingPolicy(
                        channel=Channel.PUBLIC, uses_turn=True, max_length=config.max_message_length
                    ),
                    default_action=DefaultAction(action="pass"),
                )
            )
        items = cls.item_bounds(config)
        phases.append(
            PhaseSpec(
                name=SPLIT,
                description="both agents submit a split at the same time",
                turn_order=TurnOrder.SIMULTANEOUS,
                limits=PhaseLimits(turns=1, seconds_per_turn=config.seconds_per_turn),
                actions=(
                    ActionSpec(name="split", description="claim a share of each item", payload=split_payload(items)),
                ),
                default_action=DefaultAction(action="split", payload={item: 0 for item, _ in items}),
            )
        )
        return GameSpec(
            id=cls.spec_id,
            title=cls.game_title,
            summary=cls.game_summary,
            rounds=config.rounds,
            phases=tuple(phases),
            outcome=OutcomeSpec(
                kind=OutcomeKind.ENGINE_RULE,
                description=f"{cls.payoff_text} A round pays each agent the sum over items of its allocation times "
                "its own per-unit value; the match pays the sum over rounds.",
            ),
        )

    # --- lifecycle --------------------------------------------------------------------------

    def initialize_game(self, players: list[str]) -> bool:
        if len(players) != 2:
            raise ValueError(f"{self.spec.id} needs exactly 2 agents")
        self.players = list(players)
        self.game_data = {"first_starter": self.rng.randrange(2), "rounds": [], "totals": dict.fromkeys(players, 0.0)}
        self.state = GameState.ACTIVE
        return True

    def starter(self, round_number: int) -> str:
        """The round's starting agent: drawn once, then alternating."""
        first: int = self.game_data["first_starter"]
        return self.players[(first + round_number - 1) % 2]

    @property
    def round_data(self) -> dict[str, Any]:
        return self.game_data["rounds"][-1]  # type: ignore[no-any-return]

    def begin_round(self, round_number: int) -> None:
        super().begin_round(round_number)
        starter = self.starter(round_number)
        drawn = self.draw_round(starter)
        self.game_data["rounds"].append({"round": round_number, "starter": starter, "claims": {}, **drawn})

    def phase_order(self, phase_name: str) -> list[str] | None:
        if phase_name != TALK:
            return None
        starter = self.starter(self.current_round)
        return [starter, *(p for p in self.players if p != starter)]

    def process_action(self, action: PlayerAction) -> dict[str, Any]:
        self.add_action(action)
        if action.action_type == "split":
            self.round_data["claims"][action.player_id] = dict(action.action_data)
        return self.game_data

    def end_phase(self, phase_name: str) -> None:
        super().end_phase(phase_name)
        if phase_name != SPLIT:
            return
        data = self.round_data
        items = self.round_data["stock"]
        claims = {p: data["claims"].get(p, dict.fromkeys(items, 0)) for p in self.players}
        data["allocations"] = self.allocate(claims)
        data["rewards"] = {
            p: sum(data["allocations"][p][item] * data["values"][p][item] for item in items) for p in self.players
        }
        for p in self.players:
            self.game_data["totals"][p] += data["rewards"][p]
            self.notify({"round": data["round"], "your_reward": data["rewards"][p]}, to=[p])
        self.notify({"round": data["round"], "claims": claims, "allocations": data["allocations"]})

    def describe_event(self, event: Happening, reader: str | None) -> str:
        """Claims and what each seat got, in words: "you claim 2 hats, 1 ball", "you get 7 this round"."""
        data = event.data
        if event.kind == "action" and event.action_type == "split":
            claims = ", ".join(f"{plain_value(n)} {item}" for item, n in event.payload.items())
            return f"{does(event.actor, reader, 'claim')} {claims or 'nothing'}"
        if event.kind == "action" and event.action_type == "pass":
            return f"{does(event.actor, reader, 'pass', 'passes')}"
        if event.kind == "notice" and "your_reward" in data:
            return f"Round {data.get('round')}: you get {plain_value(data['your_reward'])}"
        allocations = data.get("allocations")
        if event.kind == "notice" and isinstance(allocations, Mapping):
            got = "; ".join(
                f"{name(p, reader)} {plain_value(dict(a)) if isinstance(a, Mapping) else a}"
                for p, a in allocations.items()
            )
            return f"Round {data.get('round')} shared out: {got}"
        return super().describe_event(event, reader)

    def check_end_conditions(self) -> bool:
        return False  # the match always runs all its rounds

    def calculate_scores(self) -> dict[str, float]:
        return dict(self.game_data["totals"])

    def agreement_terms(self) -> dict[str, Any] | None:
        played = [r for r in self.game_data["rounds"] if "allocations" in r]
        return {"allocations": [{"round": r["round"], "allocations": r["allocations"]} for r in played]}

    # --- views ------------------------------------------------------------------------------

    def get_player_view(self, player_id: str) -> dict[str, Any]:
        history = [
            {
                "round": r["round"],
                "claims": r["claims"],
                "allocations": r["allocations"],
                "your_reward": r["rewards"][player_id],
            }
            for r in self.game_data["rounds"]
            if "allocations" in r
        ]
        current = self.game_data["rounds"][-1] if self.game_data["rounds"] else None
        return {
            "round": self.current_round,
            "rounds": self.max_rounds,
            "phase": self.current_phase,
            "starting_agent": current["starter"] if current else None,
            "stock": current["stock"] if current else None,
            "your_claim": current["claims"].get(player_id) if current else None,
            **(self.visible_values(player_id) if current else {}),
            "history": history,
            "your_total": self.game_data["totals"][player_id],
        }

    def public_view(self) -> dict[str, Any]:
        """The pool on the table and the claims and allocations of past rounds (announced to both)."""
        current = self.game_data["rounds"][-1] if self.game_data["rounds"] else None
        return {
            "round": self.current_round,
            "rounds": self.max_rounds,
            "phase": self.current_phase,
            "players": list(self.players),
            "starting_agent": current["starter"] if current else None,
            "stock": current["stock"] if current else None,
            "history": [
                {"round": r["round"], "stock": r["stock"], "claims": r["claims"], "allocations": r["allocations"]}
                for r in self.game_data["rounds"]
                if "allocations" in r
            ],
        }

    def get_game_prompt(self, player_id: str) -> str:
        view = self.get_player_view(player_id)
        lines = [
            f"Round {view['round']} of {view['rounds']}; the starting agent this round is "
            + ("you." if view["starting_agent"] == player_id else "the other agent."),
            f"On the table: {view['stock']}.",
            *(
                f"{key.replace('_', ' ').capitalize()}: {value}"
                for key, value in self.visible_values(player_id).items()
            ),
            f"Your total so far: {view['your_total']:g}.",
        ]
        return compose_prompt(self.rules_text, self.game_title.upper(), lines, self.open_actions(player_id))
