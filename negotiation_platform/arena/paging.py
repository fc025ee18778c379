"""Event pages: every answer that carries a match's events carries a bounded share of them.

A log can grow to megabytes (long matches, long messages), and a stranger may ask for all of it
at once (`watch(since=0)`), so no answer holds more than `MAX_PAGE_EVENTS` events or, once
encoded for the wire, past its first event, more than about `MAX_PAGE_CHARS` characters of them
(`EventPage.encoded`; an in-process seat reads the logged events themselves, unencoded). The
answer's `cursor` is where the page ends and `more` says whether the log goes on past it: a reader
calls again from `cursor` (without waiting) until `more` is false. A page never splits an event,
so the cursor a reader holds always falls between two events.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from negotiation_platform.engine.events import Event
from negotiation_platform.engine.match import Match

MAX_PAGE_EVENTS = 200
"""Most events one answer carries."""
MAX_PAGE_CHARS = 262_144
"""About the most characters of event JSON one encoded answer carries (its first event always goes in)."""


@dataclass(frozen=True)
class EventPage:
    events: list[Event]
    cursor: int
    """Where the next read starts (the events up to here were read or are not the reader's to see)."""
    more: bool
    """Whether the log holds events past `cursor` (read on from there at once)."""

    def encoded(self) -> tuple[list[dict[str, Any]], int, bool]:
        """The page as a JSON answer carries it: events as dicts, cut before the one that passes `MAX_PAGE_CHARS`
        (then the cursor falls before that event, and `more` is true)."""
        events: list[dict[str, Any]] = []
        chars = 0
        for event in self.events:
            data = event.to_dict()
            chars += len(json.dumps(data, default=str))
            if events and chars > MAX_PAGE_CHARS:
                return events, event.seq - 1, True
            events.append(data)
        return events, self.cursor, self.more


def seat_page(match: Match, agent_id: str, since: int, until: int | None = None) -> EventPage:
    """The events after `since` (up to event `until`, default: the end) that seat `agent_id` may see, a page of them."""
    return _page(match, since, lambda window: [e for e in window if e.visible_for(agent_id)], agent_id, until)


def spectator_page(match: Match, since: int, revealed: bool) -> EventPage:
    """The events after `since` a spectator may see (the public ones, or all once `revealed`), a page of them."""
    return _page(match, since, lambda window: [e for e in window if revealed or e.visible_to is None], None)


def _page(
    match: Match,
    since: int,
    visible: Callable[[list[Event]], list[Event]],
    agent_id: str | None,
    until: int | None = None,
) -> EventPage:
    total = len(match.events) if until is None else until
    stop = min(total, since + MAX_PAGE_EVENTS)
    if stop == len(match.events) and agent_id is not None:
        shown = match.events_for(agent_id, since)  # the usual read: the few events since the last look
    else:
        shown = visible(match.events[since:stop]) if since < stop else []
    return EventPage(shown, stop, stop < total)
