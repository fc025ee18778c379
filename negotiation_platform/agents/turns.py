"""The parts of a turn state the scripted agents read, as typed shapes.

An agent gets its turn state as the arena's JSON answer (`Agent.decide(turn)`, an untyped mapping,
since it may come over a transport); each part is given its shape here where it is read, so the
agents' logic is checked against the keys the arena writes (`arena.turn_state.seat_actions`,
`engine.messaging.allowance`, `games.bargaining.BargainingPosition`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from pydantic import JsonValue

from negotiation_platform.games.bargaining import BargainingPosition


class AllowedAction(TypedDict):
    """One entry of a turn's `allowed_actions`."""

    name: str
    description: str
    payload_schema: dict[str, JsonValue]
    remaining: int | None


class Messaging(TypedDict, total=False):
    """A turn's `messaging`: which channels the seat may use now."""

    public: bool
    private: bool
    remaining: int | None
    max_length: int
    uses_turn: bool


class SeenEvent(TypedDict):
    """One event of a turn's `events` page, as the seat is shown it."""

    seq: int
    kind: str
    actor: str | None
    round: int
    data: dict[str, JsonValue]


Payload = dict[str, JsonValue]
"""An action's payload as an agent builds it."""


def listed_actions(turn: Mapping[str, object]) -> list[AllowedAction]:
    """The turn's open actions, in the order the arena lists them."""
    listed: list[AllowedAction] = turn.get("allowed_actions", [])  # type: ignore[assignment]
    return listed


def allowed_actions(turn: Mapping[str, object]) -> dict[str, AllowedAction]:
    """The turn's open actions by name."""
    return {action["name"]: action for action in listed_actions(turn)}


def progress(turn: Mapping[str, object]) -> float:
    """How far the match has come: its round over one more than its rounds (in (0, 1))."""
    played, rounds = turn["round"], turn["rounds"]
    if not isinstance(played, int | float) or not isinstance(rounds, int | float):
        raise TypeError(f"a turn's round and rounds are numbers, not {played!r} and {rounds!r}")
    return played / (rounds + 1)


def seat_view(turn: Mapping[str, object]) -> dict[str, JsonValue]:
    """The seat's view of the game (empty where the turn has none)."""
    view: dict[str, JsonValue] = turn.get("view") or {}  # type: ignore[assignment]
    return view


def bargaining(turn: Mapping[str, object]) -> BargainingPosition | None:
    """The seat's bargaining position, where its game describes one."""
    position: BargainingPosition | None = turn.get("bargaining")  # type: ignore[assignment]
    return position


def messaging(turn: Mapping[str, object]) -> Messaging:
    """The seat's messaging allowance now (empty where the turn has none)."""
    allowance: Messaging = turn.get("messaging") or {}  # type: ignore[assignment]
    return allowance


def seen_events(turn: Mapping[str, object]) -> list[SeenEvent]:
    """The page of events the turn shows the seat (empty where it shows none)."""
    events: list[SeenEvent] = turn.get("events") or []  # type: ignore[assignment]
    return events


def refusal_error(turn: Mapping[str, object]) -> dict[str, JsonValue] | None:
    """The arena's error for the move it refused just before this turn (None: no refusal)."""
    refusal: dict[str, dict[str, JsonValue]] | None = turn.get("refusal")  # type: ignore[assignment]
    return refusal.get("error", {}) if refusal else None
