"""Drives agents' seats through any `ArenaApi`: the arena in-process, or a transport's client.

`play_match` serves every seat of a match one after another in seat order, so a match between
scripted agents is a pure function of (game, config, seed, agents): the same run twice gives the
same transcript. `run_seat` serves one seat on its own, waiting for its turn instead of polling,
for seats played concurrently by independent clients or server-side.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from negotiation_platform.agents.base import Agent, reads_prompt
from negotiation_platform.arena import MAX_WAIT_SECONDS, ArenaApi
from negotiation_platform.errors import ErrorCode, NegotiationError

MAX_ATTEMPTS = 25
"""How often an agent may be refused on one turn before its move is forfeited (the default move)."""
RETRYABLE = {
    ErrorCode.INVALID_ACTION,
    ErrorCode.INVALID_PAYLOAD,
    ErrorCode.LIMIT_REACHED,
    ErrorCode.UNKNOWN_ACTION,
    ErrorCode.PHASE_CLOSED,
    ErrorCode.MESSAGE_TOO_LONG,
    ErrorCode.UNKNOWN_RECIPIENT,
    ErrorCode.INVALID_ARGUMENT,
}
"""Refusals of the agent's own making: it is asked again, told what was wrong."""
OVERTAKEN = {ErrorCode.NOT_YOUR_TURN, ErrorCode.PHASE_CLOSED, ErrorCode.MATCH_OVER}
"""Refusals that mean the match moved on (a clock ran out) while the agent was deciding."""
IDLE_SECONDS = 0.05


@dataclass
class SeatHandle:
    agent: Agent
    agent_id: str
    token: str
    cursor: int | None = None
    """The last event the seat was shown: each turn state brings only what is new (a whole log every
    turn would make a long match quadratic)."""


@dataclass(frozen=True)
class SeatInPlay:
    """The seat an agent is deciding for, and the arena it sits in."""

    arena: ArenaApi
    match_id: str
    agent_id: str
    token: str


_SEAT_IN_PLAY: ContextVar[SeatInPlay | None] = ContextVar("seat_in_play", default=None)


def seat_in_play() -> SeatInPlay | None:
    """While the drivers ask an agent to decide, the seat it decides for (else None).

    For agents that act through the arena themselves, as an MCP client does with its own tool
    calls: they read their match and token here, carry the move out, and answer a `performed`
    decision. A context variable rather than an argument, so wrappers of `decide` (the
    tournament's recorder) pass it on unchanged.
    """
    return _SEAT_IN_PLAY.get()


class AgentGaveUp(RuntimeError):
    """A seat cannot go on: its move must be forfeited through a connection that cannot play defaults,
    or every agent waits in a phase without a clock."""


async def open_seats(
    arena: ArenaApi, game_id: str, agents: list[Agent], *, config: dict[str, Any] | None = None, seed: int | None = None
) -> tuple[str, list[SeatHandle]]:
    """Start a match and seat every agent in order."""
    started = await arena.start_game(game_id, config=config, seed=seed, name=agents[0].name)
    if started["seats"] != len(agents):
        raise ValueError(f"{game_id} has {started['seats']} seats; got {len(agents)} agents")
    seats = [SeatHandle(agents[0], started["agent_id"], started["token"])]
    for agent in agents[1:]:
        joined = await arena.join_game(started["match_id"], name=agent.name)
        seats.append(SeatHandle(agent, joined["agent_id"], joined["token"]))
    return started["match_id"], seats


def observe(agent: Agent, turn: dict[str, Any]) -> None:
    """Show an agent a turn state that is not its move, if it wants to see those (`Agent.observe`):
    such a turn can bring the seat's own last move, and an agent that counts moves must see it."""
    seen = getattr(agent, "observe", None)
    if seen is not None:
        seen(turn)


async def take_turn(arena: ArenaApi, match_id: str, seat: SeatHandle, turn: dict[str, Any]) -> bool:
    """Ask the agent for a decision and carry it out, asking again after each refusal.

    Returns whether the agent did anything (an agent may choose to wait in a free phase). An agent
    refused `MAX_ATTEMPTS` times in a row forfeits the move: the phase's default action is played
    and the last refusal logged, so a confused agent costs its turn, never the match.
    """
    refusal: NegotiationError | None = None
    for _ in range(MAX_ATTEMPTS):
        seated = _SEAT_IN_PLAY.set(SeatInPlay(arena, match_id, seat.agent_id, seat.token))
        try:
            decided = seat.agent.decide(turn)
            decision = await decided if inspect.isawaitable(decided) else decided
        finally:
            _SEAT_IN_PLAY.reset(seated)
        if decision.forfeit is not None:
            await _forfeit(arena, match_id, seat, decision.forfeit)
            return True
        if decision.performed:
            return True
        if not decision.messages and decision.action is None:
            return False
        try:
            for message in decision.messages:
                if message.to is None:
                    await arena.send_public_message(match_id, seat.token, message.content)
                else:
                    await arena.send_private_message(match_id, seat.token, message.to, message.content)
            if decision.action is not None:
                await arena.perform_action(match_id, seat.token, decision.action, decision.payload)
            return True
        except NegotiationError as refused:
            if refused.code not in RETRYABLE:
                raise
            refusal = refused
            again = await arena.get_turn_state(match_id, seat.token, include_prompt=reads_prompt(seat.agent))
            turn = {**again, "refusal": refused.to_dict()}
            if not turn["your_turn"]:
                return True
    last = f": {refusal.message}" if refusal is not None else ""
    await _forfeit(arena, match_id, seat, f"{seat.agent.name} was refused {MAX_ATTEMPTS} times in a row{last}")
    return True


async def _forfeit(arena: ArenaApi, match_id: str, seat: SeatHandle, reason: str) -> None:
    """Play the default action for a seat whose agent gave up its move (only a host arena can)."""
    play_default = getattr(arena, "play_default", None)
    if play_default is None:
        raise AgentGaveUp(f"{seat.agent_id} forfeited ({reason}) through a connection that cannot play defaults")
    try:
        await play_default(match_id, seat.token, reason)
    except NegotiationError as late:
        if late.code not in OVERTAKEN:
            raise  # else a clock played the seat's default first, or ended the match: nothing is left to forfeit


async def play_match(
    arena: ArenaApi,
    game_id: str,
    agents: list[Agent],
    *,
    config: dict[str, Any] | None = None,
    seed: int | None = None,
    on_turn: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play a whole match; returns the arena's result plus `events`: everything the seats saw, in order.
    `on_turn` sees each turn state a seat is shown (to follow a long match: its round, its phase)."""
    match_id, seats = await open_seats(arena, game_id, agents, config=config, seed=seed)
    seen: dict[int, dict[str, Any]] = {}
    """The union of the events the seats were shown (each turn state brings a seat's new ones); with
    every seat ours, that is the whole log."""
    while True:
        moved = False
        for seat in seats:
            turn = await arena.get_turn_state(
                match_id, seat.token, since=seat.cursor, include_prompt=reads_prompt(seat.agent)
            )
            seat.cursor = turn["cursor"]
            seen.update((event["seq"], event) for event in turn["events"])
            if on_turn is not None:
                on_turn(turn)
            if turn["status"] == "finished":
                for other in seats:  # what the match's end showed every seat, page by page
                    more = other is not seat or turn["more"]
                    while more:
                        final = await arena.get_turn_state(
                            match_id, other.token, since=other.cursor, include_prompt=False
                        )
                        other.cursor, more = final["cursor"], final["more"]
                        seen.update((event["seq"], event) for event in final["events"])
                return {**await arena.get_result(match_id), "events": [seen[seq] for seq in sorted(seen)]}
            if turn["your_turn"]:
                moved = await take_turn(arena, match_id, seat, turn) or moved
            else:
                observe(seat.agent, turn)
        if not moved:
            await _wait_for_clock(arena, match_id, seats[0])


async def _wait_for_clock(arena: ArenaApi, match_id: str, seat: SeatHandle) -> None:
    """Every agent chose to wait: only the phase's clock can move the match on, so wait for it."""
    turn = await arena.get_turn_state(match_id, seat.token, include_prompt=False)
    if turn.get("deadline_seconds") is None:
        raise AgentGaveUp("every agent is waiting and no clock runs in this phase")
    await arena.get_turn_state(
        match_id, seat.token, since=turn["cursor"], wait_seconds=turn["deadline_seconds"] + 1, include_prompt=False
    )


async def run_seat(arena: ArenaApi, match_id: str, seat: SeatHandle, *, wait_seconds: float = MAX_WAIT_SECONDS) -> None:
    """Play one seat to the end of the match, sleeping in `get_turn_state` until there is work."""
    cursor: int | None = None
    while True:
        turn = await arena.get_turn_state(
            match_id, seat.token, since=cursor, wait_seconds=wait_seconds, include_prompt=reads_prompt(seat.agent)
        )
        cursor = turn["cursor"]
        if turn["status"] == "finished":
            return
        if not turn["your_turn"]:
            observe(seat.agent, turn)
            continue
        try:
            acted = await take_turn(arena, match_id, seat, turn)
        except NegotiationError as refusal:
            if refusal.code not in OVERTAKEN:
                raise
            continue
        if not acted:
            await asyncio.sleep(IDLE_SECONDS)
