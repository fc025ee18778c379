"""What a game *is*, as data: the model (`model`), its plain-language rules (`rules_text`) and the
checks of an action's payload against it (`payload_checks`, `flat_payloads`) and events in plain words
(`narration`).

`from negotiation_platform.spec import GameSpec` is the public path of the model."""

from negotiation_platform.spec.model import (
    ActionSpec,
    Channel,
    DefaultAction,
    EmptyPayload,
    FirstMover,
    GameSpec,
    MessagingPolicy,
    OpenPayload,
    OutcomeKind,
    OutcomeSpec,
    PayloadModel,
    PhaseEnd,
    PhaseLimits,
    PhaseSpec,
    RoleAssignment,
    RolesSpec,
    StartRule,
    TurnOrder,
    payload_schema,
)
from negotiation_platform.spec.narration import Happening

__all__ = [
    "ActionSpec",
    "Channel",
    "DefaultAction",
    "EmptyPayload",
    "FirstMover",
    "GameSpec",
    "Happening",
    "MessagingPolicy",
    "OpenPayload",
    "OutcomeKind",
    "OutcomeSpec",
    "PayloadModel",
    "PhaseEnd",
    "PhaseLimits",
    "PhaseSpec",
    "RoleAssignment",
    "RolesSpec",
    "StartRule",
    "TurnOrder",
    "payload_schema",
]
