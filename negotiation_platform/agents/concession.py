"""`concession`: time-based concession from its best outcome toward its reservation value.

The classic time-dependent tactic (Faratin, Sierra & Jennings 1998): at progress t in (0, 1) the
target is best + (reservation - best) * t ** (1 / beta); beta < 1 concedes late (Boulware),
beta > 1 early (Conceder). It accepts a standing offer at least as good as its next target.
It reads the game's `bargaining` position from the turn state (a numeric field, or a menu of
offers with its utilities); in phases or games without one it takes the first action that needs
no payload, otherwise a random legal action, and warns once when the game offers bargaining
actions yet no position (it cannot bargain there, only walk away or accept whatever stands).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

from negotiation_platform.agents.base import Decision
from negotiation_platform.agents.offers import bargain_toward
from negotiation_platform.agents.random_agent import RandomAgent
from negotiation_platform.agents.turns import AllowedAction, allowed_actions, bargaining, progress
from negotiation_platform.games.bargaining import BargainingPosition
from negotiation_platform.games.base_game import BARGAINING_ACTIONS


class NoBargainingPositionWarning(UserWarning):
    """A scripted negotiator plays a bargaining game that does not describe its position."""


class ConcessionAgent:
    """Time-based concession from its best outcome toward its reservation value."""

    reads_prompt = False

    reads_turn_in_place = True

    def __init__(self, seed: int = 0, name: str = "concession", beta: float = 1.0) -> None:
        self.name = name
        self.beta = beta
        self._fallback = RandomAgent(seed=seed, name=name)
        self._warned = False

    def target(self, best: float, reservation: float, progress: float) -> float:
        return best + (reservation - best) * float(progress ** (1.0 / self.beta))

    def observe(self, turn: Mapping[str, object]) -> None:
        """Show every turn to the random fallback, so its draws stay those of a fresh agent (`RandomAgent`)."""
        self._fallback.observe(turn)

    def decide(self, turn: Mapping[str, object]) -> Decision:
        self.observe(turn)
        allowed = allowed_actions(turn)
        position = bargaining(turn)
        if position and (position["action"] in allowed or position.get("accept_action") in allowed):
            decision = self._bargain(progress(turn), position, allowed)
            if decision is not None:
                return decision
        elif not position:
            self._warn_without_position(turn, allowed)
        for name, action in allowed.items():
            if not action["payload_schema"].get("properties"):
                return Decision(action=name)
        return self._fallback.decide(turn)

    def _warn_without_position(self, turn: Mapping[str, object], allowed: Mapping[str, object]) -> None:
        offered = sorted(BARGAINING_ACTIONS & set(allowed))
        if offered and not self._warned:
            self._warned = True
            warnings.warn(
                f"agent {self.name!r} plays {turn.get('game_id', 'a game')!r}, which offers {offered} but no "
                "bargaining_position(): it cannot bargain and falls back to the first action without a payload "
                "(often accept or walk away), else a random one",
                NoBargainingPositionWarning,
                stacklevel=2,
            )

    def _bargain(
        self, progress: float, position: BargainingPosition, allowed: dict[str, AllowedAction]
    ) -> Decision | None:
        return bargain_toward(position, allowed, lambda best, reservation: self.target(best, reservation, progress))
