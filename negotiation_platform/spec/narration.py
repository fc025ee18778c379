"""Events in plain words, from one reader's side: the default text every game's `describe_event` starts from.

An event reaches a person (the play page, the viewer, the CLI transcript) and a model (the `llm:` agent's
prompt) as JSON; a `Happening` is that JSON read once into typed fields, and `default_text` says it in a
sentence ("you propose mine 60", "concession accepts"). Games override `BaseGame.describe_event` to say what
an action means to the reader ("concession offers you 18 and keeps 82") and fall back on this for the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pydantic import JsonValue

YOU = "you"


@dataclass(frozen=True)
class Happening:
    """One logged event as a game narrates it: its kind, place, actor and data (as the event's JSON has them)."""

    kind: str
    round: int = 0
    phase: str | None = None
    actor: str | None = None
    data: Mapping[str, JsonValue] = field(default_factory=dict)
    visible_to: tuple[str, ...] | None = None

    @classmethod
    def read(cls, event: Mapping[str, object]) -> Happening:
        """A happening from an event's JSON (`Event.to_dict()`); missing or odd fields read as empty."""
        data, seen, where = event.get("data"), event.get("visible_to"), event.get("round")
        return cls(
            kind=str(event.get("kind", "")),
            round=where if isinstance(where, int) else 0,
            phase=_text(event.get("phase")),
            actor=_text(event.get("actor")),
            data=data if isinstance(data, Mapping) else {},
            visible_to=tuple(str(s) for s in seen) if isinstance(seen, list) else None,
        )

    @property
    def action_type(self) -> str:
        """The action's name ("" for an event that is not an action)."""
        return str(self.data.get("action_type") or "")

    @property
    def payload(self) -> Mapping[str, JsonValue]:
        payload = self.data.get("payload")
        return payload if isinstance(payload, Mapping) else {}


@dataclass(frozen=True)
class Fact:
    """One thing a seat knows, said for a person: a label and its value in the game's units
    ("your BATNA" / "$39,779.23")."""

    label: str
    text: str


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def name(player: str | None, reader: str | None) -> str:
    """How the reader calls `player`: "you" for themselves."""
    return YOU if player is not None and player == reader else player or "the game"


def does(player: str | None, reader: str | None, verb: str, third_person: str | None = None, aside: str = "") -> str:
    """Subject and verb agreeing: "you bid" / "alice bids" (`third_person` for irregular verbs), with an
    `aside` after the subject ("alice (Party B) offers")."""
    subject = name(player, reader) + (f" ({aside})" if aside else "")
    if player is not None and player == reader:
        return f"{subject} {verb}"
    return f"{subject} {third_person or _third_person(verb)}"


def _third_person(verb: str) -> str:
    head, _, rest = verb.partition(" ")
    if head.endswith(("s", "sh", "ch", "x", "o")):
        head += "es"
    elif head.endswith("y") and head[-2:-1] not in "aeiou":
        head = head[:-1] + "ies"
    else:
        head += "s"
    return f"{head} {rest}".rstrip()


def dollars(amount: float) -> str:
    """An amount of money as people write it: "$41,000", "$40,999.50" (cents only when there are some)."""
    text = f"${abs(amount):,.2f}".removesuffix(".00")
    return f"-{text}" if amount < 0 else text


def percent(share: float) -> str:
    """A share (0..1) as people read it: "60%" (one decimal where it has one: "12.5%")."""
    return f"{share * 100:.1f}".removesuffix(".0") + "%"


def plain_value(value: JsonValue) -> str:
    """A payload value in words: numbers without float artefacts, lists joined, nested data in brief."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(plain_value(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k.replace('_', ' ')} {plain_value(v)}" for k, v in value.items())
    return "-" if value is None else str(value)


Say = Callable[[Happening, str | None], str]
"""A game's `describe_event`: how revealed sealed moves are each said."""


def default_text(event: Happening, reader: str | None, say: Say | None = None) -> str:
    """The event in a sentence from `reader`'s side (None: a spectator's), for any game; revealed sealed
    moves are each said by `say` (the game's own words) when given."""
    data, actor = event.data, event.actor
    if event.kind == "message":
        to = data.get("to")
        heard = f" to {', '.join(name(str(p), reader) for p in to)}" if isinstance(to, list) else ""
        return f"{does(actor, reader, 'say')}{heard}: {data.get('content', '')}"
    if event.kind == "action":
        words = event.action_type.replace("_", " ")
        details = plain_value(dict(event.payload)) if event.payload else ""
        late = " (timed out)" if data.get("timed_out") else " (forfeited)" if data.get("forfeited") else ""
        return f"{does(actor, reader, words)}{' ' + details if details else ''}{late}"
    return engine_text(event, reader, say or default_text)


def engine_text(event: Happening, reader: str | None, say: Say) -> str:
    """The engine's own events (start, rounds, phases, reveals, time-outs, notices, the end) in words."""
    data = event.data
    kind = event.kind
    if kind == "match_started":
        players = data.get("players")
        seats = ", ".join(name(str(p), reader) for p in players) if isinstance(players, list) else ""
        return f"The match starts: {seats}." if seats else "The match starts."
    if kind == "round_started":
        return f"Round {data.get('round', event.round)} begins."
    if kind == "phase_started":
        return f"The {str(data.get('phase', event.phase)).replace('_', ' ')} phase begins."
    if kind == "phase_ended":
        return f"The {str(data.get('phase', event.phase)).replace('_', ' ')} phase ends."
    if kind == "match_ended":
        return "The match is over."
    if kind == "timeout":
        players = data.get("players")
        who = ", ".join(name(str(p), reader) for p in players) if isinstance(players, list) else "a player"
        reason = data.get("reason")
        return f"Time ran out for {who}{': ' + str(reason) if reason else ''}."
    if kind == "revealed":
        moves = data.get("submissions")
        if isinstance(moves, Mapping):
            said = "; ".join(_moves(p, m, reader, say) for p, m in moves.items())
            return f"Sealed moves revealed: {said}."
        return "Sealed moves revealed."
    if kind == "notice":
        return f"News: {plain_value(dict(data))}." if data else "News."
    return f"{kind.replace('_', ' ')}: {plain_value(dict(data))}" if data else kind.replace("_", " ")


def _moves(player: str, moves: JsonValue, reader: str | None, say: Say) -> str:
    """A seat's sealed moves ([{"action_type", "payload"}, ...]) as the game says them."""
    said = [
        say(Happening(kind="action", actor=player, data=move), reader)
        for move in (moves if isinstance(moves, list) else [])
        if isinstance(move, Mapping)
    ]
    return ", ".join(said) or f"{name(player, reader)}: nothing"
