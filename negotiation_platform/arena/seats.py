"""A seat's operations, typed: the arena's JSON operations and in-process players share them.

`Arena.get_turn_state`, `perform_action`, `send_*_message` and `play_default` take their arguments
checked (a request's, see `arena.requests`), find the seat by its token (`SeatAccess`), and answer
`to_dict()` of what `SeatMoves` returns: `SeatMoves` checks nothing again. A player in the arena's
own process (`play`, tournaments) gets a `LocalSeat` from `Arena.seat_for` instead: its token is
checked once, each call's plain values where they come in (`arena.arguments`), and each call goes
straight to the same locks, rules, event log, store writes and turn clocks, answering the typed
`TurnState` and `Acted` (events as logged), with nothing encoded as JSON.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from pydantic import JsonValue

from negotiation_platform.arena.arguments import (
    action_arguments,
    cursor_argument,
    message_arguments,
    text_argument,
    wait_argument,
)
from negotiation_platform.arena.clocks import TurnClocks
from negotiation_platform.arena.committer import Committer
from negotiation_platform.arena.live import LiveMatch, Seat
from negotiation_platform.arena.match_table import MatchTable
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.arena.seat_access import SeatAccess, playing
from negotiation_platform.arena.turn_state import Acted, TurnState
from negotiation_platform.arena.waiting import Waiters
from negotiation_platform.engine.events import Event
from negotiation_platform.engine.match import Match

Locate = Callable[[], Awaitable[tuple[LiveMatch, Seat]]]
"""Finds a seat (again): its match as held now, and the seat."""


class SeatMoves:
    """What a seat reads and does: its turn state as committed, and the changes it makes, committed."""

    def __init__(
        self,
        table: MatchTable,
        committer: Committer,
        clocks: TurnClocks,
        access: SeatAccess,
        waiters: Waiters,
        policy: ArenaPolicy,
        clock: Callable[[], float],
    ) -> None:
        self._table, self._committer, self._clocks = table, committer, clocks
        self.access, self.waiters = access, waiters
        self.policy, self.clock = policy, clock
        self.owns: Callable[[LiveMatch], bool] = table.owns
        """Whether a match is this process's own copy of it (see `MatchTable.owns`)."""

    def turn_state(self, live: LiveMatch, seat: Seat, cursor: int, include_prompt: bool) -> TurnState:
        """The seat's turn state now (the caller makes sure nothing changes the match meanwhile)."""
        return TurnState(live, seat, cursor, include_prompt, self.policy, self.clock)

    async def read_turn(self, find: Locate, cursor: int, include_prompt: bool) -> TurnState:
        """The seat's turn state as committed. A match whose lock is free is read at once: no change is
        under way, and none can start while this reads (it does not wait in between)."""
        live, seat = await find()
        if not live.lock.locked() and self._table.holds(live):
            return TurnState(live, seat, cursor, include_prompt, self.policy, self.clock)
        async with self._table.committed(find) as (live, seat):
            return TurnState(live, seat, cursor, include_prompt, self.policy, self.clock)

    def act(self, live: LiveMatch, seat: Seat, action: str, payload: dict[str, JsonValue] | None) -> Awaitable[Acted]:
        """Take an action (checked arguments; the game validates the payload against its model)."""
        return self._after(live, seat, lambda m: m.submit(seat.agent_id, action, payload))

    def say(self, live: LiveMatch, seat: Seat, content: str, to: list[str] | None) -> Awaitable[Acted]:
        """Send a message (checked arguments), public or (`to`) private."""
        return self._after(live, seat, lambda m: m.send_message(seat.agent_id, content, to))

    def forfeit(self, live: LiveMatch, seat: Seat, reason: str) -> Awaitable[Acted]:
        """Play the seat's default move, logging `reason` (checked)."""
        return self._after(live, seat, lambda m: m.play_default(seat.agent_id, reason, forfeit=True))

    async def _after(self, live: LiveMatch, seat: Seat, change: Callable[[Match], Sequence[Event]]) -> Acted:
        """Run a change on the match (off the loop when the policy says so) and write it to the store, then
        wake waiters, re-arm the clocks, report what happened."""
        match = live.match
        assert match is not None
        committer = self._committer
        if self.policy.steps_in_thread or live.lock.locked():
            async with live.lock:
                before = len(match.events)
                await committer.mutate(live, lambda: self._change(live, change, before))
                return self._acted(live, seat, before)
        before = len(match.events)
        try:  # the lock is free and the step runs here: nothing else runs until it is done, as if it were held
            self._change(live, change, before)
        except Exception as failure:
            async with live.lock:  # free, so taken at once: readers wait while the failure is undone
                await committer.undo(live, before, failure)
        return self._acted(live, seat, before)

    def _acted(self, live: LiveMatch, seat: Seat, before: int) -> Acted:
        live.turn_started.pop(seat.agent_id, None)  # whoever acted starts a fresh turn clock
        outcome = Acted(live, seat, before)
        self._clocks.settled(live)
        return outcome

    def _change(self, live: LiveMatch, change: Callable[[Match], Sequence[Event]], before: int) -> None:
        assert live.match is not None
        change(live.match)
        self._committer.play_and_save(live, before)


class LocalSeat:
    """One seat of an in-process arena, for a player in the same process: what `Arena.seat_for` gives.

    It keeps the seat it was given, and finds it again by its token only when its match's copy went
    away (forgotten after a failed store write, or played by another process), so a call costs no
    token hashing; the match's lock, rules, log, store and clocks are the JSON operations' own.
    """

    __slots__ = ("_live", "_moves", "_seat", "_token", "match_id")

    def __init__(self, moves: SeatMoves, live: LiveMatch, seat: Seat, token: str) -> None:
        self._moves, self._live, self._seat, self._token = moves, live, seat, token
        self.match_id = live.match_id

    @property
    def agent_id(self) -> str:
        return self._seat.agent_id

    @property
    def token(self) -> str:
        """The seat's secret token, as its player got it when seated."""
        return self._token

    async def turn(
        self, since: int | None = None, *, include_prompt: bool = True, wait_seconds: float = 0
    ) -> TurnState:
        """The seat's turn state, with its events after cursor `since`; waits up to `wait_seconds` for its
        turn or something new (see `Arena.get_turn_state`)."""
        cursor = since if type(since) is int and since >= 0 else cursor_argument(since)
        moves = self._moves
        if not (type(wait_seconds) is int and wait_seconds == 0):  # the default, checked by its type
            wait_seconds = wait_argument(wait_seconds)
        if not wait_seconds:
            found = self._current()
            if found is not None and not found[0].lock.locked():  # as `read_turn` reads a match nobody changes
                return TurnState(found[0], found[1], cursor, include_prompt, moves.policy, moves.clock)
            return await moves.read_turn(self._located, cursor, include_prompt)

        async def locate() -> tuple[LiveMatch, Callable[[], TurnState]]:
            live, seat = await self._located()
            return live, lambda: moves.turn_state(live, seat, cursor, include_prompt)

        return await moves.waiters.wait_for(locate, wait_seconds, lambda state: state.your_turn)

    async def act(self, action_type: str, payload: dict[str, JsonValue] | None = None) -> Acted:
        """Take an action (see `Arena.perform_action`)."""
        action, data = action_arguments(action_type, payload)
        live, seat = playing(*(self._current() or await self._located(write=True)))
        return await self._moves.act(live, seat, action, data)

    async def say(self, content: str, to: list[str] | None = None) -> Acted:
        """A public message, or (`to`) a private one to those players."""
        text, recipients = message_arguments(content, to)
        live, seat = playing(*(self._current() or await self._located(write=True)))
        return await self._moves.say(live, seat, text, recipients)

    async def forfeit(self, reason: str) -> Acted:
        """Give up the move: the phase's default action is played and `reason` logged (see `Arena.play_default`)."""
        why = text_argument("reason", reason)
        live, seat = playing(*(self._current() or await self._located(write=True)))
        return await self._moves.forfeit(live, seat, why)

    def _current(self) -> tuple[LiveMatch, Seat] | None:
        """The seat as held, while its match's copy is this process's own and the seat still in it."""
        live, seat = self._live, self._seat
        if self._moves.owns(live):
            for taken in live.seats:  # by identity: a seat's dataclass equality compares every field
                if taken is seat:
                    return live, seat
        return None

    async def _located(self, *, write: bool = False) -> tuple[LiveMatch, Seat]:
        """The seat as held, or found again by its token (a fresh copy of its match, read-only for readers
        when another process plays it)."""
        found = self._current()
        if found is None:
            found = self._live, self._seat = await self._moves.access.seat(self.match_id, self._token, write=write)
        return found
