"""The one dispatcher every transport uses: `run_operation(house, name, arguments, caller=...)`.

The operations themselves are declared in `negotiation_platform.catalogue` (`OPERATIONS` is that
catalogue); here a request from the network is checked (the boundary, then the request model),
run on the arena or its house seats for the caller, and its answer made safe to send.
"""

from __future__ import annotations

from typing import Any

from negotiation_platform.agents.house import HouseSeats
from negotiation_platform.arena.forwarding import forward
from negotiation_platform.arena.limits import CALLER, Caller
from negotiation_platform.boundary import safe_answer
from negotiation_platform.catalogue import CATALOGUE, Operation, checked, entry
from negotiation_platform.catalogue.requests import StartGameRequest
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
    per-caller limits count by it.
    """
    operation = entry(name)
    request = checked(operation, arguments)
    if isinstance(request, StartGameRequest):
        _check_opponents(house, request.opponents)
    target: Any = house if operation.host == "house" else house.arena
    token = CALLER.set(caller) if caller is not None else None
    try:
        result: dict[str, Any] = await getattr(target, operation.name)(**request.arguments())
    except NegotiationError as refused:
        if refused.code is not ErrorCode.WRONG_OWNER:
            raise
        # to the process that holds the match, when this one has peers
        result = await forward(house.arena, operation.name, request.arguments(), caller or CALLER.get(), refused)
    finally:
        if token is not None:
            CALLER.reset(token)
    return safe_answer(result)


def _check_opponents(house: HouseSeats, opponents: list[str] | None) -> None:
    """Remote opponents (`kind:URL`) only where the arena's policy allows the URL: no fetching anything."""
    policy = house.arena.policy
    reasons = {o: policy.remote_agent_refusal(o.partition(":")[2]) for o in opponents or () if ":" in o}
    refused = {o: why for o, why in reasons.items() if why is not None}
    if refused:
        raise NegotiationError(
            ErrorCode.FORBIDDEN,
            f"This server does not seat these remote agents: {'; '.join(refused.values())}. "
            "Its operator can allow URL prefixes with `serve ... --allow-remote-agent PREFIX`.",
            refused=refused,
        )
