"""What a game *is*, declared as data: roles, phases, turn order, limits, actions, messaging, outcome.

A spec has no behaviour and no state. The engine enforces it, the rules text and prompts are
generated from it, and `spec.model_dump_json()` gives it to agents with the JSON Schema of every
action payload, so what an agent reads is exactly what is enforced.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_serializer, model_validator


@cache
def payload_schema(payload: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of a payload model (cached: generating it is costly and models never change)."""
    return payload.model_json_schema()


class EmptyPayload(BaseModel):
    """The payload of an action that carries no data (accept, walk away, pass)."""

    model_config = ConfigDict(extra="forbid")


class OpenPayload(BaseModel):
    """The payload of a free-form action: any JSON object, which the game's own rules then judge
    (the action of a game that declares no spec of its own; see `BaseGame.build_spec`)."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"additionalProperties": True})


class TurnOrder(StrEnum):
    """Who may act while a phase is open."""

    ALTERNATING = "alternating"
    """One player at a time, in an order fixed by `StartRule`."""
    SIMULTANEOUS = "simultaneous"
    """Everyone acts once, sealed; submissions are revealed when the phase closes."""
    FREE = "free"
    """Anyone who has not finished may act at any time."""


class StartRule(StrEnum):
    """How the order of an alternating phase is chosen each round."""

    FIXED = "fixed"
    """The same order every round, beginning with the first mover."""
    ROTATING = "rotating"
    """The first mover of round r is the player after the first mover of round r - 1."""
    SHUFFLED = "shuffled"
    """A fresh order drawn from the match's seeded generator every round."""
    GAME_DECIDES = "game_decides"
    """The game's `phase_order` gives the order every round, by a rule of its own that the phase's
    description states (the engine refuses a game that declares it and gives no order)."""


class FirstMover(StrEnum):
    """Who opens the first round of a fixed or rotating order."""

    FIRST_SEAT = "first_seat"
    """The first player of the match's player list."""
    SEEDED = "seeded"
    """A player drawn once from the match's seeded generator."""


class Channel(StrEnum):
    """Which message channels a phase opens."""

    NONE = "none"
    """No messages."""
    PUBLIC = "public"
    """Messages every player (and every spectator) reads."""
    PRIVATE = "private"
    """Messages to chosen players, which only they and the sender read."""
    BOTH = "both"
    """Public and private messages."""

    @property
    def allows_public(self) -> bool:
        return self in (Channel.PUBLIC, Channel.BOTH)

    @property
    def allows_private(self) -> bool:
        return self in (Channel.PRIVATE, Channel.BOTH)


class PhaseEnd(StrEnum):
    """Conditions that close a phase; the phase closes when any listed condition holds."""

    TURNS_USED = "turns_used"
    """Every player has used all its turns in the phase."""
    MESSAGES_USED = "messages_used"
    """Every player has finished its turns or sent its whole message quota."""
    DEADLINE = "deadline"
    """The phase's clock ran out (`seconds_per_turn` of a free or simultaneous phase)."""
    GAME_DECIDES = "game_decides"
    """The game closes the phase itself, e.g. on agreement."""


class OutcomeKind(StrEnum):
    """Who decides the final result (the rules text names it)."""

    AGREEMENT = "agreement"
    """The players' agreement, if they reach one; else what the outcome's description says."""
    ENGINE_RULE = "engine_rule"
    """A rule applied to what the players did (an auction's price, a split of what was claimed)."""


class RoleAssignment(StrEnum):
    """How named roles are given to the seats; the engine checks it against the game's `seat_roles()`."""

    BY_SEAT = "by_seat"
    """Seat i plays role i."""
    SEEDED = "seeded"
    """The game draws the roles from the match seed (the rules text says so)."""


PayloadModel = Annotated[
    type[BaseModel],
    WithJsonSchema({"type": "object", "description": "JSON Schema of the action's payload"}),
]


class ActionSpec(BaseModel):
    """One action a player may take, with the pydantic model its payload must satisfy."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="What agents call the action (lower-case snake case).")
    description: str = Field(description="What the action does, in the words of the rules text and prompts.")
    payload: PayloadModel = Field(
        default=EmptyPayload,
        description="The pydantic model the payload must validate against; agents get its JSON Schema.",
    )
    aliases: tuple[str, ...] = Field(
        default=(), description="Other names agents may use for this action (recorded under `name`)."
    )
    max_per_player: int | None = Field(
        default=None, ge=1, description="How often one player may take it in a whole match."
    )
    ends_turn: bool = Field(default=True, description="Whether taking it ends the player's turn at once.")

    @field_serializer("payload")
    def _payload_schema(self, payload: type[BaseModel]) -> dict[str, Any]:
        return payload_schema(payload)


class DefaultAction(BaseModel):
    """What the engine plays for a player whose time runs out."""

    model_config = ConfigDict(frozen=True)

    action: str = Field(description="The name of one of the phase's actions.")
    payload: dict[str, Any] = Field(
        default_factory=dict, description="The payload played with it (validated like a player's)."
    )


class MessagingPolicy(BaseModel):
    """Which messages a phase allows, how long they may be, and what they cost."""

    model_config = ConfigDict(frozen=True)

    channel: Channel = Field(default=Channel.NONE, description="Which messages the phase allows.")
    uses_turn: bool = Field(default=False, description="Whether sending a message is the sender's whole turn.")
    max_length: int = Field(default=500, ge=1, description="Characters per message.")
    per_player: int | None = Field(
        default=None, ge=0, description="Messages one player may send in the phase each round."
    )
    per_turn: int | None = Field(default=None, ge=0, description="Messages one player may send within a single turn.")


class PhaseLimits(BaseModel):
    """Budgets of one phase, counted per round."""

    model_config = ConfigDict(frozen=True)

    turns: int | None = Field(
        default=1,
        ge=1,
        description="Turns each player gets in the phase per round (None: unlimited, free phases).",
    )
    actions_per_turn: int = Field(
        default=1, ge=1, description="Actions a player may take before its turn ends (see `ActionSpec.ends_turn`)."
    )
    seconds_per_turn: float | None = Field(
        default=None,
        gt=0,
        description="Clock per turn; in free and simultaneous phases the whole phase's clock.",
    )


class PhaseSpec(BaseModel):
    """One phase of a round."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="The phase's name (lower-case snake case).")
    description: str = Field(default="", description="What happens in the phase, in the rules text's words.")
    turn_order: TurnOrder = Field(default=TurnOrder.ALTERNATING, description="Who may act while the phase is open.")
    start: StartRule = Field(
        default=StartRule.FIXED, description="Alternating phases: how the order is chosen each round."
    )
    first_mover: FirstMover = Field(
        default=FirstMover.FIRST_SEAT, description="Fixed and rotating orders: who opens the first round."
    )
    limits: PhaseLimits = Field(default=PhaseLimits(), description="Turns, actions per turn and the clock.")
    actions: tuple[ActionSpec, ...] = Field(default=(), description="The actions players may take in the phase.")
    messaging: MessagingPolicy = Field(
        default=MessagingPolicy(), description="Which messages the phase allows and what they cost."
    )
    ends_when: tuple[PhaseEnd, ...] = Field(
        default=(PhaseEnd.TURNS_USED,), description="The phase closes when any of these holds."
    )
    default_action: DefaultAction | None = Field(
        default=None, description="What the engine plays for a player whose time runs out (None: the turn is lost)."
    )
    reveal_actions: bool = Field(
        default=True,
        description="Simultaneous phases: publish every sealed submission when the phase closes.",
    )
    first_round: int = Field(default=1, ge=1, description="The first round in which this phase runs.")
    last_round: int | None = Field(
        default=None, ge=1, description="The last round in which this phase runs (None: every round to the end)."
    )

    def runs_in(self, round_number: int) -> bool:
        """Whether the phase opens in round `round_number` (a game may switch phases after some rounds)."""
        return self.first_round <= round_number and (self.last_round is None or round_number <= self.last_round)

    def action(self, name: str) -> ActionSpec | None:
        """The action called `name` (or one of its aliases) in this phase, if it is allowed here."""
        for action in self.actions:  # a loop, not a generator: asked on every action a match takes
            if name == action.name or name in action.aliases:
                return action
        return None

    @model_validator(mode="after")
    def _coherent(self) -> PhaseSpec:
        names = [n for a in self.actions for n in (a.name, *a.aliases)]
        if len(set(names)) != len(names):
            raise ValueError(f"phase {self.name!r} declares an action twice: {names}")
        if not self.actions and not self.messaging.uses_turn:
            raise ValueError(f"phase {self.name!r} has no action and messages do not take turns")
        if self.limits.turns is None and self.turn_order is not TurnOrder.FREE:
            raise ValueError(f"phase {self.name!r}: only free phases may have unlimited turns")
        if self.last_round is not None and self.last_round < self.first_round:
            raise ValueError(f"phase {self.name!r}: last_round {self.last_round} is before its first_round")
        if self.default_action is not None and self.action(self.default_action.action) is None:
            raise ValueError(
                f"phase {self.name!r}: default action {self.default_action.action!r} is not one of its actions"
            )
        return self


class RolesSpec(BaseModel):
    """Named roles, or a number of interchangeable seats."""

    model_config = ConfigDict(frozen=True)

    names: tuple[str, ...] = Field(
        default=(), description="The roles' names; empty for interchangeable seats (then the seats are numbered)."
    )
    min_players: int = Field(default=2, ge=1, description="Fewest seats a match may have.")
    max_players: int = Field(default=2, ge=1, description="Most seats a match may have.")
    assignment: RoleAssignment = Field(
        default=RoleAssignment.BY_SEAT,
        description="Named roles: `by_seat` (seat i plays role i) or `seeded` (the game draws them from the "
        "seed); the engine checks the game's `seat_roles()` against it.",
    )

    @model_validator(mode="after")
    def _coherent(self) -> RolesSpec:
        if self.min_players > self.max_players:
            raise ValueError("min_players is larger than max_players")
        if self.names and not (self.min_players == self.max_players == len(self.names)):
            raise ValueError("with named roles, min_players and max_players equal their number")
        return self


class OutcomeSpec(BaseModel):
    """How the result is decided and how it maps to payoffs, in words the rules text reuses."""

    model_config = ConfigDict(frozen=True)

    kind: OutcomeKind = Field(default=OutcomeKind.AGREEMENT, description="Who decides the final result.")
    description: str = Field(description="How the result maps to payoffs, in the words of the rules text.")


class GameSpec(BaseModel):
    """Everything the engine enforces about a game, and everything an agent needs to read."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="The game's id in the registry and on every transport.")
    title: str = Field(description="The game's name for people.")
    summary: str = Field(description="One paragraph on what the game is; it opens the rules text.")
    roles: RolesSpec = Field(default=RolesSpec(), description="Who plays: named roles or interchangeable seats.")
    rounds: int = Field(default=1, ge=1, description="How many times the phases run, in order.")
    phases: tuple[PhaseSpec, ...] = Field(
        min_length=1, description="The phases of a round, in order (each may run in some rounds only)."
    )
    outcome: OutcomeSpec = Field(description="How the result is decided.")

    def phase(self, name: str) -> PhaseSpec | None:
        return next((p for p in self.phases if p.name == name), None)

    def all_action_names(self) -> set[str]:
        return {n for p in self.phases for a in p.actions for n in (a.name, *a.aliases)}

    @model_validator(mode="after")
    def _unique_phases(self) -> GameSpec:
        names = [p.name for p in self.phases]
        if len(set(names)) != len(names):
            raise ValueError(f"phase names repeat: {names}")
        covered = 0  # rounds 1..covered have a phase; walk the phases' windows in order of their start
        for phase in sorted(self.phases, key=lambda p: p.first_round):
            if phase.first_round > covered + 1:
                break
            covered = max(covered, self.rounds if phase.last_round is None else phase.last_round)
        if covered < self.rounds:
            raise ValueError(f"no phase runs in round {covered + 1}")
        return self
