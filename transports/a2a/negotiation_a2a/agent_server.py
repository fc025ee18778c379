"""A built-in agent served as an A2A agent: it receives a turn state and answers with its move.

The arena (or anyone) sends a message whose data part holds `{"turn_state": {...}}`; the reply's
data part is `{"action_type": …, "payload": {...}, "messages": [{"content": …, "to": […] | null}]}`.
"""

from __future__ import annotations

import inspect
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import AgentCard, AgentSkill
from starlette.applications import Starlette

from negotiation_a2a import wire
from negotiation_platform.agents.base import Agent, Decision


def decision_data(decision: Decision) -> dict[str, Any]:
    return {
        "action_type": decision.action,
        "payload": decision.payload,
        "messages": [{"content": m.content, "to": m.to} for m in decision.messages],
    }


def seat_card(agent: Agent, base_url: str) -> AgentCard:
    skill = AgentSkill(
        id="negotiate",
        name="negotiate",
        description="Send {'turn_state': <the arena's turn state>}; the reply holds the move: "
        "{'action_type', 'payload', 'messages'}.",
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
        turns = [
            d["turn_state"]
            for d in (wire.data_parts(context.message) if context.message else [])
            if isinstance(d, dict) and isinstance(d.get("turn_state"), dict)
        ]
        if not turns:
            answer = wire.text("Send a data part {'turn_state': {...}} and I answer with my move.")
        else:
            decided = self.agent.decide(turns[0])
            decision = await decided if inspect.isawaitable(decided) else decided
            answer = wire.data(decision_data(decision))
        await event_queue.enqueue_event(wire.reply([answer], context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Decisions are immediate: nothing to cancel."""


def build_agent_app(agent: Agent, base_url: str) -> Starlette:
    return wire.a2a_app(SeatExecutor(agent), seat_card(agent, base_url))
