"""A match's event log, kept compact: stored as columns, read as `Event` tuples.

A finished match is mostly its log, and a served arena or a tournament holds thousands of them.
So the log stores one byte of kind and one of actor per event, plus the event's data, and keeps
once, rather than per event, what the engine can rebuild: an event's round and phase (they change
a few times per round), a round's number, the empty data of a phase's end, an action's
`{"action_type", "payload"}` record around its payload, and the final result (the match's own
`GameResult`, which nobody changes after the end). Readers get ordinary `Event` tuples, made when
they read; the same slice read twice gives equal events.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import Any, overload

from negotiation_platform.engine.events import Event, EventKind
from negotiation_platform.games.base_game import GameResult

_KINDS = tuple(EventKind)
_CODE = {kind: code for code, kind in enumerate(_KINDS)}
"""Codes below `len(_KINDS)` mean "this kind, data stored as it is"."""
_ROUND_STARTED = len(_KINDS)
_PHASE_ENDED = _ROUND_STARTED + 1
_MATCH_ENDED = _ROUND_STARTED + 2
_FIRST_ACTION = 32
"""Codes from here on: an action whose name is `names[code − _FIRST_ACTION]`, data its payload."""
_MAX_CODE = 255
_NOBODY = 255
"""The actor byte of events no player caused."""
_new_event = tuple.__new__


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
        "_actors",
        "_codes",
        "_data",
        "_frame_phases",
        "_frame_rounds",
        "_frame_starts",
        "_names",
        "_players",
        "_seats",
        "_visible",
    )

    def __init__(self, players: Sequence[str]) -> None:
        self._players = tuple(players)
        self._seats: dict[str | None, int] = {player: seat for seat, player in enumerate(self._players)}
        self._seats[None] = _NOBODY
        self._codes = bytearray()
        self._actors = bytearray()
        self._data: list[Any] = []
        self._visible: dict[int, tuple[str, ...]] = {}
        """Only the events not shown to everyone, by index."""
        self._frame_starts: list[int] = [0]
        """Index of the first event of each stretch of one round and phase, and (below) those."""
        self._frame_rounds: list[int] = [0]
        self._frame_phases: list[str | None] = [None]
        self._names: list[str] = []
        """Action names met so far, in order; an action's code points here."""
        self._action_codes: dict[str, int] = {}
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
        self, kind: EventKind, actor: str | None, data: dict[str, Any], visible_to: tuple[str, ...] | None = None
    ) -> None:
        """An event whose data is kept as given."""
        self._append(_CODE[kind], actor, data, visible_to)

    def append_action(
        self, actor: str, name: str, payload: dict[str, Any], visible_to: tuple[str, ...] | None = None
    ) -> None:
        """An action event: its record is rebuilt around `payload` when read."""
        code = self._action_codes.get(name)
        if code is None:
            code = _FIRST_ACTION + len(self._names)
            if code > _MAX_CODE:  # more action names than codes: keep the record itself
                self._append(_CODE[EventKind.ACTION], actor, {"action_type": name, "payload": payload}, visible_to)
                return
            self._names.append(name)
            self._action_codes[name] = code
        self._append(code, actor, payload, visible_to)

    def append_round_started(self, round_number: int) -> None:
        self.enter(round_number, None)
        self._append(_ROUND_STARTED, None, None, None)

    def append_phase_ended(self) -> None:
        self._append(_PHASE_ENDED, None, None, None)

    def append_match_ended(self, result: GameResult) -> None:
        self._append(_MATCH_ENDED, None, result, None)

    def _append(self, code: int, actor: str | None, data: Any, visible_to: tuple[str, ...] | None) -> None:
        if visible_to is not None:
            self._visible[len(self._codes)] = visible_to
        self._codes.append(code)
        self._actors.append(self._seats[actor])
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
            return list(self._read(range(start, stop)))
        if index < 0:
            index += len(self._codes)
        if not 0 <= index < len(self._codes):
            raise IndexError("event index out of range")
        return next(self._read(range(index, index + 1)))

    def __iter__(self) -> Iterator[Event]:
        return self._read(range(len(self._codes)))

    def since(self, start: int) -> LogTail:
        """The events from index `start` to the present end, made into `Event`s only if read."""
        return LogTail(self, start, len(self._codes))

    def visible_for(self, player_id: str | None, since: int = 0) -> list[Event]:
        """Events after index `since` that `player_id` may see (None: all); hidden ones are never made."""
        indices = range(since, len(self._codes))
        if player_id is not None and self._visible:
            hidden = self._visible
            indices = [i for i in indices if i not in hidden or player_id in hidden[i]]  # type: ignore[assignment]
        return list(self._read(indices))

    def _read(self, indices: Sequence[int]) -> Iterator[Event]:
        """Events at ascending `indices`, each with the round and phase of its stretch."""
        starts, rounds, phases = self._frame_starts, self._frame_rounds, self._frame_phases
        codes, actors, data, visible, players, names = (
            self._codes,
            self._actors,
            self._data,
            self._visible,
            self._players,
            self._names,
        )
        frame = -1
        following = 0
        round_number, phase = 0, None
        for i in indices:
            if i >= following:
                frame = bisect_right(starts, i) - 1
                round_number, phase = rounds[frame], phases[frame]
                following = starts[frame + 1] if frame + 1 < len(starts) else len(codes)
            code, item = codes[i], data[i]
            if code >= _FIRST_ACTION:
                kind, item = EventKind.ACTION, {"action_type": names[code - _FIRST_ACTION], "payload": item}
            elif code < _ROUND_STARTED:
                kind = _KINDS[code]
            elif code == _ROUND_STARTED:
                kind, item = EventKind.ROUND_STARTED, {"round": round_number}
            elif code == _PHASE_ENDED:
                kind, item = EventKind.PHASE_ENDED, {}
            else:
                kind, item = EventKind.MATCH_ENDED, {"result": item.to_dict()}
            seat = actors[i]
            actor = None if seat == _NOBODY else players[seat]
            yield _new_event(Event, (i + 1, kind, round_number, phase, actor, item, visible.get(i)))


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
        return self._log._read(range(self._start, self._stop))
