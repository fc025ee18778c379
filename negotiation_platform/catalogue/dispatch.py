"""Running a catalogue operation from the network: the boundary, then the request model, then the implementation.

Every transport comes through here (via `negotiation_platform.operations.run_operation`, or
`dispatch` for the viewer's reads), so every request meets the same limits and every refusal is
the same `{"error": {code, message, details}}` whichever protocol carried it.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from negotiation_platform.boundary import check_request, place, safe_answer
from negotiation_platform.catalogue.entries import CATALOGUE, Operation
from negotiation_platform.catalogue.requests import Request
from negotiation_platform.errors import ErrorCode, NegotiationError


def entry(name: object) -> Operation:
    """The catalogue entry named `name`, or the `unknown_operation` refusal."""
    operation = CATALOGUE.get(name) if isinstance(name, str) else None
    if operation is None:
        raise NegotiationError(ErrorCode.UNKNOWN_OPERATION, f"No operation {name!r}; operations: {sorted(CATALOGUE)}.")
    return operation


def checked(operation: Operation, arguments: object) -> Request:
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


async def dispatch(target: object, name: object, arguments: object) -> dict[str, Any]:
    """Run catalogue operation `name` on `target` (which implements it) with `arguments` from the
    network; the answer as every client can read it (see `safe_answer`). Refusals raise."""
    operation = entry(name)
    request = checked(operation, arguments)
    answer: dict[str, Any] = await getattr(target, operation.name)(**request.arguments())
    return safe_answer(answer)
