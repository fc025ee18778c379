"""What a scripted agent is: something that turns a turn state into a decision."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard

from pydantic import JsonValue


@dataclass(frozen=True)
class OutgoingMessage:
    content: str
    to: list[str] | None = None
    """None: a public message; otherwise the private recipients."""


@dataclass
class Decision:
    """Messages to send first, then at most one action; or a forfeited move."""

    messages: list[OutgoingMessage] = field(default_factory=list)
    action: str | None = None
    payload: dict[str, JsonValue] = field(default_factory=dict)
    forfeit: str | None = None
    """Why the agent gives up this move (a remote agent was late or unreadable): the default action is played."""
    performed: bool = False
    """The agent already carried this decision out through the arena itself (an MCP client agent, which
    reaches its seat through `driver.seat_in_play()`): the driver sends nothing, the decision is a record."""


class Agent(Protocol):
    """An agent decides from the arena's turn state alone, so it plays the same in-process or remotely.

    When the arena refuses a decision, `decide` is called again with the refusal under
    `turn["refusal"]`. An agent that never reads `turn["prompt"]` says so with a class attribute
    `reads_prompt = False`, and the drivers then do not ask the arena to build the prompt text.
    An agent that reads its turn state only by key, and only while `decide` (or `observe`) runs,
    never copying, encoding or keeping it, says so with `reads_turn_in_place = True`: an in-process
    arena may then hand it a read-only mapping whose costlier parts are made when first read
    (`arena.turn_state.TurnState`); every other agent gets a plain dict, as over a transport.
    An agent that keeps count of the match may also define `observe(turn)`: the drivers pass it
    every turn state the seat is shown when it is not the seat's move (see `driver.observe`).
    An agent that makes its moves through the arena itself (`mcp-llm`, an MCP client) reads its
    seat from `driver.seat_in_play()` while deciding and answers a `performed` decision.
    """

    name: str

    def decide(self, turn: dict[str, Any]) -> Decision | Awaitable[Decision]:
        """A decision, directly or (for agents that must ask someone remote) as an awaitable."""
        ...


def is_agent(made: object) -> TypeGuard[Agent]:
    """Whether a plugin's factory made an `Agent` (a name and a `decide`): the registry hands factories on
    as `registry.AgentFactory`, which cannot name `Agent` from the layer below."""
    return hasattr(made, "name") and callable(getattr(made, "decide", None))


def reads_prompt(agent: Agent) -> bool:
    """Whether `agent` reads the prompt text (agents that do not say otherwise are assumed to)."""
    return bool(getattr(agent, "reads_prompt", True))


def reads_turn_in_place(agent: Agent) -> bool:
    """Whether `agent` reads its turn state in place (see `Agent`; agents that do not say so are assumed not to)."""
    return bool(getattr(agent, "reads_turn_in_place", False))
