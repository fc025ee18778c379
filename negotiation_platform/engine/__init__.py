"""The match engine: one running game, enforcing its spec."""

from negotiation_platform.engine.contract import GameContractError
from negotiation_platform.engine.events import Event, EventKind
from negotiation_platform.engine.match import Match

__all__ = ["Event", "EventKind", "GameContractError", "Match"]
