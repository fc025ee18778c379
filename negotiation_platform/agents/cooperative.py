"""`cooperative`: asks for a fair split, accepts fair offers, and gives goods to whoever values them more.

The paper's always-cooperative (welfare-maximising) agent, over the payload schemas and views:
- in bargaining games (a `bargaining` position) it offers the midpoint between its best outcome and
  its reservation (BATNA) and accepts any offer worth at least that;
- where a phase lets it talk before splitting, it says what its view shows privately about values
  (`your_values`, a rock-paper-scissors `your_hand`) as a JSON object, and reads the other's;
- in split games it claims all of an item it values more, none of one it values less, and half on a tie
  or when it cannot tell (the round's starting agent takes the odd unit, so two halves fill the stock).
  Values come from the view (`all_values`, public) or from `your_values`/`your_hand` and what the other said.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from pydantic import JsonValue

from negotiation_platform.agents.base import OutgoingMessage
from negotiation_platform.agents.claims import ClaimingAgent, claim
from negotiation_platform.agents.turns import AllowedAction, Payload, seat_view, seen_events

PRIVATE_KEYS = ("your_values", "your_hand")
"""What a view may hold privately about values, and what the agent tells the other side."""
BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
"""Rock-paper-scissors hands: the winner values the goods more (as in Trust-and-Split)."""


class CooperativeAgent(ClaimingAgent):
    """Fair offers, fair acceptance, and welfare-maximising splits where the values are known."""

    kind = "cooperative"

    def __init__(self, seed: int = 0, name: str | None = None) -> None:
        super().__init__(seed=seed, name=name)
        self._heard: dict[object, dict[str, JsonValue]] = {}
        """Per round (as the events number it), what the other side last said as a JSON object."""

    def target(self, best: float, reservation: float) -> float:
        return (best + reservation) / 2

    def observe(self, turn: Mapping[str, object]) -> None:
        """Remember the other side's JSON messages by round; show the turn to the random fallback."""
        super().observe(turn)
        for event in seen_events(turn):
            if event["kind"] == "message" and event["actor"] != turn.get("agent_id"):
                said = _json_object(event["data"].get("content", ""))
                if said is not None:
                    self._heard[event["round"]] = said

    def say(self, turn: Mapping[str, object]) -> list[OutgoingMessage]:
        """What the view shows privately about values, as a JSON object (nothing when it shows none)."""
        view = seat_view(turn)
        told = {key: view[key] for key in PRIVATE_KEYS if key in view}
        return [OutgoingMessage(json.dumps(told, sort_keys=True))] if told else []

    def split(self, turn: Mapping[str, object], action: AllowedAction) -> Payload:
        view = seat_view(turn)
        mine, theirs = self._values(turn, view)
        starts = view.get("starting_agent") == turn.get("agent_id")

        def amount(item: str, most: float) -> float:
            mine_v, theirs_v = mine.get(item), theirs.get(item)
            if mine_v is None or theirs_v is None or mine_v == theirs_v:
                return -(-most // 2) if starts else most // 2
            return most if mine_v > theirs_v else 0

        return claim(action, amount)

    def _values(
        self, turn: Mapping[str, object], view: Mapping[str, JsonValue]
    ) -> tuple[dict[str, float], dict[str, float]]:
        """(my values, the other's) per item, as far as they are known ({} where not)."""
        me = turn.get("agent_id")
        public = view.get("all_values")
        if isinstance(public, dict) and me in public:
            others = [values for seat, values in public.items() if seat != me]
            return _values_of(public[str(me)]), _values_of(others[0]) if len(others) == 1 else {}
        heard = self._heard.get(view.get("round", turn.get("round", 0)), {})
        if "your_values" in view:
            return _values_of(view["your_values"]), _values_of(heard.get("your_values"))
        hand, other_hand = view.get("your_hand"), heard.get("your_hand")
        if isinstance(hand, str) and hand in BEATS and other_hand in BEATS and hand != other_hand:
            won = float(BEATS[hand] == other_hand)
            stock = view.get("stock")
            items = stock.keys() if isinstance(stock, dict) else ()
            return dict.fromkeys(items, won), dict.fromkeys(items, 1.0 - won)
        return {}, {}


def _values_of(value: JsonValue) -> dict[str, float]:
    """A view's values per item ({} where it holds none)."""
    if not isinstance(value, dict):
        return {}
    return {item: worth for item, worth in value.items() if isinstance(worth, int | float)}


def _json_object(text: JsonValue) -> dict[str, JsonValue] | None:
    if not isinstance(text, str):
        return None
    try:
        said = json.loads(text)
    except json.JSONDecodeError:
        return None
    return said if isinstance(said, dict) else None
