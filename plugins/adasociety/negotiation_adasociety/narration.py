"""AdaSociety's events in plain words from one seat's side: moves, bargains and the groups they make."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from negotiation_platform.spec.narration import Happening, does, name, percent


def share_text(share: object) -> str:
    """A share (0..1) from an event's JSON as people read it: "60%"."""
    return percent(float(share)) if isinstance(share, int | float) else str(share)


def describe(event: Happening, reader: str | None) -> str | None:
    """AdaSociety's `describe_event`: "you move up", "alice claims 60% of the pair's reward",
    "gatherer_2 and you formed a group (your share 60%)"; None for what the default words say."""
    actor, payload = event.actor, event.payload
    if event.kind == "action":
        late = " (timed out)" if event.data.get("timed_out") else ""
        match event.action_type:
            case "move":
                return f"{does(actor, reader, 'move')} {payload.get('direction')}{late}"
            case "stay" | "no_act":
                return f"{does(actor, reader, 'stay')} put{late}"
            case "request_match":
                return f"{does(actor, reader, 'invite')} {name(str(payload.get('player')), reader)} to bargain{late}"
            case "propose":
                return f"{does(actor, reader, 'claim')} {share_text(payload.get('share'))} of the pair's reward{late}"
            case "accept":
                return f"{does(actor, reader, 'accept')} the partner's proposal{late}"
            case "end":
                return f"{does(actor, reader, 'end')} the bargain{late}"
            case "produce":
                return f"{does(actor, reader, 'craft', 'crafts')} on the event cell{late}"
            case "pick":
                return f"{does(actor, reader, 'pick')} up one {payload.get('resource')}{late}"
            case "dump":
                return f"{does(actor, reader, 'put')} down one {payload.get('resource')}{late}"
    groups = event.data.get("groups")
    if event.kind == "notice" and isinstance(groups, list):
        return groups_text(groups, reader)
    return None


def groups_text(groups: list[JsonValue], reader: str | None) -> str:
    """The groups after a change: who is in which, the reader first and last-named as "you"."""
    lines = []
    for group in groups:
        shares = group.get("shares") if isinstance(group, Mapping) else None
        if not isinstance(shares, Mapping) or len(shares) < 2:
            continue
        members = sorted(shares, key=lambda p: p == reader)  # "you" last: "gatherer_2 and you"
        together = ", ".join(name(p, reader) for p in members[:-1]) + f" and {name(members[-1], reader)}"
        if reader in shares:
            lines.append(f"{together} formed a group (your share {share_text(shares[reader])})")
        else:
            lines.append(
                f"{together} formed a group (shares " + ", ".join(share_text(s) for s in shares.values()) + ")"
            )
    return "; ".join(lines) if lines else "No groups now: everyone is on their own."
