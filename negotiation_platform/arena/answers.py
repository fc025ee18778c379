"""The answers the arena gives about a match: a seat's turn state and a spectator's state."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from negotiation_platform.arena.live import LiveMatch, Seat
from negotiation_platform.arena.paging import EventPage, seat_page, spectator_page
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.engine.match import Match


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
    state.update(
        round=match.round,
        rounds=match.spec.rounds,
        phase=match.phase,
        acting=match.acting(),
        events=page.events,
        cursor=page.cursor,
        more=page.more,
        revealed=revealed,
    )
    if match.result is not None:  # a config can hold private numbers (BATNAs by role): shown after the end
        state.update(config=live.config, result=match.result.to_dict())
    return state


def turn_state(
    live: LiveMatch, seat: Seat, cursor: int, include_prompt: bool, policy: ArenaPolicy, clock: Callable[[], float]
) -> dict[str, Any]:
    """What a seat sees of its match: its view, allowed actions, deadline and a page of its events."""
    me = seat.agent_id
    header = {
        "match_id": live.match_id,
        "game_id": live.entry.game_id,
        "agent_id": me,
        "status": live.status,
        "players": [s.agent_id for s in live.seats],
        "seats": {"filled": len(live.seats), "total": live.seats_total},
    }
    match = live.match
    if match is None:
        return {**header, "your_turn": False, "acting": [], "events": [], "cursor": cursor, "more": False}
    game = match.game
    deadline = seat_deadline(live, match, me, policy)
    acting = match.acting()
    state: dict[str, Any] = {
        **header,
        "round": match.round,
        "rounds": match.spec.rounds,
        "phase": match.phase,
        "acting": acting,
        "your_turn": me in acting,
        "deadline_seconds": None if deadline is None else max(0.0, round(deadline - clock(), 3)),
        "allowed_actions": [
            {
                "name": a.name,
                "description": a.description,
                "payload_schema": game.action_payload_schema(me, a),
                "remaining": match.remaining_uses(me, a),
            }
            for a in match.allowed_actions(me)
        ],
        "messaging": match.message_allowance(me),
        "view": game.get_player_view(me),
        "bargaining": game.bargaining_position(me) if not match.finished else None,
    }
    page = seat_page(match, me, cursor)
    state.update(events=page.events, cursor=page.cursor, more=page.more)
    if include_prompt:
        state["prompt"] = _prompt(live, match, me)
    if match.result is not None:
        state["result"] = {"payoffs": match.result.final_scores, "agreement": match.result.game_data["agreement"]}
    return state


def seat_deadline(live: LiveMatch, match: Match, agent_id: str, policy: ArenaPolicy) -> float | None:
    """When the seat's default move comes, on the arena's clock: its turn clock or the phase's deadline."""
    deadline = match.deadline
    started, timeout = live.turn_started.get(agent_id), policy.turn_timeout
    if started is not None and timeout is not None:
        deadline = min(started + timeout, deadline if deadline is not None else math.inf)
    return deadline


def _prompt(live: LiveMatch, match: Match, agent_id: str) -> str:
    built_at, prompt = live.prompts.get(agent_id, (-1, ""))
    if built_at != len(match.events):
        prompt = match.game.get_game_prompt(agent_id)
        live.prompts[agent_id] = (len(match.events), prompt)
    return prompt
