"""The one dispatcher every transport uses: `run_operation(house, name, arguments, caller=...)`.

The operations themselves are declared in `negotiation_platform.catalogue` (`OPERATIONS` is that
catalogue); here a request from the network is checked (the boundary, then the request model),
run on the arena or its house seats for the caller, and its answer made safe to send.
"""

from __future__ import annotations

from typing import Any

from negotiation_platform.agents.house import HouseSeats
from negotiation_platform.agents.seating import SeatedBy, check_seat_name
from negotiation_platform.arena.forwarding import forward
from negotiation_platform.arena.limits import CALLER, Caller
from negotiation_platform.boundary import safe_answer
from negotiation_platform.catalogue import CATALOGUE, Operation, checked, entry
from negotiation_platform.catalogue.requests import JoinGameRequest, StartGameRequest
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.observability.requests import observed_operation

OPERATIONS: dict[str, Operation] = CATALOGUE
"""Every operation by name (the catalogue)."""


@observed_operation
async def run_operation(
    house: HouseSeats, name: str, arguments: dict[str, Any], *, caller: Caller | None = None
) -> dict[str, Any]:
    """Run an operation by name with its arguments from the network; refusals raise NegotiationError.

    `caller` is who asks as the transport knows it (its address and session): the arena's
    per-caller limits count by it. Whoever calls through here is a client: it seats opponents as one
    (see `agents.seating`) and may not take a seat name kept for the server's agents or people.
    """
    operation = entry(name)
    request = checked(operation, arguments)
    if isinstance(request, StartGameRequest | JoinGameRequest):
        check_seat_name(house.arena.registry, request.name)
    target: Any = house if operation.host == "house" else house.arena
    implied = {"by": SeatedBy.CLIENT} if isinstance(request, StartGameRequest) else {}  # its opponents: a client's
    token = CALLER.set(caller) if caller is not None else None
    try:
        result: dict[str, Any] = await getattr(target, operation.name)(**request.arguments(), **implied)
    except NegotiationError as refused:
        if refused.code is not ErrorCode.WRONG_OWNER:
            raise
        # to the process that holds the match, when this one has peers
        result = await forward(house.arena, operation.name, request.arguments(), caller or CALLER.get(), refused)
    finally:
        if token is not None:
            CALLER.reset(token)
    return safe_answer(result)
