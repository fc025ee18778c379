"""Moves that LLM seats lost to their endpoints: per seat, in the match's row, and the rule that fails a command.

A call fails (`CallsFailed`) when every try timed out, answered 408, 409, 429 or 5xx, or sent a body
that is no chat completion, or when the move's deadline came first; the agent then forfeits its
move, and that move is *lost to the endpoint*. Each agent's `caller.tally` counts those as they
happen. A seat that lost any move is recorded as an `EndpointFailures` in the match's
`endpoint_failures`: its outcome says more about the endpoint than about the agents, so the
outcome tables, ratings and reports leave such matches out unless asked to keep them
(`--keep-failed-llm`). A seat with no usable answer at all (every move it was asked for lost)
fails the command (`tournament`, `play`) with a non-zero exit.

An endpoint that cannot serve at all (unreachable, key or model refused) is another matter: it
fails the whole match (`EndpointError`, in `failures.jsonl`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Final, TypeVar

from pydantic import BaseModel, ConfigDict

from negotiation_platform.agents.llm_calls import Caller, EndpointTally

RowT = TypeVar("RowT", bound=Mapping[str, object])
FIELD: Final = "endpoint_failures"
"""The key of a tournament row (and of `play --json`'s result) that lists its `EndpointFailures`."""


class EndpointFailures(BaseModel):
    """What one seat of a match lost to its endpoint.

    Attributes:
        seat: the seat's index in the match (the order of the row's `agents`).
        agent: the seat's agent spec, e.g. `llm:MODEL`.
        moves: the moves it was asked for (a move asked again after a refusal counts again).
        moves_lost: those forfeited because a call to the endpoint failed.
        failed_calls: calls given up on after their tries.
        failed_tries: requests that failed, whether a later try of the same call succeeded or not.
        last_error: why the latest failed call failed.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    seat: int
    agent: str
    moves: int
    moves_lost: int
    failed_calls: int
    failed_tries: int
    last_error: str

    @property
    def no_usable_answer(self) -> bool:
        """Every move the seat was asked for was lost: the endpoint gave it nothing to play with."""
        return self.moves > 0 and self.moves_lost >= self.moves

    def describe(self) -> str:
        """One line for a terminal: the seat, its moves lost and its failed calls."""
        return (
            f"seat {self.seat} ({self.agent}) lost {self.moves_lost} of {self.moves} moves: "
            f"{self.failed_calls} failed calls, {self.failed_tries} failed tries (last: {self.last_error})"
        )


class MarkedMatch(BaseModel):
    """A match with endpoint failures: its tournament key and the seats that lost moves."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str
    seats: list[EndpointFailures]


def tally_of(agent: object) -> EndpointTally | None:
    """What an agent's endpoint cost it so far (None for agents that call no model)."""
    caller = getattr(agent, "caller", None)
    return caller.tally if isinstance(caller, Caller) else None


def seat_failures(agents: Sequence[object], specs: Sequence[str]) -> list[EndpointFailures]:
    """The seats of one match that lost moves to their endpoints, in seat order: `agents` as played
    (each LLM agent's `caller` keeps its tally), `specs` as named."""
    failures = []
    for seat, (agent, spec) in enumerate(zip(agents, specs, strict=True)):
        tally = tally_of(agent)
        if tally is not None and tally.moves_lost:
            failures.append(EndpointFailures(seat=seat, agent=spec, **dataclasses.asdict(tally)))
    return failures


def row_failures(row: Mapping[str, object]) -> list[EndpointFailures]:
    """A stored row's (or result's) `endpoint_failures`, typed; none for a match without them."""
    listed = row.get(FIELD)
    return [EndpointFailures.model_validate(entry) for entry in listed] if isinstance(listed, list) else []


def marked_matches(rows: Iterable[Mapping[str, object]]) -> list[MarkedMatch]:
    """The matches among `rows` that some seat lost moves in, in the order given."""
    return [
        MarkedMatch.model_validate({"key": row["key"], "seats": row_failures(row)}) for row in rows if row.get(FIELD)
    ]


def counted(rows: Iterable[RowT], keep_failed_llm: bool = False) -> list[RowT]:
    """The rows that go into outcome tables and ratings: all of them with `keep_failed_llm`, else
    those without endpoint failures."""
    return [row for row in rows if keep_failed_llm or not row.get(FIELD)]


def without_answer(failures: Iterable[EndpointFailures]) -> list[EndpointFailures]:
    """The seats that had no usable answer at all: any of them fails the command."""
    return [failure for failure in failures if failure.no_usable_answer]
