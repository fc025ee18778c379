"""Book-keeping of one phase during one round: who may act, and what each player has used.

Who may act is asked several times per action, so it is kept up to date by the methods that
change it (`end_turn`, `count_message`, `finish`) rather than recomputed on every question.
"""

from __future__ import annotations

from negotiation_platform.engine.plan import PhasePlan


class PhaseRun:
    """One per phase of a match, restarted every round it opens (its rules are its plan's)."""

    __slots__ = (
        "acting_now",
        "actions",
        "actions_in_turn",
        "alternating",
        "deadline",
        "finished",
        "messages_in_turn",
        "messages_sent",
        "order",
        "plan",
        "players",
        "submissions",
        "total_turns",
        "turn_index",
        "turns_taken",
    )

    def __init__(self, plan: PhasePlan, players: list[str], order: list[str]) -> None:
        self.plan = plan
        self.players = players
        self.actions = plan.actions
        self.alternating = plan.alternating
        self.total_turns = plan.turns * len(players) if plan.turns is not None else 0
        # per-player counts, absent meaning 0; emptied, not replaced, each round (they are read nowhere else)
        self.turns_taken: dict[str, int] = {}
        self.actions_in_turn: dict[str, int] = {}
        self.messages_in_turn: dict[str, int] = {}
        self.messages_sent: dict[str, int] = {}
        self.finished: set[str] = set()
        self.submissions: dict[str, list[dict[str, object]]] = {}
        self.restart(order)

    def restart(self, order: list[str]) -> None:
        """Open the phase for a new round with turn order `order` (otherwise the seat order)."""
        self.order = order
        self.turn_index = 0
        if self.turns_taken:
            self.turns_taken.clear()
        if self.actions_in_turn:
            self.actions_in_turn.clear()
        if self.messages_in_turn:
            self.messages_in_turn.clear()
        if self.messages_sent:
            self.messages_sent.clear()
        if self.finished:
            self.finished.clear()
        if self.submissions:
            self.submissions = {}  # never emptied in place: whoever was handed last round's keeps it whole
        self.deadline: float | None = None
        self.acting_now: tuple[str, ...] = (
            ((order[0],) if self.total_turns else ()) if self.alternating else self._who_acts()
        )
        """Who may act now (read it; the methods below keep it current)."""

    def acting(self) -> list[str]:
        """Players who may act right now, in seat order (or the current player)."""
        return list(self.acting_now)

    def end_turn(self, player: str) -> None:
        """Close `player`'s current turn (in alternating phases: pass the turn on)."""
        if self.actions_in_turn:
            self.actions_in_turn[player] = 0
        if self.messages_in_turn:
            self.messages_in_turn[player] = 0
        if self.alternating:  # turns are counted by the turn index alone
            index = self.turn_index = self.turn_index + 1
            self.acting_now = (self.order[index % len(self.order)],) if index < self.total_turns else ()
            return
        taken = self.turns_taken[player] = self.turns_taken.get(player, 0) + 1
        turns = self.plan.turns
        if turns is not None and taken >= turns:
            self.finished.add(player)
        self.acting_now = self._who_acts()

    def count_message(self, player: str) -> None:
        self.messages_sent[player] = self.messages_sent.get(player, 0) + 1
        self.messages_in_turn[player] = self.messages_in_turn.get(player, 0) + 1
        if self.plan.stop_on_quota:
            self.acting_now = self._who_acts()

    def finish(self, players: list[str]) -> None:
        """`players` are done with this phase for the round (their clock ran out, or the phase's)."""
        self.finished.update(players)
        self.acting_now = self._who_acts()

    def _messages_exhausted(self, player: str) -> bool:
        quota = self.plan.messaging.per_player
        return quota is not None and self.messages_sent.get(player, 0) >= quota

    def _who_acts(self) -> tuple[str, ...]:
        if self.alternating:
            index = self.turn_index
            return (self.order[index % len(self.order)],) if index < self.total_turns else ()
        stop_on_quota = self.plan.stop_on_quota
        return tuple(
            p for p in self.players if p not in self.finished and not (stop_on_quota and self._messages_exhausted(p))
        )
