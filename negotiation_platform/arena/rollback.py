"""Undoing a change to a match when the game's own code fails in the middle of it.

The engine checks every call before the game sees it, so an exception from game code during an
accepted action, a message, a clock's default move or a seat's start is a bug in the game. The
match may then be half-advanced (its action logged, the turn not moved on), and nothing of it was
written to the store (the write comes last). The arena logs the failure with its traceback,
rebuilds the match by replaying its input events up to where the change began (off the event
loop), and answers `internal_error`: memory and store agree again, and the match goes on (the
running phase's clock restarts, as when a match is resumed from the store).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from negotiation_platform.engine.match import Match
from negotiation_platform.errors import ErrorCode, NegotiationError

if TYPE_CHECKING:
    from negotiation_platform.arena.live import LiveMatch

log = logging.getLogger(__name__)


def game_failed(match_id: str, game_id: str, failure: BaseException) -> NegotiationError:
    """Log the game's exception (one line and its traceback) and the refusal the caller gets."""
    log.error("match %s: game %s failed: %r", match_id, game_id, failure, exc_info=failure)
    return NegotiationError(
        ErrorCode.INTERNAL_ERROR,
        f"The game {game_id} failed on this call (a bug in the game, logged on the server); "
        "the match is as it was before the call.",
    )


def start_match(live: LiveMatch, players: list[str], clock: Callable[[], float]) -> Match:
    """`live`'s match, started with `players`; a game that fails to start is refused as `internal_error`
    (the seat that would have started it stays free)."""
    try:
        return Match(
            live.entry.cls, players, config=live.match_config, seed=live.seed, match_id=live.match_id, clock=clock
        )
    except Exception as bug:
        raise game_failed(live.match_id, live.entry.game_id, bug) from None


async def roll_back(
    live: LiveMatch,
    before: int,
    failure: BaseException,
    clock: Callable[[], float],
    forget: Callable[[LiveMatch], None],
) -> NegotiationError:
    """Put back `live`'s match as it was with `before` events; returns the refusal to raise.

    A match that its own events cannot rebuild (a game that is not deterministic) is `forget`-ten:
    with a store, the next call loads it from there, which holds it as it was (without one, it is gone)."""
    refusal = game_failed(live.match_id, live.entry.game_id, failure)
    match = live.match
    if match is None:  # the match had not started: nothing of it to undo
        return refusal
    events = list(match.events[:before])
    try:
        rebuilt = await live.replayed(events, clock)
    except Exception:
        log.exception("match %s: could not rebuild it after its game failed; dropped from memory", live.match_id)
        forget(live)
        return refusal
    if len(rebuilt.events) != before:
        log.error(
            "match %s: replay gave %d events, not %d; dropped from memory", live.match_id, len(rebuilt.events), before
        )
        forget(live)
        return refusal
    live.match = rebuilt
    return refusal
