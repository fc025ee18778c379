"""A built-in agent served as an A2A agent: it receives a turn state and answers with its move.

The arena (or anyone) sends a message whose data part (or application/json text part) holds
`{"turn_state": {...}}`; the reply holds `{"action_type": …, "payload": {...}, "messages":
[{"content": …, "to": […] | null}]}`, as a data part and as exact JSON. The card's skill carries
a whole example request and the reply it gets.
"""

from __future__ import annotations

import inspect
import json
import logging
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import AgentCard, AgentSkill
from starlette.applications import Starlette

from negotiation_a2a import wire
from negotiation_platform.agents.base import Agent, Decision

log = logging.getLogger(__name__)


def decision_data(decision: Decision) -> dict[str, Any]:
    return {
        "action_type": decision.action,
        "payload": decision.payload,
        "messages": [{"content": m.content, "to": m.to} for m in decision.messages],
    }


EXAMPLE_TURN: dict[str, Any] = {
    "game_id": "split_100",
    "agent_id": "player_1",
    "players": ["player_1", "player_2"],
    "status": "running",
    "round": 1,
    "rounds": 10,
    "phase": "bargain",
    "your_turn": True,
    "allowed_actions": [
        {
            "name": "propose",
            "description": "offer a split, replacing any standing offer",
            "payload_schema": {
                "type": "object",
                "properties": {"mine": {"type": "integer", "minimum": 0, "maximum": 100}},
                "required": ["mine"],
                "additionalProperties": False,
            },
        },
        {"name": "walk_away", "description": "end the game with no deal", "payload_schema": {"type": "object"}},
    ],
    "messaging": {"public": True, "private": False, "remaining": 1, "max_length": 500, "uses_turn": False},
    "view": {"round": 1, "rounds": 10, "total": 100, "discount_now": 1.0, "standing_offer": None},
    "bargaining": {"action": "propose", "field": "mine", "best": 100, "reservation": 0, "standing": None},
    "prompt": "SPLIT $100 — round 1 of 10 … ALLOWED ACTIONS NOW: propose, walk_away",
}
"""An abridged turn state of split_100, as the arena sends it: the card's example request."""


def seat_card(agent: Agent, base_url: str) -> AgentCard:
    skill = AgentSkill(
        id="negotiate",
        name="negotiate",
        description="Send {'turn_state': <the arena's turn state>}; the reply holds the move: "
        "{'action_type', 'payload', 'messages'}, e.g. "
        '{"action_type": "propose", "payload": {"mine": 60}, "messages": []}.',
        examples=[json.dumps({"turn_state": EXAMPLE_TURN})],
        tags=["negotiation", "player"],
        input_modes=["application/json"],
        output_modes=["application/json"],
    )
    return wire.agent_card(
        f"{agent.name} negotiator", f"The built-in {agent.name!r} agent of negotiation_platform.", base_url, [skill]
    )


class SeatExecutor(AgentExecutor):
    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        try:
            values = wire.values_of(context.message) if context.message else []
        except wire.Unreadable as unreadable:
            values = []
            log.warning("could not read an A2A message: %s", unreadable)
        turns = [d["turn_state"] for d in values if isinstance(d, dict) and isinstance(d.get("turn_state"), dict)]
        if not turns:
            answer = [wire.text("Send a data part {'turn_state': {...}} and I answer with my move.")]
        else:
            decided = self.agent.decide(turns[0])
            decision = await decided if inspect.isawaitable(decided) else decided
            answer = wire.structured(decision_data(decision))
        await event_queue.enqueue_event(wire.reply(answer, context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Decisions are immediate: nothing to cancel."""


def build_agent_app(agent: Agent, base_url: str) -> Starlette:
    return wire.a2a_app(SeatExecutor(agent), seat_card(agent, base_url))
