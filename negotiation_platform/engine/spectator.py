"""What a spectator may see of a match: its public events, the game's public view, and earlier states.

While a match runs a spectator sees only events addressed to everyone and the game's
`public_view()`. Once it is over, a host that reveals finished matches also shows the private
events and every seat's own view. An earlier state is rebuilt by replaying the match's input
events into a fresh match: the engine is deterministic, so it is the state the players saw then.
"""

from __future__ import annotations

from typing import Any

from negotiation_platform.engine.events import INPUT_KINDS, Event
from negotiation_platform.engine.match import Match


def spectator_events(events: list[Event], revealed: bool) -> list[Event]:
    """The events a spectator may see: the public ones, or all of them once `revealed`."""
    return [e for e in events if revealed or e.visible_to is None]


def spectator_view(match: Match, revealed: bool) -> dict[str, Any]:
    """The game's public view, plus every seat's own view (under `seats`) once `revealed`."""
    view = dict(match.game.public_view())
    if revealed:
        view["seats"] = {player: match.game.get_player_view(player) for player in match.players}
    return view


def rewound(match: Match, events: list[Event], upto: int) -> Match:
    """A fresh match in the state `match` was in once its event `upto` (a sequence number) was logged,
    replayed from the input events of `events`, a snapshot of its log."""
    inputs = [e for e in events[:upto] if e.kind in INPUT_KINDS]
    return Match.replay(
        type(match.game),
        match.players,
        inputs,
        config=match.game.settings,
        seed=match.seed,
        match_id=match.match_id,
    )
