"""Reading claim actions off the payload schemas, shared by the `greedy` and `cooperative` agents.

A claim action is one whose payload has integer or number fields with a maximum (a split's
claim on each item, an offer's own share); everything else about a game is left to its view.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pydantic import JsonValue

from negotiation_platform.agents.base import Decision, OutgoingMessage
from negotiation_platform.agents.offers import bargain_toward, schema_number, schema_object
from negotiation_platform.agents.random_agent import RandomAgent
from negotiation_platform.agents.turns import AllowedAction, Payload, allowed_actions, bargaining, messaging

NUMERIC = frozenset({"integer", "number"})
LAST_RESORTS = frozenset({"walk_away", "reject"})
"""Payload-less actions an agent that claims takes only when nothing else is open."""


def claim_fields(action: AllowedAction) -> dict[str, float]:
    """The action's bounded numeric payload fields and their maxima."""
    fields = {name: schema_object(prop) for name, prop in _properties(action).items()}
    return {
        name: schema_number(prop, "maximum")
        for name, prop in fields.items()
        if prop.get("type") in NUMERIC and "maximum" in prop
    }


def claim_action(allowed: dict[str, AllowedAction]) -> AllowedAction | None:
    """The first open action whose payload is all bounded numeric fields (None: no such action)."""
    for action in allowed.values():
        fields = claim_fields(action)
        if fields and len(fields) == len(_properties(action)):
            return action
    return None


def claim(action: AllowedAction, amount: Callable[[str, float], float]) -> Payload:
    """A payload claiming `amount(field, maximum)` of each field (integers for integer fields)."""
    properties = _properties(action)
    return {
        name: round(amount(name, most))
        if schema_object(properties[name]).get("type") == "integer"
        else float(amount(name, most))
        for name, most in claim_fields(action).items()
    }


def quiet_action(allowed: dict[str, AllowedAction]) -> str | None:
    """A payload-less action (pass, accept), walking away or rejecting only when nothing else is open."""
    quiet = [name for name, action in allowed.items() if not _properties(action)]
    preferred = [name for name in quiet if name not in LAST_RESORTS]
    return next(iter(preferred or quiet), None)


def _properties(action: AllowedAction) -> Mapping[str, JsonValue]:
    return schema_object(action["payload_schema"].get("properties"))


class ClaimingAgent:
    """What `greedy` and `cooperative` share: a fixed bargaining target, a split rule, a word before splitting.

    Subclasses set `kind` and `target(best, reservation)` (the offer they hold to and the least they
    accept, in a `bargaining` position's terms), `split(turn, action)` (a claim action's payload) and may
    set `say(turn)` (messages where the phase lets them talk). With none of these open they take a
    payload-less action, else a random legal one.
    """

    kind = "claiming"
    reads_prompt = False
    reads_turn_in_place = True

    def __init__(self, seed: int = 0, name: str | None = None) -> None:
        self.name = name or self.kind
        self._fallback = RandomAgent(seed=seed, name=self.name)

    def target(self, best: float, reservation: float) -> float:
        raise NotImplementedError

    def split(self, turn: Mapping[str, object], action: AllowedAction) -> Payload:
        raise NotImplementedError

    def say(self, turn: Mapping[str, object]) -> list[OutgoingMessage]:
        return []

    def observe(self, turn: Mapping[str, object]) -> None:
        """Show every turn to the random fallback, so its draws stay those of a fresh agent."""
        self._fallback.observe(turn)

    def decide(self, turn: Mapping[str, object]) -> Decision:
        self.observe(turn)
        allowed = allowed_actions(turn)
        position = bargaining(turn)
        if position:
            decision = bargain_toward(position, allowed, self.target)
            if decision is not None:
                return decision
        action = claim_action(allowed)
        if action is not None:
            return Decision(action=action["name"], payload=self.split(turn, action))
        allowance = messaging(turn)
        said = self.say(turn) if allowance.get("public") else []
        if said and allowance.get("uses_turn"):
            return Decision(messages=said)
        quiet = quiet_action(allowed)
        return Decision(messages=said, action=quiet) if quiet is not None else self._fallback.decide(turn)
