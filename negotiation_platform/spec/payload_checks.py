"""Validation of an action's payload against its spec, shared by the engine and `BaseGame.is_valid_action`,
and the readable form of pydantic's complaints, shared with config refusals."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from functools import cache

from pydantic import BaseModel, JsonValue, ValidationError

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.spec import ActionSpec, EmptyPayload
from negotiation_platform.spec.flat_payloads import flat_checker
from negotiation_platform.spec.rules_text import describe_payload
from negotiation_platform.wire.strict_json import strict_json


def validate_payload(action: ActionSpec, payload: object) -> dict[str, JsonValue]:
    """The payload as JSON-ready data, or a NegotiationError(invalid_payload) saying what is wrong."""
    if type(payload) is not dict and payload is not None and not isinstance(payload, Mapping):
        raise NegotiationError(
            ErrorCode.INVALID_PAYLOAD,
            f"The payload of `{action.name}` must be a JSON object ({describe_payload(action.payload)}).",
        )
    if not payload and action.payload is EmptyPayload:
        return {}  # nothing to check: the one valid payload of an action without data
    model = action.payload
    validator = _validators.get(model) or _compile(model)
    try:
        return validator(payload if type(payload) is dict else dict(payload or {}))
    except ValidationError as exc:
        problems = validation_problems(exc, "(payload)")
        raise NegotiationError(
            ErrorCode.INVALID_PAYLOAD,
            f"Invalid payload for `{action.name}`: "
            + "; ".join(f"{p['field']}: {p['problem']}" for p in problems)
            + f". Expected {describe_payload(action.payload)}.",
            problems=problems,
        ) from None


PayloadCheck = Callable[[object], dict[str, JsonValue]]


def payload_check(action: ActionSpec) -> PayloadCheck:
    """`validate_payload(action, ·)` with what it looks up per call found once: the engine keeps one per
    action of a spec and asks it of every move. A payload the quick paths are unsure of goes the whole
    way, so the answer (and any refusal) is `validate_payload`'s own."""
    model = action.payload
    if model is EmptyPayload:

        def empty(payload: object) -> dict[str, JsonValue]:
            if payload is None or (type(payload) is dict and not payload):
                return {}
            return validate_payload(action, payload)

        return empty
    quick = flat_checker(model)
    if quick is None:
        return functools.partial(validate_payload, action)

    def flat(payload: object) -> dict[str, JsonValue]:
        if type(payload) is dict:
            checked = quick(payload)
            if checked is not None:
                return checked
        return validate_payload(action, payload)

    return flat


Validator = Callable[[dict[str, object]], dict[str, JsonValue]]
_validators: dict[type[BaseModel], Validator] = {}
"""Compiled validators by payload model (models are few, made once per game class and config)."""


def _compile(model: type[BaseModel]) -> Validator:
    """Strict JSON validation by `model`, returning `model_dump(mode="json")` of the result, calling
    pydantic-core directly; the data never changes on its way, so it is neither copied nor walked.
    Flat models try `flat_checker`'s quick check first."""
    validate_json = model.__pydantic_validator__.validate_json
    to_python = model.__pydantic_serializer__.to_python
    if _dumps_as_stored(model):

        def as_stored(data: Mapping[str, object]) -> dict[str, JsonValue]:
            return dict(validate_json(strict_json(model, data), strict=True).__dict__)

        thorough: Validator = as_stored
    else:

        def dumped(data: Mapping[str, object]) -> dict[str, JsonValue]:
            dump: dict[str, JsonValue] = to_python(validate_json(strict_json(model, data), strict=True), mode="json")
            return dump

        thorough = dumped
    validator = thorough
    quick = flat_checker(model)
    if quick is not None:

        def quick_first(data: dict[str, object]) -> dict[str, JsonValue]:
            checked = quick(data)
            return thorough(data) if checked is None else checked

        validator = quick_first
    _validators[model] = validator
    return validator


_PLAIN_TYPES = (int, float, str, bool)


@cache
def stored_fields(model: type[BaseModel]) -> tuple[str, ...] | None:
    """The keys, in order, of every payload `validate_payload` returns for `model`, when its values are
    always plain ints, floats, strings or bools (a log may then keep the values alone); else None."""
    return tuple(model.model_fields) if _dumps_as_stored(model) else None


def _dumps_as_stored(model: type[BaseModel]) -> bool:
    """Whether the JSON dump of a `model` instance is exactly its field values: every field a plain
    int, float, str or bool, nothing that serialises, renames, hides or adds fields."""
    decorators = model.__pydantic_decorators__
    return (
        model.model_config.get("extra") in (None, "forbid", "ignore")
        and not decorators.field_serializers
        and not decorators.model_serializers
        and not decorators.computed_fields
        and all(f.annotation in _PLAIN_TYPES and not f.exclude for f in model.model_fields.values())
    )


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
