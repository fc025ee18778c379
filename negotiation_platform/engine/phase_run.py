"""Book-keeping of one phase during one round: who may act, and what each player has used."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from negotiation_platform.spec import PhaseEnd, PhaseSpec, TurnOrder


@dataclass
class PhaseRun:
    phase: PhaseSpec
    players: list[str]
    order: list[str]
    """Alternating phases: the turn order of this round (otherwise the seat order)."""
    turn_index: int = 0
    turns_taken: Counter[str] = field(default_factory=Counter)
    actions_in_turn: Counter[str] = field(default_factory=Counter)
    messages_in_turn: Counter[str] = field(default_factory=Counter)
    messages_sent: Counter[str] = field(default_factory=Counter)
    finished: set[str] = field(default_factory=set)
    submissions: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    deadline: float | None = None

    @property
    def alternating(self) -> bool:
        return self.phase.turn_order is TurnOrder.ALTERNATING

    def total_turns(self) -> int:
        turns = self.phase.limits.turns
        assert turns is not None, "alternating phases always have a turn limit"
        return turns * len(self.order)

    def messages_exhausted(self, player: str) -> bool:
        quota = self.phase.messaging.per_player
        return quota is not None and self.messages_sent[player] >= quota

    def acting(self) -> list[str]:
        """Players who may act right now, in seat order (or the current player)."""
        if self.alternating:
            if self.turn_index >= self.total_turns():
                return []
            return [self.order[self.turn_index % len(self.order)]]
        stop_on_quota = PhaseEnd.MESSAGES_USED in self.phase.ends_when
        return [
            p for p in self.players if p not in self.finished and not (stop_on_quota and self.messages_exhausted(p))
        ]

    def end_turn(self, player: str) -> None:
        """Close `player`'s current turn (in alternating phases: pass the turn on)."""
        self.actions_in_turn[player] = 0
        self.messages_in_turn[player] = 0
        self.turns_taken[player] += 1
        if self.alternating:
            self.turn_index += 1
        elif self.phase.limits.turns is not None and self.turns_taken[player] >= self.phase.limits.turns:
            self.finished.add(player)
