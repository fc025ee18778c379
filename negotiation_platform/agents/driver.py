"""Drives agents' seats through any `ArenaApi`: the arena in-process, or a transport's client.

A seat of an in-process `Arena` is played through its typed `LocalSeat` (no JSON, no token hashing per
call); any other arena through its operations (`ApiSeat`). Agents read the turn state the same way
either way: a plain dict, or for agents that read it in place (`Agent`), the `TurnState` itself,
whose costlier parts are made when first read.

`play_match` serves every seat of a match one after another in seat order, so a match between
scripted agents is a pure function of (game, config, seed, agents): the same run twice gives the
same transcript. `run_seat` serves one seat on its own, waiting for its turn instead of polling,
for seats played concurrently by independent clients or server-side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import JsonValue

from negotiation_platform.agents.base import Agent, Decision, reads_prompt, reads_turn_in_place
from negotiation_platform.agents.seating import kept_name
from negotiation_platform.arena import MAX_WAIT_SECONDS, Arena, ArenaApi
from negotiation_platform.arena.requests import MatchRequest
from negotiation_platform.arena.turn_state import TurnState
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry.registry import installed_registry

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


class SeatLink(Protocol):
    """How the drivers reach a seat: a `LocalSeat` of an in-process `Arena` (typed, no JSON), or any
    `ArenaApi` by its operations (`ApiSeat`). Turn states read as the JSON answer's mapping either way."""

    async def turn(
        self, since: int | None = None, *, include_prompt: bool = True, wait_seconds: float = 0
    ) -> Mapping[str, Any]: ...

    async def act(self, action_type: str, payload: dict[str, JsonValue] | None = None) -> object: ...

    async def say(self, content: str, to: list[str] | None = None) -> object: ...

    async def forfeit(self, reason: str) -> object: ...


@dataclass(frozen=True)
class ApiSeat:
    """A seat reached through the operations of any `ArenaApi` (a transport's client, or an arena)."""

    arena: ArenaApi
    match_id: str
    agent_id: str
    token: str

    async def turn(
        self, since: int | None = None, *, include_prompt: bool = True, wait_seconds: float = 0
    ) -> Mapping[str, Any]:
        return await self.arena.get_turn_state(
            self.match_id, self.token, since=since, wait_seconds=wait_seconds, include_prompt=include_prompt
        )

    async def act(self, action_type: str, payload: dict[str, JsonValue] | None = None) -> object:
        return await self.arena.perform_action(self.match_id, self.token, action_type, payload)

    async def say(self, content: str, to: list[str] | None = None) -> object:
        if to is None:
            return await self.arena.send_public_message(self.match_id, self.token, content)
        return await self.arena.send_private_message(self.match_id, self.token, to, content)

    async def forfeit(self, reason: str) -> object:
        play_default = getattr(self.arena, "play_default", None)  # only a host arena plays defaults
        if play_default is None:
            raise AgentGaveUp(f"{self.agent_id} forfeited ({reason}) through a connection that cannot play defaults")
        return await play_default(self.match_id, self.token, reason)


@dataclass
class SeatHandle:
    agent: Agent
    agent_id: str
    token: str
    cursor: int | None = None
    """The last event the seat was shown: each turn state brings only what is new (a whole log every
    turn would make a long match quadratic)."""
    linked: tuple[ArenaApi, SeatLink] | None = field(default=None, repr=False, compare=False)
    """The arena the seat was last reached through, and how (see `link`)."""


async def link(arena: ArenaApi, match_id: str, seat: SeatHandle) -> SeatLink:
    """How to reach `seat` through `arena`: its `LocalSeat` when the arena is in this process (found once),
    else its operations."""
    if seat.linked is None or seat.linked[0] is not arena:
        reached: SeatLink
        if isinstance(arena, Arena):
            reached = await arena.seat_for(match_id, seat.token)
        else:
            reached = ApiSeat(arena, match_id, seat.agent_id, seat.token)
        seat.linked = (arena, reached)
    return seat.linked[1]


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


CLIENT_SUFFIX = "-client"
"""Marks the seats a client's agents take on a served arena under a name kept for the server's own
agents and people (see `seating.kept_name`): `concession-client`, not `concession`."""


def seat_name(arena: ArenaApi, agent: Agent) -> str:
    """The agent's name, or on a served arena `NAME-client` where the name is an agent kind's or a person's."""
    if isinstance(arena, Arena) or not kept_name(installed_registry(), agent.name):
        return agent.name
    return agent.name + CLIENT_SUFFIX


class AgentGaveUp(RuntimeError):
    """A seat cannot go on: its move must be forfeited through a connection that cannot play defaults,
    or every agent waits in a phase without a clock."""


async def open_seats(
    arena: ArenaApi,
    game_id: str,
    agents: list[Agent],
    *,
    config: dict[str, JsonValue] | None = None,
    seed: int | None = None,
) -> tuple[str, list[SeatHandle]]:
    """Start a match and seat every agent in order, each named after its agent (see `seat_name`); in an
    in-process arena, in one call that hands back each seat linked (see `Arena.seat_all`)."""
    names = [seat_name(arena, agent) for agent in agents]
    if isinstance(arena, Arena):
        local = await arena.seat_all(game_id, names, config=config, seed=seed)
        return local[0].match_id, [
            SeatHandle(agent, seat.agent_id, seat.token, linked=(arena, seat))
            for agent, seat in zip(agents, local, strict=True)
        ]
    started = await arena.start_game(game_id, config=config, seed=seed, name=names[0])
    if started["seats"] != len(agents):
        raise ValueError(f"{game_id} has {started['seats']} seats; got {len(agents)} agents")
    seats = [SeatHandle(agents[0], started["agent_id"], started["token"])]
    for agent, name in zip(agents[1:], names[1:], strict=True):
        joined = await arena.join_game(started["match_id"], name=name)
        seats.append(SeatHandle(agent, joined["agent_id"], joined["token"]))
    return started["match_id"], seats


def observe(agent: Agent, turn: Mapping[str, Any]) -> None:
    """Show an agent a turn state that is not its move, if it wants to see those (`Agent.observe`):
    such a turn can bring the seat's own last move, and an agent that counts moves must see it."""
    seen = getattr(agent, "observe", None)
    if seen is not None:
        seen(_handed(turn, reads_turn_in_place(agent)))


def _handed(turn: Mapping[str, Any], in_place: bool) -> dict[str, Any]:
    """What an agent is given of `turn`: an in-process `TurnState` itself when the agent reads it in place
    (`in_place`: `reads_turn_in_place(agent)`; typed as the dict it reads as), else a plain dict, as every
    agent got before there were typed seats."""
    if not in_place and isinstance(turn, TurnState):
        return dict(turn)
    return turn  # type: ignore[return-value]  # (typed as the dict it reads as; `cast` is a call at run time)


def _decide(
    agent: Agent, in_play: SeatInPlay, turn: Mapping[str, Any], in_place: bool
) -> Decision | Awaitable[Decision]:
    """The agent's decision on `turn`, with `in_play` as the seat in play meanwhile: as the agent answered
    it, or for an asynchronous answer, what awaits it (see `_awaited`). An asynchronous answer may read
    the turn state after the match moved on: the state is made whole first."""
    seated = _SEAT_IN_PLAY.set(in_play)
    try:
        decided = agent.decide(_handed(turn, in_place))
        if isinstance(decided, Decision):
            return decided
        if isinstance(turn, TurnState):
            turn.freeze()
    finally:
        _SEAT_IN_PLAY.reset(seated)
    return _awaited(decided, in_play)


async def _awaited(decided: Awaitable[Decision], in_play: SeatInPlay) -> Decision:
    """An asynchronous decision, awaited with `in_play` as the seat in play (its body runs only now)."""
    seated = _SEAT_IN_PLAY.set(in_play)
    try:
        return await decided
    finally:
        _SEAT_IN_PLAY.reset(seated)


def _refused(turn: Mapping[str, Any], refusal: dict[str, JsonValue]) -> Mapping[str, Any]:
    return turn.refused(refusal) if isinstance(turn, TurnState) else {**turn, "refusal": refusal}


async def take_turn(arena: ArenaApi, match_id: str, seat: SeatHandle, turn: Mapping[str, Any]) -> bool:
    """Ask the agent for a decision and carry it out, asking again after each refusal.

    Returns whether the agent did anything (an agent may choose to wait in a free phase). An agent
    refused `MAX_ATTEMPTS` times in a row forfeits the move: the phase's default action is played
    and the last refusal logged, so a confused agent costs its turn, never the match.
    """
    reached = await link(arena, match_id, seat)
    in_play = SeatInPlay(arena, match_id, seat.agent_id, seat.token)
    return await _take_turn(reached, in_play, seat.agent, turn, reads_turn_in_place(seat.agent))


async def _take_turn(
    reached: SeatLink, in_play: SeatInPlay, agent: Agent, turn: Mapping[str, Any], in_place: bool
) -> bool:
    """`take_turn` with the seat already reached and `in_place` already asked (`play_match` asks both once
    per seat)."""
    refusal: NegotiationError | None = None
    for _ in range(MAX_ATTEMPTS):
        decided = _decide(agent, in_play, turn, in_place)  # most agents answer at once: no coroutine to await then
        decision = decided if isinstance(decided, Decision) else await decided
        if decision.forfeit is not None:
            await _forfeit(reached, decision.forfeit)
            return True
        if decision.performed:
            return True
        if not decision.messages and decision.action is None:
            return False
        try:
            for message in decision.messages:
                await reached.say(message.content, message.to)
            if decision.action is not None:
                await reached.act(decision.action, decision.payload)
            return True
        except NegotiationError as refused:
            if refused.code not in RETRYABLE:
                raise
            refusal = refused
            again = await reached.turn(include_prompt=reads_prompt(agent))
            turn = _refused(again, refused.to_dict())
            if not turn["your_turn"]:
                return True
    last = f": {refusal.message}" if refusal is not None else ""
    await _forfeit(reached, f"{agent.name} was refused {MAX_ATTEMPTS} times in a row{last}")
    return True


async def _forfeit(reached: SeatLink, reason: str) -> None:
    """Play the default action for a seat whose agent gave up its move (only a host arena can)."""
    try:
        await reached.forfeit(reason)
    except NegotiationError as late:
        if late.code not in OVERTAKEN:
            raise  # else a clock played the seat's default first, or ended the match: nothing is left to forfeit


async def play_match(
    arena: ArenaApi,
    game_id: str,
    agents: list[Agent],
    *,
    config: dict[str, JsonValue] | None = None,
    seed: int | None = None,
    on_turn: Callable[[Mapping[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play a whole match; returns the arena's result plus `events`: everything the seats saw, in order.
    `on_turn` sees each turn state a seat is shown (to follow a long match: its round, its phase)."""
    match_id, seats = await open_seats(arena, game_id, agents, config=config, seed=seed)
    links = [await link(arena, match_id, seat) for seat in seats]
    in_play = [SeatInPlay(arena, match_id, seat.agent_id, seat.token) for seat in seats]
    prompts = [reads_prompt(seat.agent) for seat in seats]
    in_place = [reads_turn_in_place(seat.agent) for seat in seats]
    seen: dict[int, dict[str, JsonValue]] = {}
    """The union of the events the seats were shown (each turn state brings a seat's new ones); with
    every seat ours, that is the whole log. An in-process arena's host reads it from the log at the end."""
    host = arena if isinstance(arena, Arena) else None
    while True:
        moved = False
        for seat, reached, playing, prompt, reads in zip(seats, links, in_play, prompts, in_place, strict=True):
            turn = await reached.turn(seat.cursor, include_prompt=prompt)
            if type(turn) is TurnState:  # an in-process seat's: its plain keys are its attributes
                seat.cursor, status, mine = turn.cursor, turn.status, turn.your_turn
            else:
                seat.cursor, status, mine = turn["cursor"], turn["status"], turn["your_turn"]
            if host is None:
                seen.update((event["seq"], event) for event in turn["events"])
            if on_turn is not None:
                on_turn(turn)
            if status == "finished":
                if host is not None:  # the arena's own match id: a request built unchecked (`model_construct`)
                    result = await host.get_result_request(MatchRequest.model_construct(match_id=match_id))
                    return {**result, "events": _shown_to(host, match_id, seats)}
                for other, its in zip(seats, links, strict=True):  # what the end showed every seat, page by page
                    more = other is not seat or turn["more"]
                    while more:
                        final = await its.turn(other.cursor, include_prompt=False)
                        other.cursor, more = final["cursor"], final["more"]
                        seen.update((event["seq"], event) for event in final["events"])
                return {**await arena.get_result(match_id), "events": [seen[seq] for seq in sorted(seen)]}
            if mine:
                moved = await _take_turn(reached, playing, seat.agent, turn, reads) or moved
            else:
                observe(seat.agent, turn)
        if not moved:
            await _wait_for_clock(links[0])


def _shown_to(arena: Arena, match_id: str, seats: list[SeatHandle]) -> list[dict[str, JsonValue]]:
    """The events of the match's log that some of `seats` may see: all they were shown, or will be."""
    return arena.events(match_id, seen_by={seat.agent_id for seat in seats})


async def _wait_for_clock(reached: SeatLink) -> None:
    """Every agent chose to wait: only the phase's clock can move the match on, so wait for it."""
    turn = await reached.turn(include_prompt=False)
    if turn.get("deadline_seconds") is None:
        raise AgentGaveUp("every agent is waiting and no clock runs in this phase")
    await reached.turn(turn["cursor"], wait_seconds=turn["deadline_seconds"] + 1, include_prompt=False)


async def run_seat(arena: ArenaApi, match_id: str, seat: SeatHandle, *, wait_seconds: float = MAX_WAIT_SECONDS) -> None:
    """Play one seat to the end of the match, sleeping in `get_turn_state` until there is work."""
    reached = await link(arena, match_id, seat)
    cursor: int | None = None
    while True:
        turn = await reached.turn(cursor, wait_seconds=wait_seconds, include_prompt=reads_prompt(seat.agent))
        cursor = turn["cursor"]
        if turn["status"] == "finished":
            return
        if not turn["your_turn"]:
            observe(seat.agent, turn)
            await asyncio.sleep(0)  # the turn state may come back without waiting: let the arena's clocks run
            continue
        try:
            acted = await take_turn(arena, match_id, seat, turn)
        except NegotiationError as refusal:
            if refusal.code not in OVERTAKEN:
                raise
            continue
        if not acted:
            await asyncio.sleep(IDLE_SECONDS)
