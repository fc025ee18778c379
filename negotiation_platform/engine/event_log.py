"""A match's event log, kept compact: stored as columns, read as `Event` tuples.

A finished match is mostly its log, and a served arena or a tournament holds thousands of them.
So the log stores one byte of kind and one of actor per event, plus the event's data, and keeps
once, rather than per event, what the engine can rebuild: an event's round and phase (they change
a few times per round), a round's number, the empty data of a phase's end, an action's
`{"action_type", "payload"}` record around its payload (a payload of plain values is kept as a
tuple of them, or as its one value, its field names once per kind of action), and the final
result (the match's own `GameResult`, which nobody changes after the end). Readers get ordinary
`Event` tuples, made when they read; the same slice read twice gives equal events. What the log is
handed it copies (containers only: scalars are shared), so a logged event never changes after it is
appended, whatever its giver does later with the data it handed over.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence, Set
from typing import Any, overload

from negotiation_platform.engine.events import Event, EventKind
from negotiation_platform.games.base_game import GameResult
from negotiation_platform.spec.plain_data import plain_copy

_KINDS = tuple(EventKind)
_CODE = {kind: code for code, kind in enumerate(_KINDS)}
"""Codes below `len(_KINDS)` mean "this kind, data stored as it is"."""
_ROUND_STARTED = len(_KINDS)
_PHASE_ENDED = _ROUND_STARTED + 1
_MATCH_ENDED = _ROUND_STARTED + 2
_PHASE_STARTED = _CODE[EventKind.PHASE_STARTED]
_KIND_TEXTS = tuple(kind.value for kind in _KINDS)
"""Each code's kind as the text `Event.to_dict` writes."""
_ACTION_TEXT = EventKind.ACTION.value
_ROUND_STARTED_TEXT = EventKind.ROUND_STARTED.value
_PHASE_ENDED_TEXT = EventKind.PHASE_ENDED.value
_FIRST_ACTION = 32
"""Codes from here on: an action of kind `action_kinds[code − _FIRST_ACTION]`, data its payload."""
_MAX_CODE = 255
_RECENT = 32
"""How many recently read events a running match keeps made (see `EventLog.span`)."""
_NOBODY = 255
"""The actor byte of events no player caused."""
_ROUND_TURNED = bytes((_PHASE_ENDED, _ROUND_STARTED, _PHASE_STARTED))
_THREE_NOBODIES = bytes((_NOBODY, _NOBODY, _NOBODY))
_new_event = tuple.__new__
ActionKind = tuple[str, tuple[str, ...] | None, str | None]
"""What an action's record is rebuilt from besides its payload: name, payload fields, and for a move
the engine played as a default the flag its record carries (`TIMED_OUT` or `FORFEITED`)."""
TIMED_OUT = "timed_out"
"""A default played because a clock ran out."""
FORFEITED = "forfeited"
"""A default played because the seat's agent gave up its move (unusable or refused replies)."""


def played_by_default(data: Mapping[str, object]) -> bool:
    """Whether an action event's data is a default the engine played (derived, not the seat's own move)."""
    return bool(data.get(TIMED_OUT) or data.get(FORFEITED))


_shared_kinds: dict[ActionKind, ActionKind] = {}
"""One tuple per action kind for all logs (each log would otherwise keep its own copies); the kinds
come from games' specs, not from players, so there are few. Never emptied: logs know kinds by id."""


def action_kind(name: str, fields: tuple[str, ...] | None, default: str | None = None) -> ActionKind:
    """The one shared tuple of this kind of action (see `ActionKind`)."""
    kind = (name, fields, default)
    return _shared_kinds.setdefault(kind, kind)


class _Events(Sequence[Event]):
    """Equality and display of a run of events, whatever holds them."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # a growing log is not a dict key

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


class EventLog(_Events):
    """The append-only log of one match (sequence numbers count from 1, indices from 0)."""

    __slots__ = (
        "_action_codes",
        "_action_kinds",
        "_actors",
        "_codes",
        "_data",
        "_frame_phases",
        "_frame_rounds",
        "_frame_starts",
        "_openings",
        "_players",
        "_recent",
        "_recent_start",
        "_visible",
    )

    def __init__(self, players: Sequence[str]) -> None:
        self._players = tuple(players)
        self._codes = bytearray()
        self._actors = bytearray()
        self._data: list[Any] = []
        self._visible: dict[int, tuple[str, ...]] | None = None
        """Only the events not shown to everyone, by index (None while there are none)."""
        self._frame_starts: list[int] | array[int] = [0]
        """Index of the first event of each stretch of one round and phase, and (below) those (arrays of
        4-byte numbers once the match is over)."""
        self._frame_rounds: list[int] | array[int] = [0]
        self._frame_phases: list[str | None] = [None]
        self._action_kinds: list[ActionKind] = []
        """(name, payload fields or None, timed out) of the actions met so far; an action's code points here."""
        self._action_codes: dict[int, int] = {}
        """Codes by the id of their (shared, never freed) kind."""
        self._openings: dict[str, dict[str, object]] = {}
        """Each phase's last `phase_started` data as kept: most rounds open a phase alike, and those
        events share one copy."""
        self._recent: list[Event] | None = []
        """Events already made from `_recent_start` on, while the match runs: its seats read each new event
        several times (after acting, then in their turn state). None once the match is over."""
        self._recent_start = 0
        if len(self._players) >= _NOBODY:
            raise ValueError(f"an event log holds at most {_NOBODY - 1} players")

    # --- writing -------------------------------------------------------------------------

    def enter(self, round_number: int, phase: str | None) -> None:
        """Events appended from now on belong to `round_number` and `phase`."""
        if self._frame_starts[-1] == len(self._codes):
            self._frame_rounds[-1], self._frame_phases[-1] = round_number, phase
            return
        self._frame_starts.append(len(self._codes))
        self._frame_rounds.append(round_number)
        self._frame_phases.append(phase)

    def append(
        self, kind: EventKind, actor: str | None, data: Mapping[str, object], visible_to: tuple[str, ...] | None = None
    ) -> None:
        """An event whose data is a copy of `data` as it is now: whatever its giver later does to `data`
        (a phase's live submissions, a game's state in a notice), the logged event never changes."""
        self._append(_CODE[kind], actor, plain_copy(data), visible_to)

    def append_action(
        self,
        actor: str,
        name: str,
        payload: Mapping[str, object],
        fields: tuple[str, ...] | None,
        visible_to: tuple[str, ...] | None = None,
        *,
        default: str | None = None,
    ) -> int:
        """An action event, its record rebuilt when read. `fields`, when given, are the payload's keys in
        order and its values are plain: then only the values are kept (a lone value as itself); else a copy
        of `payload`. Either way `payload` is not held. `default` flags a move the engine played for the
        seat (`TIMED_OUT` or `FORFEITED`). Returns the log's new length (the event's sequence number)."""
        return self.append_kind(actor, action_kind(name, fields, default), payload, visible_to)

    def append_kind(
        self, actor: str, kind: ActionKind, payload: Mapping[str, object], visible_to: tuple[str, ...] | None = None
    ) -> int:
        """`append_action` with its kind as `action_kind` gives it (the engine keeps one per action)."""
        code = self._action_codes.get(id(kind))
        if code is None:
            code = _FIRST_ACTION + len(self._action_kinds)
            if code > _MAX_CODE:  # more kinds of action than codes: keep the record itself
                self._append(_CODE[EventKind.ACTION], actor, action_record(kind, plain_copy(payload)), visible_to)
                return len(self._codes)
            self._action_kinds.append(kind)
            self._action_codes[id(kind)] = code
        fields = kind[1]
        if fields is None:
            stored = plain_copy(payload)
        elif len(fields) == 1:
            stored = payload[fields[0]]
        else:
            stored = tuple(payload.values())
        codes = self._codes
        if visible_to is not None:
            if self._visible is None:
                self._visible = {}
            self._visible[len(codes)] = visible_to
        codes.append(code)
        self._actors.append(self._players.index(actor))
        self._data.append(stored)
        return len(codes)

    def append_match_started(self, game_id: str) -> None:
        """The first event: the players (the log's own list of them) and the game's id."""
        self._append(_CODE[EventKind.MATCH_STARTED], None, {"players": list(self._players), "game": game_id}, None)

    def append_round_started(self, round_number: int) -> None:
        """A round opens: its `round_started` event begins a stretch of `round_number` and no phase."""
        self._begin_stretch(round_number, None, _ROUND_STARTED, None)

    def append_phase_started(self, round_number: int, phase: str, data: Mapping[str, object]) -> None:
        """A phase opens: its `phase_started` event begins the stretch of `round_number` and `phase`."""
        kept = self._openings.get(phase)
        if kept != data:
            kept = self._openings[phase] = plain_copy(data)
        self._open(round_number, phase, kept)

    def append_opening(self, round_number: int, phase: str, turn_order: str, order: list[str] | None) -> None:
        """`append_phase_started` with the engine's data, `{"phase", "turn_order", "order"}` (no order: not
        alternating), made here only when it is not the phase's last."""
        kept = self._openings.get(phase)
        if kept is None or kept.get("order") != order or kept["turn_order"] != turn_order:
            kept = {"phase": phase, "turn_order": turn_order}
            if order is not None:
                kept["order"] = list(order)
            self._openings[phase] = kept
        self._open(round_number, phase, kept)

    def _open(self, round_number: int, phase: str, kept: dict[str, object]) -> None:
        self._begin_stretch(round_number, phase, _PHASE_STARTED, kept)

    def _begin_stretch(self, round_number: int, phase: str | None, code: int, data: dict[str, object] | None) -> None:
        """Append an opening event (`enter` and `_append` spelt out: the engine writes one every round),
        which begins the stretch of `round_number` and `phase` (or takes over an empty one)."""
        codes = self._codes
        starts = self._frame_starts
        if starts[-1] == len(codes):
            self._frame_rounds[-1], self._frame_phases[-1] = round_number, phase
        else:
            starts.append(len(codes))
            self._frame_rounds.append(round_number)
            self._frame_phases.append(phase)
        codes.append(code)
        self._actors.append(_NOBODY)
        self._data.append(data)

    def append_round_turned(self, round_number: int, phase: str) -> None:
        """The one phase of a round ends, and the next round opens as the last one did: `phase_ended`,
        `round_started`, then `phase_started` with the data the phase last opened with (what
        `append_phase_ended`, `append_round_started` and `_open` write; the phase's end stays in its
        stretch, and the two openings each begin their own)."""
        codes = self._codes
        start = len(codes) + 1
        self._frame_starts.extend((start, start + 1))
        self._frame_rounds.extend((round_number, round_number))
        self._frame_phases.extend((None, phase))
        codes.extend(_ROUND_TURNED)
        self._actors.extend(_THREE_NOBODIES)
        self._data.extend((None, None, self._openings[phase]))

    def append_phase_ended(self) -> None:
        self._codes.append(_PHASE_ENDED)
        self._actors.append(_NOBODY)
        self._data.append(None)

    def append_match_ended(self, result: GameResult) -> None:
        self._append(_MATCH_ENDED, None, result, None)
        self._seal()

    def _seal(self) -> None:
        """Keep only what reading needs: a finished match's log is held long after its last write (a store,
        a tournament, a served arena's finished matches), so write-side tables and spare capacity go."""
        self._recent = None
        del self._action_codes, self._openings  # a sealed log takes no more writes
        self._data = self._data[:]  # a copy is allocated to size; the appended list kept room to grow
        self._frame_starts = array("I", self._frame_starts)
        self._frame_rounds = array("I", self._frame_rounds)
        self._frame_phases = self._frame_phases[:]

    def _append(self, code: int, actor: str | None, data: object, visible_to: tuple[str, ...] | None) -> None:
        if visible_to is not None:
            if self._visible is None:
                self._visible = {}
            self._visible[len(self._codes)] = visible_to
        self._codes.append(code)
        self._actors.append(_NOBODY if actor is None else self._players.index(actor))
        self._data.append(data)

    # --- reading -------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._codes)

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self._codes))
            if step != 1:
                return list(self)[index]
            return self.span(start, stop)
        if index < 0:
            index += len(self._codes)
        if not 0 <= index < len(self._codes):
            raise IndexError("event index out of range")
        return self._read(range(index, index + 1))[0]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._read(range(len(self._codes))))

    def since(self, start: int) -> LogTail:
        """The events from index `start` to the present end, made into `Event`s only if read."""
        return LogTail(self, start, len(self._codes))

    def visible_for(self, player_id: str | None, since: int = 0) -> list[Event]:
        """Events after index `since` that `player_id` may see (None: all); hidden ones are never made."""
        start, stop, _ = slice(since, None).indices(len(self._codes))  # as `events[since:]` reads
        if player_id is None or not self._visible:
            return self.span(start, stop)
        hidden = self._visible
        return self._read([i for i in range(start, stop) if i not in hidden or player_id in hidden[i]])

    def span(self, start: int, stop: int) -> list[Event]:
        """Events `start` to `stop`, kept for the next reader while the match runs (at most the last
        `_RECENT` of them: the seats' cursors trail the end by a turn or two)."""
        recent, first = self._recent, self._recent_start
        if recent is None or not first <= start <= first + len(recent):
            return self._read(range(start, stop))
        known = first + len(recent)
        if stop > known:
            recent.extend(self._read(range(known, stop)))
            if len(recent) > _RECENT:
                drop = len(recent) - _RECENT // 2
                del recent[:drop]
                self._recent_start = first = first + drop
            if start < first:
                return self._read(range(start, stop))
        return recent[start - first : stop - first]

    def _read(self, indices: Sequence[int]) -> list[Event]:
        """Events at ascending `indices`, each with the round and phase of its stretch (a list: readers
        mostly ask for the few events since their last look, where a generator costs more than it saves)."""
        starts, rounds, phases = self._frame_starts, self._frame_rounds, self._frame_phases
        codes, actors, data, visible, players, action_kinds = (
            self._codes,
            self._actors,
            self._data,
            self._visible,
            self._players,
            self._action_kinds,
        )
        events: list[Event] = []
        following = 0
        round_number, phase = 0, None
        for i in indices:
            if i >= following:
                frame = len(starts) - 1 if i >= starts[-1] else bisect_right(starts, i) - 1
                round_number, phase = rounds[frame], phases[frame]
                following = starts[frame + 1] if frame + 1 < len(starts) else len(codes)
            code, item = codes[i], data[i]
            if code >= _FIRST_ACTION:
                action = action_kinds[code - _FIRST_ACTION]
                kind, item = EventKind.ACTION, action_record(action, _read_payload(item, action[1]))
            elif code < _ROUND_STARTED:
                kind = _KINDS[code]
            else:
                kind, item = self._rebuilt(i, code, item, round_number)
            seat = actors[i]
            actor = None if seat == _NOBODY else players[seat]
            events.append(
                _new_event(Event, (i + 1, kind, round_number, phase, actor, item, visible.get(i) if visible else None))
            )
        return events

    def dicts(self, seen_by: Set[str] | None = None) -> list[dict[str, Any]]:
        """Every event as `Event.to_dict()` writes it, or with `seen_by` those one of these players may
        see, made straight from the columns (a whole log read in order: no `Event`s in between)."""
        starts, rounds, phases = self._frame_starts, self._frame_rounds, self._frame_phases
        codes, actors, data, visible, action_kinds = (
            self._codes,
            self._actors,
            self._data,
            self._visible or {},
            self._action_kinds,
        )
        names: dict[int, str | None] = {_NOBODY: None, **dict(enumerate(self._players))}
        lone = [
            fields[0] if fields is not None and len(fields) == 1 and not default else None
            for _, fields, default in action_kinds
        ]
        """Per action kind, the one field of its payload when the log keeps that field's value alone and the
        record has no flag: such a record is made here at once (what `action_record` of `_read_payload` makes)."""
        hidden = visible if seen_by is not None else {}
        out: list[dict[str, Any]] = []
        add = out.append
        last = len(starts) - 1
        for frame, first in enumerate(starts):
            round_number, phase = rounds[frame], phases[frame]
            for i in range(first, starts[frame + 1] if frame < last else len(codes)):
                if (
                    hidden
                    and (shown := hidden.get(i)) is not None
                    and seen_by is not None
                    and seen_by.isdisjoint(shown)
                ):
                    continue
                code, item = codes[i], data[i]
                if code >= _FIRST_ACTION:
                    action = action_kinds[code - _FIRST_ACTION]
                    field = lone[code - _FIRST_ACTION]
                    kind = _ACTION_TEXT
                    if field is not None:
                        item = {"action_type": action[0], "payload": {field: item}}
                    else:
                        item = action_record(action, _read_payload(item, action[1]))
                elif code < _ROUND_STARTED:
                    kind = _KIND_TEXTS[code]
                elif code == _ROUND_STARTED:  # (as `_rebuilt` makes it: the two openings every round writes)
                    kind, item = _ROUND_STARTED_TEXT, {"round": round_number}
                elif code == _PHASE_ENDED:
                    kind, item = _PHASE_ENDED_TEXT, {}
                else:
                    made, item = self._rebuilt(i, code, item, round_number)
                    kind = _KIND_TEXTS[_CODE[made]]
                to = visible.get(i) if visible else None
                add(
                    {
                        "seq": i + 1,
                        "kind": kind,
                        "round": round_number,
                        "phase": phase,
                        "actor": names[actors[i]],
                        "data": item,
                        "visible_to": None if to is None else list(to),
                    }
                )
        return out

    def _rebuilt(self, i: int, code: int, item: object, round_number: int) -> tuple[EventKind, object]:
        """The kind and data of an event whose data the log rebuilds (a round's start, a phase's end, the
        match's end) at index `i`, in a stretch of `round_number`."""
        if code == _ROUND_STARTED:
            return EventKind.ROUND_STARTED, {"round": round_number}
        if code == _PHASE_ENDED:
            return EventKind.PHASE_ENDED, {}
        # the result is copied once, when first read (every seat reads it, often twice)
        assert isinstance(item, GameResult), "a match's end keeps its result until first read"
        read = {"result": item.to_dict()}
        self._codes[i], self._data[i] = _CODE[EventKind.MATCH_ENDED], read
        return EventKind.MATCH_ENDED, read


class LogTail(_Events):
    """A fixed stretch of a log (what one change caused): later events never join it."""

    __slots__ = ("_log", "_start", "_stop")

    def __init__(self, log: EventLog, start: int, stop: int) -> None:
        self._log, self._start, self._stop = log, start, stop

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        return list(self)[index]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._log.span(self._start, self._stop))


def _read_payload(stored: Any, fields: tuple[str, ...] | None) -> dict[str, Any]:
    """A payload again, from what `append_action` kept of it."""
    if fields is None:
        return stored  # type: ignore[no-any-return]
    if len(fields) == 1:
        return {fields[0]: stored}
    return dict(zip(fields, stored, strict=True))


def action_record(kind: ActionKind, payload: object) -> dict[str, object]:
    """An action event's data, as the engine has always logged it (and a sealed phase reveals it)."""
    name, _, default = kind
    record: dict[str, object] = {"action_type": name, "payload": payload}
    if default:
        record[default] = True
    return record
