"""The one dispatcher: a request from the network, checked once, run by its operation's implementation.

The operations are declared in `negotiation_platform.catalogue` (`OPERATIONS` is that catalogue),
each bound to its implementation (`Operation.run`), which takes the operation's typed request.
`dispatch` reads a request into that model, which is its one check (the boundary's limits and text
checks, then the strict fields: see `arena.requests`), runs it on the arena or its house seats for
the caller, and makes its answer safe to send. Inside, the request is trusted: the arena checks none
of its values again; the engine still validates a payload against its game's model. Transports call
it as `run_operation`, which also records each call (`observability`).
"""

from __future__ import annotations

from typing import Protocol

from pydantic import JsonValue

from negotiation_platform.agents.seating import check_seat_name
from negotiation_platform.arena import Arena
from negotiation_platform.arena.forwarding import forward
from negotiation_platform.arena.limits import CALLER, Caller
from negotiation_platform.arena.protocol import HouseApi
from negotiation_platform.arena.requests import JoinGameRequest, StartGameRequest
from negotiation_platform.catalogue import CATALOGUE, Operation, checked, entry
from negotiation_platform.catalogue.entries import Answer
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.observability.requests import observed_operation
from negotiation_platform.registry import Registry
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.wire.boundary import safe_answer

OPERATIONS: dict[str, Operation] = CATALOGUE
"""Every operation by name (the catalogue)."""


class Served(Protocol):
    """What `dispatch` runs `arena` entries on: an `Arena` (or a viewer's `MatchSource`, which is one)."""

    registry: Registry


async def dispatch(
    arena: Served, name: object, arguments: object, *, house: HouseApi | None = None, caller: Caller | None = None
) -> Answer:
    """Run operation `name` with `arguments` from the network on `arena` (and `house`, the house seats,
    for a `house` entry); refusals raise NegotiationError, a call on a match another process holds
    goes to that process (see `forwarding`).

    `caller` is who asks as the transport knows it (its address and session): the arena's
    per-caller limits count by it. Whoever calls through here is a client: it seats opponents as one
    (see `agents.seating`) and may not take a seat name kept for the server's agents or people.
    """
    operation = entry(name)
    request = checked(operation, arguments)
    if isinstance(request, StartGameRequest | JoinGameRequest):
        check_seat_name(arena.registry, request.name)
    target = arena if operation.host == "arena" else house
    if target is None:
        raise NegotiationError(ErrorCode.UNKNOWN_OPERATION, f"{operation.name} is not served here.")
    token = CALLER.set(caller) if caller is not None else None
    try:
        result: Answer = await operation.run(target, request)
    except NegotiationError as refused:
        if refused.code is not ErrorCode.WRONG_OWNER or not isinstance(arena, Arena):
            raise
        # to the process that holds the match, when this one has peers
        result = await forward(arena, operation.name, request.arguments(), caller or CALLER.get(), refused)
    finally:
        if token is not None:
            CALLER.reset(token)
    return safe_answer(result)


@observed_operation
async def run_operation(
    house: HouseSeats, name: str, arguments: dict[str, JsonValue], *, caller: Caller | None = None
) -> Answer:
    """`dispatch` on the house seats' arena, as every transport calls it: each call is recorded."""
    return await dispatch(house.arena, name, arguments, house=house, caller=caller)
