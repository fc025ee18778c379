"""The answers the arena gives about a match: a seat's turn state (as JSON; typed, `TurnState`) and a
spectator's state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from negotiation_platform.arena.live import LiveMatch, Seat
from negotiation_platform.arena.paging import EventPage, spectator_page
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.arena.turn_state import TurnState


def spectator_state(live: LiveMatch, cursor: int, policy: ArenaPolicy, *, with_events: bool = True) -> dict[str, Any]:
    """What a spectator sees of a match: its public state and a page of its public events."""
    state: dict[str, Any] = {
        "match_id": live.match_id,
        "game_id": live.entry.game_id,
        "status": live.status,
        "players": [s.agent_id for s in live.seats],
        "seats": {"filled": len(live.seats), "total": live.seats_total},
    }
    match = live.match
    if match is None:
        return {
            **state,
            "round": 0,
            "phase": None,
            "acting": [],
            "events": [],
            "cursor": cursor,
            "more": False,
            "revealed": False,
        }
    revealed = match.finished and policy.reveal_finished
    page = spectator_page(match, cursor, revealed) if with_events else EventPage([], len(match.events), False)
    events, end, more = page.encoded()
    state.update(
        round=match.round,
        rounds=match.spec.rounds,
        phase=match.phase,
        acting=match.acting(),
        events=events,
        cursor=end,
        more=more,
        revealed=revealed,
    )
    if match.result is not None:  # a config can hold private numbers (BATNAs by role): shown after the end
        state.update(config=live.config, result=match.result.to_dict())
    return state


def turn_state(
    live: LiveMatch, seat: Seat, cursor: int, include_prompt: bool, policy: ArenaPolicy, clock: Callable[[], float]
) -> dict[str, Any]:
    """What a seat sees of its match, as a JSON answer (see `TurnState`)."""
    return TurnState(live, seat, cursor, include_prompt, policy, clock).to_dict()
