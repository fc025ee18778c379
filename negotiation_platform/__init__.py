"""negotiation_platform: AI agents playing negotiation games against each other.

The names a user needs are importable from here::

    from negotiation_platform import Arena, BaseGame, GameSpec, Registry, play_match

Importing this package imports only the package itself: each name is loaded from its module the
first time it is used, so `import negotiation_platform` stays instant, and transports and JAX
kernels (optional extras) are loaded through entry points only when asked for.
"""

from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"

TYPE_CHECKING = False  # true for type checkers; not imported from `typing`, which would double the import time
if TYPE_CHECKING:  # what type checkers and IDEs see; at run time `__getattr__` imports on first use
    from typing import Any

    from negotiation_platform.agents import (
        Agent,
        BatnaAwareAgent,
        ConcessionAgent,
        Decision,
        OutgoingMessage,
        RandomAgent,
        play_match,
    )
    from negotiation_platform.arena import Arena, ArenaApi
    from negotiation_platform.engine import Event, EventKind, GameContractError, Match
    from negotiation_platform.errors import ErrorCode, NegotiationError
    from negotiation_platform.games.bargaining import BargainingPosition, BargainingTerms, MenuItem
    from negotiation_platform.games.base_game import (
        BaseGame,
        BasicConfig,
        GameConfig,
        GameInfo,
        GameResult,
        GameState,
        PlayerAction,
    )
    from negotiation_platform.registry import GameEntry, PluginProblem, Registry, hookimpl
    from negotiation_platform.spec import (
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
        PhaseEnd,
        PhaseLimits,
        PhaseSpec,
        RoleAssignment,
        RolesSpec,
        StartRule,
        TurnOrder,
    )

_HOMES = {
    "negotiation_platform.agents": (
        "Agent",
        "BatnaAwareAgent",
        "ConcessionAgent",
        "Decision",
        "OutgoingMessage",
        "RandomAgent",
        "play_match",
    ),
    "negotiation_platform.arena": ("Arena", "ArenaApi"),
    "negotiation_platform.engine": ("Event", "EventKind", "GameContractError", "Match"),
    "negotiation_platform.errors": ("ErrorCode", "NegotiationError"),
    "negotiation_platform.games.bargaining": ("BargainingPosition", "BargainingTerms", "MenuItem"),
    "negotiation_platform.games.base_game": (
        "BaseGame",
        "BasicConfig",
        "GameConfig",
        "GameInfo",
        "GameResult",
        "GameState",
        "PlayerAction",
    ),
    "negotiation_platform.registry": ("GameEntry", "PluginProblem", "Registry", "hookimpl"),
    "negotiation_platform.spec": (
        "ActionSpec",
        "Channel",
        "DefaultAction",
        "EmptyPayload",
        "FirstMover",
        "GameSpec",
        "MessagingPolicy",
        "OpenPayload",
        "OutcomeKind",
        "OutcomeSpec",
        "PhaseEnd",
        "PhaseLimits",
        "PhaseSpec",
        "RoleAssignment",
        "RolesSpec",
        "StartRule",
        "TurnOrder",
    ),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "ActionSpec",
    "Agent",
    "Arena",
    "ArenaApi",
    "BargainingPosition",
    "BargainingTerms",
    "BaseGame",
    "BasicConfig",
    "BatnaAwareAgent",
    "Channel",
    "ConcessionAgent",
    "Decision",
    "DefaultAction",
    "EmptyPayload",
    "ErrorCode",
    "Event",
    "EventKind",
    "FirstMover",
    "GameConfig",
    "GameContractError",
    "GameEntry",
    "GameInfo",
    "GameResult",
    "GameSpec",
    "GameState",
    "Match",
    "MenuItem",
    "MessagingPolicy",
    "NegotiationError",
    "OpenPayload",
    "OutcomeKind",
    "OutcomeSpec",
    "OutgoingMessage",
    "PhaseEnd",
    "PhaseLimits",
    "PhaseSpec",
    "PlayerAction",
    "PluginProblem",
    "RandomAgent",
    "Registry",
    "RoleAssignment",
    "RolesSpec",
    "StartRule",
    "TurnOrder",
    "hookimpl",
    "play_match",
]


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use, and keep it here for the next one."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
