"""Book-keeping of one phase during one round: who may act, and what each player has used.

Who may act is asked several times per action, so it is kept up to date by the methods that
change it (`end_turn`, `count_message`, `finish`) rather than recomputed on every question.
"""

from __future__ import annotations

from negotiation_platform.spec import ActionSpec, PhaseEnd, PhaseSpec, TurnOrder


class PhaseRun:
    """One per phase of a match, restarted every round it opens (its rules are read once)."""

    __slots__ = (
        "_stop_on_quota",
        "acting_now",
        "actions",
        "actions_in_turn",
        "actions_per_turn",
        "alternating",
        "deadline",
        "finished",
        "game_decides",
        "messages_in_turn",
        "messages_sent",
        "name",
        "order",
        "phase",
        "players",
        "reveals",
        "sealed",
        "seconds_per_turn",
        "submissions",
        "total_turns",
        "turn_index",
        "turns_taken",
    )

    def __init__(self, phase: PhaseSpec, players: list[str], order: list[str]) -> None:
        self.phase = phase
        self.name = phase.name
        self.players = players
        self.actions: dict[str, ActionSpec] = {n: a for a in phase.actions for n in (a.name, *a.aliases)}
        """The phase's actions by name and by alias (unique in a phase; the spec's own lookup walks them)."""
        self.alternating = phase.turn_order is TurnOrder.ALTERNATING
        self.sealed = phase.turn_order is TurnOrder.SIMULTANEOUS
        self.reveals = self.sealed and phase.reveal_actions
        """Whether closing the phase publishes its sealed submissions."""
        limits = phase.limits
        assert limits.turns is not None or not self.alternating, "alternating phases always have a turn limit"
        self.total_turns = limits.turns * len(order) if limits.turns is not None else 0
        self.actions_per_turn = limits.actions_per_turn
        self.seconds_per_turn = limits.seconds_per_turn
        self._stop_on_quota = PhaseEnd.MESSAGES_USED in phase.ends_when
        self.game_decides = PhaseEnd.GAME_DECIDES in phase.ends_when
        """Whether the game may close the phase before its turns run out (`phase_complete`)."""
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
        self.turns_taken.clear()
        self.actions_in_turn.clear()
        self.messages_in_turn.clear()
        self.messages_sent.clear()
        self.finished.clear()
        self.submissions = {}  # never emptied in place: whoever was handed last round's keeps it whole
        self.deadline: float | None = None
        self.acting_now: tuple[str, ...] = self._who_acts()
        """Who may act now (read it; the methods below keep it current)."""

    def acting(self) -> list[str]:
        """Players who may act right now, in seat order (or the current player)."""
        return list(self.acting_now)

    def end_turn(self, player: str) -> None:
        """Close `player`'s current turn (in alternating phases: pass the turn on)."""
        self.actions_in_turn[player] = 0
        self.messages_in_turn[player] = 0
        taken = self.turns_taken[player] = self.turns_taken.get(player, 0) + 1
        if self.alternating:
            self.turn_index += 1
            self.acting_now = self._next_in_order()
            return
        if self.phase.limits.turns is not None and taken >= self.phase.limits.turns:
            self.finished.add(player)
        self.acting_now = self._who_acts()

    def count_message(self, player: str) -> None:
        self.messages_sent[player] = self.messages_sent.get(player, 0) + 1
        self.messages_in_turn[player] = self.messages_in_turn.get(player, 0) + 1
        if self._stop_on_quota:
            self.acting_now = self._who_acts()

    def finish(self, players: list[str]) -> None:
        """`players` are done with this phase for the round (their clock ran out, or the phase's)."""
        self.finished.update(players)
        self.acting_now = self._who_acts()

    def _messages_exhausted(self, player: str) -> bool:
        quota = self.phase.messaging.per_player
        return quota is not None and self.messages_sent.get(player, 0) >= quota

    def _next_in_order(self) -> tuple[str, ...]:
        if self.turn_index >= self.total_turns:
            return ()
        return (self.order[self.turn_index % len(self.order)],)

    def _who_acts(self) -> tuple[str, ...]:
        if self.alternating:
            return self._next_in_order()
        return tuple(
            p
            for p in self.players
            if p not in self.finished and not (self._stop_on_quota and self._messages_exhausted(p))
        )
