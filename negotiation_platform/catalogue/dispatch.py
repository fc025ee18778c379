"""Reading a catalogue operation's request from the network: the boundary, then the request model.

The one dispatcher (`negotiation_platform.serving.operations.dispatch`) reads every request through here,
so every request meets the same limits and every refusal is the same `{"error": {code, message,
details}}` whichever protocol carried it.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from negotiation_platform.catalogue.entries import CATALOGUE, Host, Operation, RequestT
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.wire.boundary import check_request, place


def entry(name: object) -> Operation:
    """The catalogue entry named `name`, or the `unknown_operation` refusal."""
    operation = CATALOGUE.get(name) if isinstance(name, str) else None
    if operation is None:
        raise NegotiationError(ErrorCode.UNKNOWN_OPERATION, f"No operation {name!r}; operations: {sorted(CATALOGUE)}.")
    return operation


def checked(operation: Operation[Host, RequestT], arguments: object) -> RequestT:
    """`arguments` past the boundary and read by the operation's request model (strictly)."""
    if not isinstance(arguments, dict):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "`arguments` must be an object.")
    check_request(arguments)  # first: no refusal below may echo text that cannot be sent back
    try:
        return operation.request.model_validate(arguments)
    except ValidationError as invalid:
        raise _refusal(operation, invalid) from None


def _refusal(operation: Operation, invalid: ValidationError) -> NegotiationError:
    found: dict[str, list[Any]] = {"missing": [], "unknown": [], "problems": []}
    for error in invalid.errors(include_url=False, include_input=False):
        field = place(error["loc"])
        kind = {"missing": "missing", "extra_forbidden": "unknown"}.get(error["type"], "problems")
        found[kind].append(field if kind != "problems" else {"field": field, "problem": error["msg"]})
    said = [f"missing {found['missing']}"] * bool(found["missing"]) + [f"unknown {found['unknown']}"] * bool(
        found["unknown"]
    )
    said += [f"{p['field']}: {p['problem']}" for p in found["problems"]]
    takes = f" ({operation.name} takes {list(operation.required)} and optionally {list(operation.optional)})"
    return NegotiationError(
        ErrorCode.INVALID_ARGUMENT,
        f"Invalid arguments for {operation.name}: {'; '.join(said)}"
        + (takes if found["missing"] or found["unknown"] else "")
        + ".",
        **{kind: items for kind, items in found.items() if items},
    )
