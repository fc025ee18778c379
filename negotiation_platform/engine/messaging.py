"""The messaging rules of a phase: which channels are open to a player, how many messages it has
left, and the checks a message passes before it is logged."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NotRequired, TypedDict

from negotiation_platform.engine.phase_run import PhaseRun
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.wire.unicode_text import chat_problem


def messages_left(run: PhaseRun, player_id: str) -> int | None:
    """How many messages `player_id` may still send in this phase (None: no limit)."""
    policy = run.plan.messaging
    left = [
        limit - used
        for limit, used in (
            (policy.per_player, run.messages_sent.get(player_id, 0)),
            (policy.per_turn, run.messages_in_turn.get(player_id, 0)),
        )
        if limit is not None
    ]
    return min(left) if left else None


class MessageAllowance(TypedDict):
    """`Match.message_allowance`: the channels open to a player now and its messages left (None: no limit);
    the phase's message rules too while the player acts."""

    public: bool
    private: bool
    remaining: int | None
    max_length: NotRequired[int]
    uses_turn: NotRequired[bool]


def allowance(run: PhaseRun | None, player_id: str) -> MessageAllowance:
    """Which channels `player_id` may use now, and how many messages it has left (`run` None: nobody
    may send, the match being over or the player not acting)."""
    if run is None:
        return {"public": False, "private": False, "remaining": 0}
    policy = run.plan.messaging
    remaining = messages_left(run, player_id)
    open_ = remaining is None or remaining > 0
    return {
        "public": open_ and policy.channel.allows_public,
        "private": open_ and policy.channel.allows_private,
        "remaining": remaining,
        "max_length": policy.max_length,
        "uses_turn": policy.uses_turn,
    }


def check_message(
    run: PhaseRun, players: list[str], player_id: str, content: str, to: Iterable[str] | None
) -> list[str] | None:
    """The recipients of a message `player_id` may send now (None: everyone), or a refusal. The turn
    itself is checked by the caller, after these."""
    policy = run.plan.messaging
    name = run.plan.name
    recipients = None if to is None else list(dict.fromkeys(to))
    if recipients is None and not policy.channel.allows_public:
        raise NegotiationError(
            ErrorCode.PHASE_CLOSED,
            f"Public messages are not allowed in phase `{name}` (channel: {policy.channel.value}).",
        )
    if recipients is not None and not policy.channel.allows_private:
        raise NegotiationError(
            ErrorCode.PHASE_CLOSED,
            f"Private messages are not allowed in phase `{name}` (channel: {policy.channel.value}).",
        )
    if recipients is not None:
        strangers = [r for r in recipients if r not in players or r == player_id]
        if not recipients or strangers:
            raise NegotiationError(
                ErrorCode.UNKNOWN_RECIPIENT,
                "Private messages go to other players of this match: "
                f"{[p for p in players if p != player_id]}; "
                f"not {strangers or 'nobody'}.",
            )
    if not isinstance(content, str):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "A message's content must be text.", field="content")
    if problem := chat_problem(content):
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"This message {problem}; send visible text.", field="content"
        )
    if len(content) > policy.max_length:
        raise NegotiationError(
            ErrorCode.MESSAGE_TOO_LONG,
            f"Message has {len(content)} characters; the limit here is {policy.max_length}.",
            limit=policy.max_length,
        )
    left = messages_left(run, player_id)
    if left is not None and left <= 0:
        raise NegotiationError(
            ErrorCode.LIMIT_REACHED,
            "You have no messages left in this phase"
            + (" this turn." if policy.per_turn is not None else " this round."),
        )
    return recipients
