"""Which actions a player may take now, and why any other is refused.

One function, `refusal`, holds every rule; the legal set is the action indices it does not refuse,
so the engine's refusals, the actions it offers, the narrowed payload schemas and the kernel's
action mask all come from the same place.
"""

from __future__ import annotations

from typing import Any

from negotiation_adasociety.social import Society
from negotiation_adasociety.world import World


def refusal(
    world: World,
    society: Society,
    players: list[str],
    step: int,
    negotiating: bool,
    player: int,
    action: dict[str, Any],
) -> str | None:
    """Why `player` may not take `action` ({"type": …, **payload}) at `step`, or None if it may."""
    kind = action["type"]
    if negotiating:
        return _social_refusal(society, players, step, player, kind, action)
    resource = world.rules.index.get(action.get("resource", ""), -1)
    match kind:
        case "move":
            return None
        case "stay":
            return None
        case "produce":
            return world.produce_error(player)
        case "pick":
            return world.pick_error(player, resource)
        case "dump":
            return world.dump_error(player, resource)
    return f"{kind}: not an action of the physical phase"


def _social_refusal(
    society: Society, players: list[str], step: int, player: int, kind: str, action: dict[str, Any]
) -> str | None:
    partner = society.partner(player)
    if partner is None:
        invitable = society.invitable(player)
        if kind == "request_match":
            return _invite_refusal(society, players, player, action.get("player"), invitable)
        if kind == "stay":
            if invitable:
                names = [players[j] for j in invitable]
                return f"stay: without a partner you must invite someone while anyone is invitable ({names})"
            return None
        return f"{kind}: you have no bargaining partner; invite someone with request_match"
    if kind == "request_match":
        return f"request_match: you are bargaining with {players[partner]}; propose, accept or end"
    if not society.on_turn(player, step):
        if kind == "stay":
            return None
        return f"{kind}: it is {players[partner]}'s turn in your bargain; stay this step"
    own, theirs = society.proposal(player), society.proposal(partner)
    if kind == "stay":
        return "stay: it is your turn in your bargain; propose, accept or end"
    if kind == "propose":
        return None
    if own is None and theirs is None:
        return f"{kind}: the opening move of a bargain must be a proposal"
    if kind == "accept" and theirs is None:
        return f"accept: {players[partner]} has no standing proposal to accept"
    return None if kind in ("accept", "end") else f"{kind}: not an action of the negotiation phase"


def _invite_refusal(
    society: Society, players: list[str], player: int, invitee: Any, invitable: list[int]
) -> str | None:
    if invitee not in players:
        return f"request_match: no player {invitee!r} in this match; players: {players}"
    other = players.index(invitee)
    if other in invitable:
        return None
    if other == player:
        return "request_match: you cannot invite yourself"
    if society.partner(other) is not None:
        return f"request_match: {invitee} is bargaining with {players[society.partner(other)]}"  # type: ignore[index]
    return f"request_match: {invitee} is already in your group"
