"""The refusals of a move, worded once: the checks themselves stay in the match's hot path, and only
a refused move pays for listing what would have been allowed."""

from __future__ import annotations

from negotiation_platform.engine.phase_run import PhaseRun
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.spec import ActionSpec, GameSpec


def match_over() -> NegotiationError:
    return NegotiationError(ErrorCode.MATCH_OVER, "The match is over; call get_result.")


def not_a_player(player_id: str) -> NegotiationError:
    return NegotiationError(ErrorCode.FORBIDDEN, f"{player_id!r} is not a player of this match.")


def not_your_turn(run: PhaseRun) -> NegotiationError:
    acting = run.acting()
    name = run.plan.name
    if run.alternating:
        return NegotiationError(
            ErrorCode.NOT_YOUR_TURN,
            f"It is {acting[0] if acting else 'nobody'}'s turn in phase `{name}`.",
            acting=acting,
        )
    return NegotiationError(
        ErrorCode.NOT_YOUR_TURN,
        f"You have finished your part of phase `{name}`; waiting for {acting}.",
        acting=acting,
    )


def not_in_phase(spec: GameSpec, run: PhaseRun, action_type: str) -> NegotiationError:
    phase = run.plan.phase
    if action_type in spec.all_action_names():
        phases = [p.name for p in spec.phases if p.action(action_type)]
        return NegotiationError(
            ErrorCode.PHASE_CLOSED,
            f"`{action_type}` is not allowed in phase `{phase.name}`; it belongs to {phases}. "
            f"Allowed now: {[a.name for a in phase.actions]}.",
            phase=phase.name,
        )
    return NegotiationError(
        ErrorCode.UNKNOWN_ACTION,
        f"`{action_type}` is not an action of {spec.id}; its actions are {sorted(spec.all_action_names())}.",
    )


def used_up(action: ActionSpec) -> NegotiationError:
    return NegotiationError(
        ErrorCode.LIMIT_REACHED,
        f"You have used all {action.max_per_player} `{action.name}` actions allowed in this match.",
        action=action.name,
    )


def not_available(action: ActionSpec, allowed: list[str]) -> NegotiationError:
    return NegotiationError(
        ErrorCode.INVALID_ACTION,
        f"`{action.name}` is not available right now; available: {allowed}.",
        action=action.name,
    )


def refused_by_game(action: ActionSpec, reason: str) -> NegotiationError:
    return NegotiationError(ErrorCode.INVALID_ACTION, reason, action=action.name)
