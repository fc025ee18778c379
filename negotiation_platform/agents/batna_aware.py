"""`batna`: accepts any offer that beats its decayed BATNA, otherwise concedes with `suggest_next_offer`.

The BATNA-aware baseline of the documented games. Each new offer moves `step` of the remaining
gap from its previous offer toward its BATNA (negotiation_tools.suggest_next_offer), so it never
offers something worth less to it than walking away. On multi-issue games it concedes in
utility and, among offers worth the target, picks the one closest to the other side's offer.
"""

from __future__ import annotations

from collections.abc import Mapping

from negotiation_platform.agents.base import Decision
from negotiation_platform.agents.concession import ConcessionAgent
from negotiation_platform.agents.offers import field_offer, menu_offer, menu_utility
from negotiation_platform.agents.turns import AllowedAction, Payload, allowed_actions, bargaining
from negotiation_platform.games.bargaining import BargainingPosition
from negotiation_platform.games.negotiation_tools import suggest_next_offer


class BatnaAwareAgent:
    """Accepts what beats its decayed BATNA; otherwise concedes toward the BATNA step by step."""

    reads_prompt = False

    reads_turn_in_place = True

    def __init__(self, seed: int = 0, name: str = "batna", step: float = 0.25) -> None:
        self.name = name
        self.step = step
        self._fallback = ConcessionAgent(seed=seed, name=name)

    def observe(self, turn: Mapping[str, object]) -> None:
        """Show every turn to the fallback, whose random draws count the seat's moves."""
        self._fallback.observe(turn)

    def decide(self, turn: Mapping[str, object]) -> Decision:
        self.observe(turn)
        allowed = allowed_actions(turn)
        position = bargaining(turn)
        if not position or "batna" not in position:
            return self._fallback.decide(turn)
        standing = position.get("standing_utility")
        if position.get("accept_action") in allowed and standing is not None and standing > position["batna"]:
            return Decision(action=position["accept_action"])
        if position["action"] in allowed:
            payload = self._next_offer(position, allowed[position["action"]])
            if payload is not None:
                return Decision(action=position["action"], payload=payload)
        return Decision(action="reject") if "reject" in allowed else self._fallback.decide(turn)

    def _next_offer(self, position: BargainingPosition, action: AllowedAction) -> Payload | None:
        last = position.get("my_last_offer")
        if "menu" in position:
            menu = position["menu"]
            current = menu_utility(menu, last) if last is not None else None
            start = current if current is not None else max(item["utility"] for item in menu)
            target = suggest_next_offer(start, position["batna"], last is not None, self.step)
            return menu_offer(menu, max(target, position["batna"] + 1e-9), position.get("standing_offer"))
        field = position["field"]
        offered = last[field] if last is not None else position["best"]
        start = float(offered) if isinstance(offered, int | float) else position["best"]
        value = suggest_next_offer(start, position["reservation"], last is not None, self.step)
        return field_offer(action, field, value)
