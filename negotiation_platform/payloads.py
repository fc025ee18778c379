"""Validation of an action's payload against its spec, shared by the engine and `BaseGame.is_valid_action`,
and the readable form of pydantic's complaints, shared with config refusals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.rules_text import describe_payload
from negotiation_platform.spec import ActionSpec
from negotiation_platform.strict_json import validate_strict


def validate_payload(action: ActionSpec, payload: Any) -> dict[str, Any]:
    """The payload as JSON-ready data, or a NegotiationError(invalid_payload) saying what is wrong."""
    if payload is not None and not isinstance(payload, Mapping):
        raise NegotiationError(
            ErrorCode.INVALID_PAYLOAD,
            f"The payload of `{action.name}` must be a JSON object ({describe_payload(action.payload)}).",
        )
    try:
        model = validate_strict(action.payload, dict(payload or {}))
    except ValidationError as exc:
        problems = validation_problems(exc, "(payload)")
        raise NegotiationError(
            ErrorCode.INVALID_PAYLOAD,
            f"Invalid payload for `{action.name}`: "
            + "; ".join(f"{p['field']}: {p['problem']}" for p in problems)
            + f". Expected {describe_payload(action.payload)}.",
            problems=problems,
        ) from None
    return model.model_dump(mode="json")


def validation_problems(exc: ValidationError, whole: str) -> list[dict[str, str]]:
    """One {"field", "problem"} per complaint, in plain words; `whole` names the object itself."""
    return [
        {
            "field": ".".join(str(p) for p in err["loc"]) or whole,
            "problem": "missing (a required field)"
            if err["type"] == "missing"
            else err["msg"].removeprefix("Value error, "),
        }
        for err in exc.errors()
    ]
