"""The typed OpenEnv models of a game, made from its spec: what a learner sends, what it reads back.

An action names one of the game's actions (`action`, a `Literal` of the spec's names) with that action's
payload model from the spec (`payload`), and may carry a public `message`; or it is a raw `reply` in the
text a seat's prompt asks for (for a model that writes its move as text). The payload is validated against
the named action's model, so `{"action": "propose", "payload": {"mine": 55}}` is checked exactly as the
engine will check it, and a wrong shape is refused before the match sees it (OpenEnv's VALIDATION_ERROR).
The JSON reply a seat's prompt asks for (`{"action_type": ..., "payload": ..., "message": ...}`) is such an
action too: `action_type` is read as `action`. A text table's action (`reply_model`) is the `reply` alone,
its one required field, for learners that send a model's raw text as that field (verifiers' openenv taskset).

An observation is the learner seat's view after its move and the other seats' replies: its prompt, the legal
actions, whose turn it is, every seat's reward realised since the last observation (`rewards`; the learner's
is also OpenEnv's scalar `reward`), the final payoffs once done, and a refused move's structured `error`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal, Self, Union

from openenv.core.env_server.types import Action, Observation, State
from pydantic import BaseModel, Field, ValidationError, create_model, model_validator
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from negotiation_platform.errors import ErrorCode
from negotiation_platform.spec import GameSpec


class NegotiationAction(Action):
    """A learner's move; `action_model` makes each game's subclass with its `action` names and `payload` models."""

    payloads: ClassVar[dict[str, type[BaseModel]]] = {}
    """Each action name's payload model (the spec's)."""

    action: str | None = Field(default=None, description="One of the game's actions (see the phase's legal ones).")
    payload: BaseModel | None = Field(default=None, description="The action's payload (its model in the spec).")
    message: str | None = Field(default=None, description="A public message, sent before the action or alone.")
    reply: str | None = Field(
        default=None, description="Instead of the fields above: the move as text, in the format the prompt asks for."
    )

    @model_validator(mode="before")
    @classmethod
    def _payload_of_the_action(cls, data: Any) -> Any:
        """Read the prompt's JSON reply (`action_type`) as an action; validate the payload against the named
        action's model (a union would accept any payload that fits)."""
        if isinstance(data, dict) and "action_type" in data and "action" not in data:
            data = {("action" if key == "action_type" else key): value for key, value in data.items()}
        if not isinstance(data, dict) or data.get("action") not in cls.payloads:
            return data
        model = cls.payloads[data["action"]]
        payload = data.get("payload")
        if isinstance(payload, model):
            return data
        try:
            return {**data, "payload": model.model_validate(payload or {})}
        except ValidationError as wrong:
            raise _invalid(f"payload of {data['action']!r}: {_errors(wrong)}") from None

    @model_validator(mode="after")
    def _one_move(self) -> Self:
        if self.reply is not None and (self.action, self.payload, self.message) != (None, None, None):
            raise _invalid("a reply is the whole move: send it without action, payload or message")
        if self.reply is None and self.action is None and self.message is None:
            raise _invalid("name an action, send a message, or give a reply")
        if self.payload is not None and self.action is None:
            raise _invalid("a payload needs the action it belongs to")
        return self


class StepError(BaseModel):
    """Why a move was refused: the arena's stable code and a message worded for the model."""

    code: ErrorCode
    message: str


class NegotiationObservation(Observation):
    """What the learner seat reads after a reset or a move (`observation_model` narrows `legal_actions`)."""

    game: str
    seat: str = Field(description="The learner's seat.")
    system: str = Field(default="", description="The system message of the seat's prompt.")
    prompt: str = Field(default="", description="The seat's situation and reply format ('' once the match is over).")
    legal_actions: list[str] = Field(default_factory=list, description="The actions the seat may take now.")
    to_move: list[str] = Field(default_factory=list, description="The seats whose move is awaited.")
    round: int = 0
    phase: str | None = None
    rewards: dict[str, float] = Field(
        default_factory=dict, description="Every seat's reward realised since the last observation."
    )
    payoffs: dict[str, float] | None = Field(default=None, description="The final payoffs, once the match is over.")
    error: StepError | None = Field(default=None, description="Why the move was refused (the match unchanged).")
    defaulted: bool = Field(default=False, description="Refused too often: the phase's default move was played.")


class NegotiationState(State):
    """An episode's state: its game, seed and learner seat, and where the match is."""

    game: str = ""
    seed: int = 0
    seat: str = ""
    round: int = 0
    phase: str | None = None
    done: bool = False


def action_model(game: str, spec: GameSpec) -> type[NegotiationAction]:
    """The game's action class: `action` a `Literal` of its action names, `payload` a union of their models."""
    payloads: dict[str, type[BaseModel]] = {}
    for phase in spec.phases:
        for action in phase.actions:
            payloads.setdefault(action.name, action.payload)
    names: Any = Literal[tuple(payloads)]  # a Literal made at run time: its type is known only then
    union: Any = Union[tuple(dict.fromkeys(payloads.values()))]  # noqa: UP007 (X | Y cannot take a tuple)
    model = create_model(
        f"{_camel(game)}Action",
        __base__=NegotiationAction,
        __doc__=f"A move in {game!r}.",
        action=(names | None, Field(default=None, description=f"One of {game}'s actions.")),
        payload=(union | None, Field(default=None, description="The action's payload (its model in the spec).")),
    )
    model.payloads = payloads
    return model


_Absent = Annotated[None, SkipJsonSchema()]
"""A typed action's field that a text action leaves out: always None, and not in its schema."""


def reply_model(game: str) -> type[NegotiationAction]:
    """The game's text action: `reply` is its only field, and required, so a learner that sends a model's raw
    text as the schema's one required field (verifiers' openenv taskset) sends a move."""
    return create_model(
        f"{_camel(game)}Reply",
        __base__=NegotiationAction,
        __doc__=f"A move in {game!r}, as the text the prompt asks for.",
        action=(_Absent, None),
        payload=(_Absent, None),
        message=(_Absent, None),
        reply=(str, Field(description="The move as text, in the format the prompt asks for.")),
    )


def observation_model(game: str, spec: GameSpec) -> type[NegotiationObservation]:
    """The game's observation class: `legal_actions` a list of its action names."""
    names: Any = Literal[tuple(dict.fromkeys(a.name for p in spec.phases for a in p.actions))]
    return create_model(
        f"{_camel(game)}Observation",
        __base__=NegotiationObservation,
        __doc__=f"What the learner seat of {game!r} reads.",
        legal_actions=(list[names], Field(default_factory=list, description="The actions the seat may take now.")),
    )


def _camel(game: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", game) if part)


def _invalid(reason: str) -> PydanticCustomError:
    """A validation error whose details are plain JSON (OpenEnv sends them to the client as they are)."""
    return PydanticCustomError("invalid_move", "{reason}", {"reason": reason})


def _errors(wrong: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'payload'}: {e['msg']}" for e in wrong.errors())
