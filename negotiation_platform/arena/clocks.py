"""Turn clocks: when a match must wake next, which late turns are forfeited, and default moves
for seats that left. Pure functions of the live match; the arena arms the timers and saves."""

from __future__ import annotations

from negotiation_platform.arena.live import LiveMatch
from negotiation_platform.engine.match import Match

MAX_DEFAULTS_PER_STEP = 10_000
"""Bound on default moves played in one go for seats that left (every game's rounds are finite)."""
LEFT = "left the match"


def play_for_absent(live: LiveMatch) -> None:
    """Default moves for every due seat that left the match (runs off the loop, under the lock)."""
    match = live.match
    assert match is not None
    if not live.left:
        return
    for _ in range(MAX_DEFAULTS_PER_STEP):
        due = [a for a in match.acting() if a in live.left]
        if not due:
            return
        match.play_default(due[0], LEFT)


def next_wake(live: LiveMatch, timeout: float | None) -> float | None:
    """The earliest of the phase's deadline and the seats' turn clocks, on the arena's clock."""
    match = live.match
    if match is None or match.finished:
        return None
    deadline = match.deadline
    if timeout is None or not live.turn_started:  # asked after every move: most matches run no turn clock
        return deadline
    turn = min(live.turn_started.values()) + timeout
    return turn if deadline is None else min(deadline, turn)


def expire(live: LiveMatch, match: Match, now: float, timeout: float | None) -> None:
    """Runs off the loop, under the lock. Only the turn that was late is forfeited: once the
    round or phase moves on, the seats due in it get fresh clocks."""
    if match.expire_due():
        live.turn_started.clear()
    elif timeout is not None:
        turn = (match.round, match.phase)
        for agent_id in [a for a, since in live.turn_started.items() if now - since >= timeout]:
            if match.finished or (match.round, match.phase) != turn:
                break
            if agent_id not in match.acting():
                continue
            match.play_default(agent_id, f"turn clock: no move within {timeout:g} s")
            live.turn_started.pop(agent_id)
        if (match.round, match.phase) != turn:
            live.turn_started.clear()
