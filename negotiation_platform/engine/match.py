"""`Match`: one running game. Enforces the spec before the game sees anything.

Synchronous and free of I/O; deterministic from (game, config, seed, input events). The only
clock is an injected one, used for deadlines alone and never written to the log, so replaying
a match's input events into a fresh match rebuilds the same log and state.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from negotiation_platform.engine import contract
from negotiation_platform.engine.event_log import FORFEITED, TIMED_OUT, EventLog, action_record, played_by_default
from negotiation_platform.engine.events import INPUT_KINDS, Event, EventKind
from negotiation_platform.engine.phase_run import PhaseRun
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games.base_game import BaseGame, GameConfig, GameResult, GameState, PlayerAction, overrides
from negotiation_platform.payloads import stored_fields, validate_payload
from negotiation_platform.plain_data import plain_copy
from negotiation_platform.spec import (
    ActionSpec,
    FirstMover,
    GameSpec,
    PhaseSpec,
    StartRule,
    TurnOrder,
)

Clock = Callable[[], float]
DEADLINE = "deadline"
"""The reason logged when a clock, not a player, ends a turn or phase."""


class Match:
    """A game being played by a fixed list of players."""

    def __init__(
        self,
        game_cls: type[BaseGame[Any]],
        players: list[str],
        *,
        config: Mapping[str, Any] | GameConfig | None = None,
        seed: int = 0,
        match_id: str = "match",
        clock: Clock = time.monotonic,
    ) -> None:
        self.match_id = match_id
        self.seed = seed
        self.players = list(players)
        self._clock = clock
        # The game's id, not the match's: it is what the result (`GameResult.game_id`) names.
        self.game = game_cls(game_id=game_cls.spec.id, config=config, rng=_GameRngMaker(seed))
        self.spec = self.game.spec
        self._rng = orders_rng(seed) if _draws_orders(self.spec) else None
        """Made only for specs whose turn orders are drawn: seeding one is dear next to a move, and every
        match would keep its state (benchmarks/engine.py measures what a finished match holds)."""
        self._game_refuses = type(self.game).has_own_rules()
        """Whether the game has rules of its own to check an action against (else there is no call to make)."""
        self._game_orders = contract.game_orders(self.spec, self.players, self.game)
        """Asks and checks the game's own turn orders (None: the spec's start rule applies without asking)."""
        self._game_ends_phases = overrides(self.game, "end_phase")
        """Whether the game does something when a phase closes (else there is no call to make)."""
        self._every_round = all(p.runs_in(1) and p.last_round is None for p in self.spec.phases)
        """Whether every phase runs in every round (else which ones do is asked per round)."""
        roles = self.spec.roles
        if not roles.min_players <= len(players) <= roles.max_players or len(set(players)) != len(players):
            raise ValueError(
                f"{self.spec.id} needs {roles.min_players}..{roles.max_players} distinct players, got {players}"
            )
        self.events = EventLog(self.players)
        self.round = 0
        self.result: GameResult | None = None
        self._uses: dict[tuple[str, str], int] = {}
        self._first_mover: int | None = None
        self._phase_index = 0
        self._run: PhaseRun | None = None
        self._runs: dict[int, PhaseRun] = {}
        """Each phase's run, restarted every round the phase opens."""
        self._openings: dict[tuple[int, int], tuple[list[str], dict[str, Any]]] = {}
        """Turn order and `phase_started` data by (phase index, first seat): see `_opening`."""
        self._phase_name: str | None = None
        contract.initialize(self.game, self.spec, self.players)
        self._log(EventKind.MATCH_STARTED, None, {"players": self.players, "game": self.spec.id})
        self._start_round(1)

    # --- reading --------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def phase(self) -> str | None:
        return self._phase_name

    def acting(self) -> list[str]:
        """Who may act now."""
        return self._run.acting() if self._run is not None and not self.finished else []

    @property
    def deadline(self) -> float | None:
        """When the current turn (or phase) times out, on the injected clock."""
        return self._run.deadline if self._run is not None and not self.finished else None

    def events_for(self, player_id: str | None, since: int = 0) -> list[Event]:
        """Events after sequence number `since` that `player_id` may see (None: all of them)."""
        return self.events.visible_for(player_id, since)

    def allowed_actions(self, player_id: str) -> list[ActionSpec]:
        """The actions `player_id` may take right now, after the spec's budgets and the game's own filter."""
        if player_id not in self.acting():
            return []
        run = self._require_run()
        candidates = [a.name for a in run.phase.actions if self._has_budget(player_id, a)]
        available = set(self.game.available_actions(player_id, candidates))
        return [a for a in run.phase.actions if a.name in available and a.name in candidates]

    def message_allowance(self, player_id: str) -> dict[str, Any]:
        """Which channels `player_id` may use now, and how many messages it has left."""
        run = self._run
        if run is None or self.finished or player_id not in self.acting():
            return {"public": False, "private": False, "remaining": 0}
        policy = run.phase.messaging
        remaining = self._messages_left(run, player_id)
        open_ = remaining is None or remaining > 0
        return {
            "public": open_ and policy.channel.allows_public,
            "private": open_ and policy.channel.allows_private,
            "remaining": remaining,
            "max_length": policy.max_length,
            "uses_turn": policy.uses_turn,
        }

    def remaining_uses(self, player_id: str, action: ActionSpec) -> int | None:
        if action.max_per_player is None:
            return None
        return action.max_per_player - self._uses.get((player_id, action.name), 0)

    # --- acting ---------------------------------------------------------------------------

    def submit(self, player_id: str, action_type: str, payload: Mapping[str, Any] | None = None) -> Sequence[Event]:
        """Take an action; returns the events it caused. Refusals raise and change nothing.

        Checked in this order: the seat, the phase, the turn, the budget, the payload, then the game's
        own rules; only the chosen action is checked, the full menu is listed only in a refusal.
        """
        run = self._run
        if run is None or self.result is not None or player_id not in self.players:
            self._require_player(player_id)
            run = self._require_run()
        action = run.actions.get(action_type)
        if action is None:
            raise self._not_in_phase(run, action_type)
        if player_id not in run.acting_now:
            raise self._not_your_turn(run)
        if action.max_per_player is not None and not self._has_budget(player_id, action):
            raise NegotiationError(
                ErrorCode.LIMIT_REACHED,
                f"You have used all {action.max_per_player} `{action.name}` actions allowed in this match.",
                action=action.name,
            )
        data = validate_payload(action, payload)
        game = self.game
        reason = game.action_error(player_id, {"type": action.name, **data}) if self._game_refuses else None
        if action.name not in game.available_actions(player_id, [action.name]):
            raise NegotiationError(
                ErrorCode.INVALID_ACTION,
                reason
                or f"`{action.name}` is not available right now; available: "
                f"{[a.name for a in self.allowed_actions(player_id)]}.",
                action=action.name,
            )
        if reason is not None:
            raise NegotiationError(ErrorCode.INVALID_ACTION, reason, action=action.name)
        start = len(self.events)
        self._apply_action(run, player_id, action, data, default=None)
        self._settle()
        return self.events.since(start)

    def send_message(self, player_id: str, content: str, to: Iterable[str] | None = None) -> Sequence[Event]:
        """Send a public message (`to` None) or a private one to the listed players."""
        self._require_player(player_id)
        run = self._require_run()
        policy = run.phase.messaging
        recipients = None if to is None else list(dict.fromkeys(to))
        if recipients is None and not policy.channel.allows_public:
            raise NegotiationError(
                ErrorCode.PHASE_CLOSED,
                f"Public messages are not allowed in phase `{run.phase.name}` (channel: {policy.channel.value}).",
            )
        if recipients is not None and not policy.channel.allows_private:
            raise NegotiationError(
                ErrorCode.PHASE_CLOSED,
                f"Private messages are not allowed in phase `{run.phase.name}` (channel: {policy.channel.value}).",
            )
        if recipients is not None:
            strangers = [r for r in recipients if r not in self.players or r == player_id]
            if not recipients or strangers:
                raise NegotiationError(
                    ErrorCode.UNKNOWN_RECIPIENT,
                    "Private messages go to other players of this match: "
                    f"{[p for p in self.players if p != player_id]}; "
                    f"not {strangers or 'nobody'}.",
                )
        if not isinstance(content, str) or not content.strip():
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "A message needs non-empty text content.")
        if len(content) > policy.max_length:
            raise NegotiationError(
                ErrorCode.MESSAGE_TOO_LONG,
                f"Message has {len(content)} characters; the limit here is {policy.max_length}.",
                limit=policy.max_length,
            )
        left = self._messages_left(run, player_id)
        if left is not None and left <= 0:
            raise NegotiationError(
                ErrorCode.LIMIT_REACHED,
                "You have no messages left in this phase"
                + (" this turn." if policy.per_turn is not None else " this round."),
            )
        self._require_turn(player_id, run)
        start = len(self.events)
        visible = None if recipients is None else tuple([player_id, *recipients])
        self._log(EventKind.MESSAGE, player_id, {"content": content, "to": recipients}, visible)
        run.count_message(player_id)
        if policy.uses_turn:
            self._end_turn(run, player_id)
        self._settle()
        return self.events.since(start)

    def expire_due(self) -> Sequence[Event]:
        """Apply the spec's default action if the current deadline has passed on the clock."""
        deadline = self.deadline
        if deadline is None or self._clock() < deadline:
            return []
        return self.time_out()

    def time_out(self) -> Sequence[Event]:
        """Time out whoever is due now: their default action is played, or their turn is lost.

        In free and simultaneous phases the clock is the phase's, so the phase closes.
        """
        run = self._require_run()
        return self._play_defaults(run, list(run.acting_now), DEADLINE, close_phase=not run.alternating)

    def play_default(self, player_id: str, reason: str, *, forfeit: bool = False) -> Sequence[Event]:
        """Play the phase's default action for one player whose move is over: its own clock ran out, or
        (`forfeit`) its agent gave the move up, answering late, garbled or illegally. The reason is
        logged; a forfeit's `timeout` event says `forfeit: true` and its move `forfeited`, not `timed_out`."""
        self._require_player(player_id)
        run = self._require_run()
        self._require_turn(player_id, run)
        return self._play_defaults(run, [player_id], reason, close_phase=False, forfeit=forfeit)

    def _play_defaults(
        self, run: PhaseRun, due: list[str], reason: str, *, close_phase: bool, forfeit: bool = False
    ) -> Sequence[Event]:
        start = len(self.events)
        logged: dict[str, Any] = {"players": due, "reason": reason}
        if forfeit:
            logged["forfeit"] = True
        self._log(EventKind.TIMEOUT, None, logged)
        flag = FORFEITED if forfeit else TIMED_OUT
        default = run.phase.default_action
        action = run.phase.action(default.action) if default is not None else None
        for player in due:
            if self.game.check_end_conditions():
                break
            if action is not None and default is not None and self._default_allowed(player, action, default.payload):
                self._apply_action(run, player, action, validate_payload(action, default.payload), default=flag)
            if player in run.acting_now:
                self._end_turn(run, player)
            if not run.alternating:
                run.finish([player])
        if close_phase:
            run.finish(run.players)
        self._settle()
        return self.events.since(start)

    # --- replay ---------------------------------------------------------------------------

    @classmethod
    def replay(
        cls,
        game_cls: type[BaseGame[Any]],
        players: list[str],
        events: Iterable[Event],
        *,
        config: Mapping[str, Any] | GameConfig | None = None,
        seed: int = 0,
        match_id: str = "match",
        clock: Clock = time.monotonic,
    ) -> Match:
        """Rebuild a match by feeding its input events into a fresh one."""
        match = cls(game_cls, players, config=config, seed=seed, match_id=match_id, clock=clock)
        for event in events:
            match.feed(event)
        return match

    def feed(self, event: Event) -> None:
        """Apply one logged input event again (derived events are skipped); refusals raise as they did."""
        if event.kind not in INPUT_KINDS or played_by_default(event.data):
            return
        if event.kind is EventKind.MESSAGE:
            assert event.actor is not None
            self.send_message(event.actor, event.data["content"], event.data["to"])
        elif event.kind is EventKind.ACTION:
            assert event.actor is not None
            self.submit(event.actor, event.data["action_type"], event.data["payload"])
        elif event.data.get("reason", DEADLINE) == DEADLINE:
            self.time_out()
        else:
            self.play_default(event.data["players"][0], event.data["reason"], forfeit=bool(event.data.get("forfeit")))

    # --- internals ------------------------------------------------------------------------

    def _log(
        self, kind: EventKind, actor: str | None, data: dict[str, Any], visible_to: tuple[str, ...] | None = None
    ) -> None:
        self.events.append(kind, actor, data, visible_to)

    def _require_player(self, player_id: str) -> None:
        if player_id not in self.players:
            raise NegotiationError(ErrorCode.FORBIDDEN, f"{player_id!r} is not a player of this match.")
        if self.finished:
            raise NegotiationError(ErrorCode.MATCH_OVER, "The match is over; call get_result.")

    def _require_run(self) -> PhaseRun:
        if self._run is None or self.finished:
            raise NegotiationError(ErrorCode.MATCH_OVER, "The match is over; call get_result.")
        return self._run

    def _require_turn(self, player_id: str, run: PhaseRun) -> None:
        if player_id not in run.acting_now:
            raise self._not_your_turn(run)

    def _not_your_turn(self, run: PhaseRun) -> NegotiationError:
        acting = run.acting()
        if run.alternating:
            return NegotiationError(
                ErrorCode.NOT_YOUR_TURN,
                f"It is {acting[0] if acting else 'nobody'}'s turn in phase `{run.phase.name}`.",
                acting=acting,
            )
        return NegotiationError(
            ErrorCode.NOT_YOUR_TURN,
            f"You have finished your part of phase `{run.phase.name}`; waiting for {acting}.",
            acting=acting,
        )

    def _not_in_phase(self, run: PhaseRun, action_type: str) -> NegotiationError:
        if action_type in self.spec.all_action_names():
            phases = [p.name for p in self.spec.phases if p.action(action_type)]
            return NegotiationError(
                ErrorCode.PHASE_CLOSED,
                f"`{action_type}` is not allowed in phase `{run.phase.name}`; it belongs to {phases}. "
                f"Allowed now: {[a.name for a in run.phase.actions]}.",
                phase=run.phase.name,
            )
        return NegotiationError(
            ErrorCode.UNKNOWN_ACTION,
            f"`{action_type}` is not an action of {self.spec.id}; "
            f"its actions are {sorted(self.spec.all_action_names())}.",
        )

    def _has_budget(self, player_id: str, action: ActionSpec) -> bool:
        limit = action.max_per_player
        return limit is None or self._uses.get((player_id, action.name), 0) < limit

    def _messages_left(self, run: PhaseRun, player_id: str) -> int | None:
        policy = run.phase.messaging
        left = [
            limit - used
            for limit, used in (
                (policy.per_player, run.messages_sent.get(player_id, 0)),
                (policy.per_turn, run.messages_in_turn.get(player_id, 0)),
            )
            if limit is not None
        ]
        return min(left) if left else None

    def _default_allowed(self, player: str, action: ActionSpec, payload: dict[str, Any]) -> bool:
        if action.name not in {a.name for a in self.allowed_actions(player)}:
            return False
        try:
            data = validate_payload(action, payload)
        except NegotiationError:
            return False
        return self.game.action_error(player, {"type": action.name, **data}) is None

    def _apply_action(
        self, run: PhaseRun, player: str, action: ActionSpec, data: dict[str, Any], *, default: str | None
    ) -> None:
        name = action.name
        log = self.events
        fields = stored_fields(action.payload)
        if run.sealed:
            log.append_action(player, name, data, fields, (player,), default=default)
            record = action_record((name, fields, default), plain_copy(data))
            run.submissions.setdefault(player, []).append(record)
        else:
            log.append_action(player, name, data, fields, default=default)
        if action.max_per_player is not None:  # uses are counted only where they are limited
            key = (player, name)
            self._uses[key] = self._uses.get(key, 0) + 1
        # the payload is the game's own: the log and the sealed submissions keep copies of their own
        self.game.process_action(PlayerAction(player, name, data, logical_time(len(log)), self.round))
        self._drain_notices()
        if action.ends_turn or run.actions_per_turn == 1:
            self._end_turn(run, player)
            return
        taken = run.actions_in_turn[player] = run.actions_in_turn.get(player, 0) + 1
        if taken >= run.actions_per_turn:
            self._end_turn(run, player)

    def _end_turn(self, run: PhaseRun, player: str) -> None:
        run.end_turn(player)
        if run.alternating and run.seconds_per_turn is not None:  # else the deadline stays None
            self._arm_deadline(run)

    def _arm_deadline(self, run: PhaseRun) -> None:
        seconds = run.seconds_per_turn
        run.deadline = None if seconds is None else self._clock() + seconds

    def _drain_notices(self) -> None:
        notices = self.game.drain_notices()
        if notices:
            for notice in notices:
                self._log(EventKind.NOTICE, None, notice.data, notice.visible_to)

    def _settle(self) -> None:
        """After any change: end the game, close the phase, or move on to the next round."""
        while self.result is None:
            run = self._run
            assert run is not None, "an unfinished match is always in a phase"
            if self.game.check_end_conditions():
                self._finish()
                return
            if run.acting_now and not (run.game_decides and self.game.phase_complete(run.name)):
                return  # the phase goes on
            self._close_phase(run)
            if self._game_ends_phases and self.game.check_end_conditions():  # else nothing changed since
                self._finish()
                return
            following = self._next_phase(self._phase_index + 1)
            if following is not None:
                self._start_phase(following)
            elif self.round < self.spec.rounds:
                self._start_round(self.round + 1)
            else:
                self._finish()

    def _close_phase(self, run: PhaseRun) -> None:
        if run.reveals:
            self._log(EventKind.REVEALED, None, {"submissions": run.submissions})
        if self._game_ends_phases:
            self.game.end_phase(run.name)
            self._drain_notices()
        self.events.append_phase_ended()

    def _start_round(self, number: int) -> None:
        self.round = number
        self._run = None
        self._phase_name = None
        contract.begin_round(self.game, self.spec.id, number)
        self.events.append_round_started(number)
        self._drain_notices()
        first = self._next_phase(0)
        assert first is not None, "the spec guarantees a phase in every round"
        self._start_phase(first)

    def _next_phase(self, start: int) -> int | None:
        """Index of the first phase from `start` on that runs in this round."""
        phases = self.spec.phases
        if self._every_round:
            return start if start < len(phases) else None
        for index in range(start, len(phases)):
            if phases[index].runs_in(self.round):
                return index
        return None

    def _start_phase(self, index: int) -> None:
        self._phase_index = index
        phase = self.spec.phases[index]
        orders = self._game_orders
        given = orders.order(self.game, phase, self.round) if orders is not None else None
        if given is None:
            order, opening = self._opening(index, phase)
        else:
            order, opening = given, self._opening_data(phase, given)
        run = self._runs.get(index)
        if run is None:
            run = self._runs[index] = PhaseRun(phase, self.players, order)
        else:
            run.restart(order)
        self._run = run
        self._phase_name = phase.name
        if run.seconds_per_turn is not None:  # else the deadline stays None
            self._arm_deadline(run)
        contract.begin_phase(self.game, self.spec.id, phase.name)
        self.events.append_phase_started(self.round, phase.name, opening)

    def _opening(self, index: int, phase: PhaseSpec) -> tuple[list[str], dict[str, Any]]:
        """The engine's turn order for `phase` this round and the data of its `phase_started` event.

        Both are the same every round with the same first seat, so they are made once per first seat
        and shared by the log's events (which are never changed once written); a shuffled order is
        drawn anew every round.
        """
        alternating = phase.turn_order is TurnOrder.ALTERNATING
        if alternating and phase.start is StartRule.SHUFFLED:
            assert self._rng is not None
            order = self._rng.sample(self.players, len(self.players))
            return order, self._opening_data(phase, order)
        offset = self._order_offset(phase) if alternating else 0
        cached = self._openings.get((index, offset))
        if cached is None:
            order = self.players[offset:] + self.players[:offset]
            cached = self._openings[index, offset] = (order, self._opening_data(phase, order))
        return cached

    @staticmethod
    def _opening_data(phase: PhaseSpec, order: list[str]) -> dict[str, Any]:
        data: dict[str, Any] = {"phase": phase.name, "turn_order": phase.turn_order.value}
        if phase.turn_order is TurnOrder.ALTERNATING:
            data["order"] = order
        return data

    def _order_offset(self, phase: PhaseSpec) -> int:
        """Which seat opens an alternating, unshuffled phase this round."""
        if self._first_mover is None:
            if phase.first_mover is FirstMover.SEEDED:
                assert self._rng is not None
                self._first_mover = self._rng.randrange(len(self.players))
            else:
                self._first_mover = 0
        offset = self._first_mover + (self.round - 1 if phase.start is StartRule.ROTATING else 0)
        return offset % len(self.players)

    def _finish(self) -> None:
        self.game.state = GameState.COMPLETED
        self.result = self.game.get_result()
        self._drain_notices()
        self.events.append_match_ended(self.result)
        # turn book-keeping: a finished match keeps its log and result
        self._run, self._runs, self._openings = None, {}, {}


_SHARED_TIMES = 4096
_times: tuple[float, ...] = ()


def logical_time(seq: int) -> float:
    """`float(seq)`, one object per value for all matches (the first `_SHARED_TIMES`): a finished match
    keeps one per action in its game's `actions_history`, and a float is 24 bytes.

    The table grows by replacing it with a longer one, never in place, so matches in other threads
    only ever read a complete table in which entry i is float(i)."""
    global _times
    times = _times
    if seq >= len(times):
        if seq >= _SHARED_TIMES:
            return float(seq)
        times = _times = times + tuple(map(float, range(len(times), min(2 * seq + 1, _SHARED_TIMES))))
    return times[seq]


class _GameRngMaker:
    """Makes the game's generator when the game first draws (a `partial` of `game_rng`, in a third of
    the memory a finished match would keep)."""

    __slots__ = ("seed",)

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __call__(self) -> random.Random:
        return game_rng(self.seed)


def game_rng(seed: int) -> random.Random:
    """The game's generator of a match seeded `seed`: seeded from the first 64 bits of the match's."""
    return random.Random(random.Random(seed).getrandbits(64))


def orders_rng(seed: int) -> random.Random:
    """The match's generator for drawn turn orders: the one the game's seed was taken from, past that draw."""
    rng = random.Random(seed)
    rng.getrandbits(64)
    return rng


def _draws_orders(spec: GameSpec) -> bool:
    """Whether some phase's turn order is drawn from the match's generator."""
    return any(
        p.turn_order is TurnOrder.ALTERNATING and (p.start is StartRule.SHUFFLED or p.first_mover is FirstMover.SEEDED)
        for p in spec.phases
    )
