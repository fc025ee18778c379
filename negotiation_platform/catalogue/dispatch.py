"""Reading a catalogue operation's request from the network: its request model, which checks it once.

The one dispatcher (`negotiation_platform.serving.operations.dispatch`) reads every request through here,
so every request meets the same limits and every refusal is the same `{"error": {code, message,
details}}` whichever protocol carried it (see `negotiation_platform.arena.requests`).
"""

from __future__ import annotations

from negotiation_platform.catalogue.entries import CATALOGUE, Host, Operation, RequestT
from negotiation_platform.errors import ErrorCode, NegotiationError


def entry(name: object) -> Operation:
    """The catalogue entry named `name`, or the `unknown_operation` refusal."""
    operation = CATALOGUE.get(name) if isinstance(name, str) else None
    if operation is None:
        raise NegotiationError(ErrorCode.UNKNOWN_OPERATION, f"No operation {name!r}; operations: {sorted(CATALOGUE)}.")
    return operation


def checked(operation: Operation[Host, RequestT], arguments: object) -> RequestT:
    """`arguments` read by the operation's request model: past the boundary, then strictly typed."""
    return operation.request.read(arguments, operation.name)
