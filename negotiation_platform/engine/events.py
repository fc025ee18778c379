"""The append-only event log: every event has a sequence number and a visibility."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple


class EventKind(StrEnum):
    MATCH_STARTED = "match_started"
    ROUND_STARTED = "round_started"
    PHASE_STARTED = "phase_started"
    MESSAGE = "message"
    ACTION = "action"
    TIMEOUT = "timeout"
    REVEALED = "revealed"
    NOTICE = "notice"
    PHASE_ENDED = "phase_ended"
    MATCH_ENDED = "match_ended"


_KIND_TEXT = {kind: kind.value for kind in EventKind}
"""Each kind's plain text: a dict lookup, where `kind.value` goes through the enum's descriptor (every
turn state converts dozens of events)."""

INPUT_KINDS = frozenset({EventKind.MESSAGE, EventKind.ACTION, EventKind.TIMEOUT})
"""Events that come from outside the match; every other event is derived from them and the seed."""


class Event(NamedTuple):
    """One entry of the log; immutable. A tuple underneath: a match keeps dozens, so they stay small
    and quick to make."""

    seq: int
    kind: EventKind
    round: int
    phase: str | None
    actor: str | None
    data: dict[str, Any]
    visible_to: tuple[str, ...] | None = None
    """None: every player (and observers); otherwise only these players."""

    def visible_for(self, player_id: str | None) -> bool:
        """Whether `player_id` may see this event; None stands for an omniscient observer."""
        return player_id is None or self.visible_to is None or player_id in self.visible_to

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "kind": _KIND_TEXT[self.kind],
            "round": self.round,
            "phase": self.phase,
            "actor": self.actor,
            "data": self.data,
            "visible_to": list(self.visible_to) if self.visible_to is not None else None,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Event:
        visible = raw.get("visible_to")
        return cls(
            seq=raw["seq"],
            kind=EventKind(raw["kind"]),
            round=raw["round"],
            phase=raw.get("phase"),
            actor=raw.get("actor"),
            data=raw.get("data", {}),
            visible_to=tuple(visible) if visible is not None else None,
        )
