"""Agents by spec (`concession`, `llm:URL`, ...) playing seats of a `TextEnv`, as the drivers play them at a table.

An agent decides from a turn state; here it is built from the env's match with the keys the arena's turn state has
(allowed actions with schemas, messaging, view, bargaining position, the events since the agent last looked), its
decision is written as a reply in the env's grammar and judged by `TextEnv.step` like any model's reply. A refused
decision is asked again with the refusal shown, until the env accepts one or plays the default move.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable

from pydantic import JsonValue

from negotiation_platform.agents.base import Agent, Decision, reads_prompt
from negotiation_platform.agents.catalog import make_agent
from negotiation_platform.agents.seating import SeatedBy
from negotiation_platform.arena.turn_state import seat_actions
from negotiation_platform.llm_rl import grammar as grammars
from negotiation_platform.llm_rl.text_env import TextEnv, TextStep
from negotiation_platform.registry import Registry


class AgentSeat:
    """One seat of a `TextEnv` played by an agent made from `spec` (seated by the operator: `llm:` allowed)."""

    def __init__(self, registry: Registry, spec: str, seat: str, seed: int) -> None:
        self.agent: Agent = make_agent(registry, spec, seed=seed, by=SeatedBy.OPERATOR)
        self.seat = seat
        self._seen = 0
        """The last event sequence number shown to the agent."""

    def play(self, env: TextEnv) -> TextStep:
        """The seat's move: decided, written in the env's grammar, stepped; decided again after each refusal."""
        refusal: dict[str, JsonValue] | None = None
        while True:
            turn = self.turn(env)
            if refusal is not None:
                turn["refusal"] = refusal
            decision = decide(self.agent, turn)
            reply = "" if decision.forfeit else grammars.render(env.grammar, decision, turn)
            step = env.step(self.seat, reply)  # a forfeit is refused until the env plays the default move
            if step.accepted or step.defaulted:
                return step
            refusal = {"error": {"message": step.error}}

    def turn(self, env: TextEnv) -> dict[str, object]:
        """The turn state the arena would hand this seat now (its events: those after the last it was shown)."""
        match, seat = env.match, self.seat
        events = match.events_for(seat, self._seen)
        if events:
            self._seen = events[-1].seq
        acting = match.acting()
        turn: dict[str, object] = {
            "match_id": f"text-env-{env.seed}",
            "game_id": env.game_id,
            "agent_id": seat,
            "status": "finished" if match.finished else "running",
            "players": list(env.seats),
            "round": match.round,
            "rounds": match.spec.rounds,
            "phase": match.phase,
            "acting": acting,
            "your_turn": seat in acting,
            "deadline_seconds": None,
            "allowed_actions": seat_actions(match, seat),
            "messaging": match.message_allowance(seat),
            "view": match.game.get_player_view(seat),
            "bargaining": None if match.finished else match.game.bargaining_position(seat),
            "events": [event.to_dict() for event in events],
            "cursor": self._seen,
            "more": False,
        }
        if reads_prompt(self.agent):
            turn["prompt"] = match.game.get_game_prompt(seat)
        return turn


def decide(agent: Agent, turn: dict[str, object]) -> Decision:
    """An agent's decision, awaited here when its kind asks someone remote (an `llm:` endpoint)."""
    decision = agent.decide(turn)
    if inspect.isawaitable(decision):
        return asyncio.run(_awaited(decision))
    return decision


async def _awaited(decision: Awaitable[Decision]) -> Decision:
    result: Decision = await decision
    return result
