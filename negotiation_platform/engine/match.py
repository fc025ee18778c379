"""`Match`: one running game. Enforces the spec before the game sees anything.

Synchronous and free of I/O; deterministic from (game, config, seed, input events). The only
clock is an injected one, used for deadlines alone and never written to the log, so replaying
a match's input events into a fresh match rebuilds the same log and state.

The spec's rules are read once per spec (`plan`), the turn book-keeping lives in `phase_run`, the
wording of refusals in `refusals` and the messaging rules in `messaging`; this module is the turn
machine that ties them together.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from negotiation_platform.engine import contract, messaging, refusals
from negotiation_platform.engine.event_log import (
    FORFEITED,
    TIMED_OUT,
    EventLog,
    action_kind,
    action_record,
    played_by_default,
)
from negotiation_platform.engine.events import INPUT_KINDS, Event, EventKind
from negotiation_platform.engine.phase_run import PhaseRun
from negotiation_platform.engine.plan import ActionPlan, PhasePlan, game_hooks, spec_plan
from negotiation_platform.engine.seeding import SHARED_TIMES, TIMES, GameRngMaker, logical_time, orders_rng
from negotiation_platform.errors import NegotiationError
from negotiation_platform.games.base_game import BaseGame, GameConfig, GameResult, GameState, Notice, PlayerAction
from negotiation_platform.spec import ActionSpec, FirstMover, PhaseSpec, StartRule
from negotiation_platform.spec.plain_data import plain_copy

__all__ = ["DEADLINE", "Clock", "Match", "logical_time"]

Clock = Callable[[], float]
DEADLINE = "deadline"
"""The reason logged when a clock, not a player, ends a turn or phase."""


class Match:
    """A game being played by a fixed list of players."""

    def __init__(
        self,
        game_cls: type[BaseGame[GameConfig]],
        players: list[str],
        *,
        config: Mapping[str, object] | GameConfig | None = None,
        seed: int = 0,
        match_id: str = "match",
        clock: Clock = time.monotonic,
    ) -> None:
        self.match_id = match_id
        self.seed = seed
        self.players = list(players)
        self._clock = clock
        # The game's id, not the match's: it is what the result (`GameResult.game_id`) names.
        game = self.game = game_cls(game_id=game_cls.spec.id, config=config, rng=GameRngMaker(seed))
        spec = self.spec = game.spec
        self._plan = spec_plan(spec)
        self._hooks = game_hooks(type(game))
        self._rng = orders_rng(seed) if self._plan.draws_orders else None
        """Made only for specs whose turn orders are drawn: seeding one is dear next to a move, and every
        match would keep its state (benchmarks/engine.py measures what a finished match holds)."""
        self._game_orders = (
            contract.game_orders(spec, self.players, game) if self._hooks.orders or self._plan.game_orders else None
        )
        """Asks and checks the game's own turn orders (None: the spec's start rule applies without asking)."""
        hooks = self._hooks
        self._rounds_alike = (
            self._plan.every_round
            and len(self._plan.phases) == 1
            and self._plan.phases[0].steady
            and self._game_orders is None
            and not (hooks.own_round or hooks.own_phase or hooks.ends_phases)
        )
        """Whether every round turns to the next as the first opened: one phase, the same turn order, and no
        hook of the game's to call on the way (see `_reopen_round`)."""
        roles = spec.roles
        if not roles.min_players <= len(players) <= roles.max_players or len(set(players)) != len(players):
            raise ValueError(
                f"{spec.id} needs {roles.min_players}..{roles.max_players} distinct players, got {players}"
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
        self._openings: dict[int | tuple[int, int], list[str]] = {}
        """Turn orders by (phase index, first seat), or by phase index for a phase whose first seat never
        changes: see `_opening`."""
        self._phase_name: str | None = None
        contract.initialize(game, spec, self.players)
        self.events.append_match_started(spec.id)
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
        run = self._run
        return list(run.acting_now) if run is not None and self.result is None else []

    def acting_now(self) -> tuple[str, ...]:
        """`acting()` as a tuple: a snapshot that later moves leave as it is (they replace it)."""
        run = self._run
        return run.acting_now if run is not None and self.result is None else ()

    @property
    def clocked(self) -> bool:
        """Whether some phase of the game has a clock: without one, `deadline` is always None."""
        return self._plan.clocked

    @property
    def deadline(self) -> float | None:
        """When the current turn (or phase) times out, on the injected clock."""
        run = self._run
        return run.deadline if run is not None and self.result is None else None

    def events_for(self, player_id: str | None, since: int = 0) -> list[Event]:
        """Events after sequence number `since` that `player_id` may see (None: all of them)."""
        return self.events.visible_for(player_id, since)

    def allowed_actions(self, player_id: str) -> list[ActionSpec]:
        """The actions `player_id` may take right now, after the spec's budgets and the game's own filter."""
        if player_id not in self.acting():
            return []
        actions = self._require_run().plan.phase.actions
        candidates = [a.name for a in actions if self._has_budget(player_id, a)]
        available = set(self.game.available_actions(player_id, candidates))
        return [a for a in actions if a.name in available and a.name in candidates]

    def message_allowance(self, player_id: str) -> messaging.MessageAllowance:
        """Which channels `player_id` may use now, and how many messages it has left."""
        run = self._run
        return messaging.allowance(None if run is None or player_id not in self.acting() else run, player_id)

    def remaining_uses(self, player_id: str, action: ActionSpec) -> int | None:
        if action.max_per_player is None:
            return None
        return action.max_per_player - self._uses.get((player_id, action.name), 0)

    # --- acting ---------------------------------------------------------------------------

    def submit(self, player_id: str, action_type: str, payload: Mapping[str, object] | None = None) -> Sequence[Event]:
        """Take an action; returns the events it caused. Refusals raise and change nothing.

        Checked in this order: the seat, the phase, the turn, the budget, the payload, then the game's
        own rules; only the chosen action is checked, the full menu is listed only in a refusal.
        """
        run = self._run
        if run is None or self.result is not None or player_id not in self.players:
            self._require_player(player_id)
            run = self._require_run()
        entry = run.actions.get(action_type)
        if entry is None:
            raise refusals.not_in_phase(self.spec, run, action_type)
        if player_id not in run.acting_now:
            raise refusals.not_your_turn(run)
        name = entry.name
        if entry.limit is not None and self._uses.get((player_id, name), 0) >= entry.limit:
            raise refusals.used_up(entry.spec)
        quick = entry.quick
        data = quick(payload) if quick is not None and type(payload) is dict else None
        if data is None:
            data = entry.check(payload)
        game = self.game
        hooks = self._hooks
        reason = game.action_error(player_id, {"type": name, **data}) if hooks.refuses else None
        if hooks.filters and name not in game.available_actions(player_id, [name]):
            if reason:
                raise refusals.refused_by_game(entry.spec, reason)
            raise refusals.not_available(entry.spec, [a.name for a in self.allowed_actions(player_id)])
        if reason is not None:
            raise refusals.refused_by_game(entry.spec, reason)
        start = self._apply_action(run, player_id, entry, data, None) - 1
        # the first pass of `_settle`, the one most moves end in
        if game.check_end_conditions():
            self._finish()
        elif not run.acting_now or (run.plan.game_decides and game.phase_complete(run.plan.name)):
            self._move_on(run)
            self._settle()
        return self.events.since(start)

    def send_message(self, player_id: str, content: str, to: Iterable[str] | None = None) -> Sequence[Event]:
        """Send a public message (`to` None) or a private one to the listed players."""
        self._require_player(player_id)
        run = self._require_run()
        recipients = messaging.check_message(run, self.players, player_id, content, to)
        if player_id not in run.acting_now:
            raise refusals.not_your_turn(run)
        start = len(self.events)
        visible = None if recipients is None else tuple([player_id, *recipients])
        self.events.append(EventKind.MESSAGE, player_id, {"content": content, "to": recipients}, visible)
        run.count_message(player_id)
        if run.plan.messaging.uses_turn:
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
        if player_id not in run.acting_now:
            raise refusals.not_your_turn(run)
        return self._play_defaults(run, [player_id], reason, close_phase=False, forfeit=forfeit)

    def _play_defaults(
        self, run: PhaseRun, due: list[str], reason: str, *, close_phase: bool, forfeit: bool = False
    ) -> Sequence[Event]:
        start = len(self.events)
        logged: dict[str, object] = {"players": due, "reason": reason}
        if forfeit:
            logged["forfeit"] = True
        self.events.append(EventKind.TIMEOUT, None, logged)
        flag = FORFEITED if forfeit else TIMED_OUT
        default = run.plan.phase.default_action
        entry = run.actions[default.action] if default is not None else None
        for player in due:
            if self.game.check_end_conditions():
                break
            if entry is not None and default is not None and self._default_allowed(player, entry, default.payload):
                self._apply_action(run, player, entry, entry.check(default.payload), flag)
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
        game_cls: type[BaseGame[GameConfig]],
        players: list[str],
        events: Iterable[Event],
        *,
        config: Mapping[str, object] | GameConfig | None = None,
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

    def _require_player(self, player_id: str) -> None:
        if player_id not in self.players:
            raise refusals.not_a_player(player_id)
        if self.finished:
            raise refusals.match_over()

    def _require_run(self) -> PhaseRun:
        if self._run is None or self.finished:
            raise refusals.match_over()
        return self._run

    def _has_budget(self, player_id: str, action: ActionSpec) -> bool:
        limit = action.max_per_player
        return limit is None or self._uses.get((player_id, action.name), 0) < limit

    def _default_allowed(self, player: str, entry: ActionPlan, payload: dict[str, Any]) -> bool:
        if entry.name not in {a.name for a in self.allowed_actions(player)}:
            return False
        try:
            data = entry.check(payload)
        except NegotiationError:
            return False
        return self.game.action_error(player, {"type": entry.name, **data}) is None

    def _apply_action(
        self, run: PhaseRun, player: str, entry: ActionPlan, data: dict[str, Any], default: str | None
    ) -> int:
        """Log and play an accepted action and count it against the turn; returns its event's number."""
        name = entry.name
        plan = run.plan
        kind = entry.kind if default is None else action_kind(name, entry.fields, default)
        if plan.sealed:
            seq = self.events.append_kind(player, kind, data, (player,))
            run.submissions.setdefault(player, []).append(action_record(kind, plain_copy(data)))
        else:
            seq = self.events.append_kind(player, kind, data)
        if entry.limit is not None:  # uses are counted only where they are limited
            key = (player, name)
            self._uses[key] = self._uses.get(key, 0) + 1
        game = self.game
        # the payload is the game's own: the log and the sealed submissions keep copies of their own
        stamp = TIMES[seq] if seq < SHARED_TIMES else float(seq)  # `logical_time(seq)`
        game.process_action(PlayerAction(player, name, data, stamp, self.round))
        if self._hooks.own_notices or game.pending_notices:  # BaseGame's drain_notices gives what notify() kept
            self._drain_notices()
        if not entry.ends_turn:
            taken = run.actions_in_turn[player] = run.actions_in_turn.get(player, 0) + 1
            if taken < plan.actions_per_turn:
                return seq
        run.end_turn(player)
        if plan.turn_clock:
            self._arm_deadline(run)
        return seq

    def _end_turn(self, run: PhaseRun, player: str) -> None:
        run.end_turn(player)
        if run.plan.turn_clock:  # else the deadline stays None
            self._arm_deadline(run)

    def _arm_deadline(self, run: PhaseRun) -> None:
        seconds = run.plan.seconds_per_turn
        run.deadline = None if seconds is None else self._clock() + seconds

    def _drain_notices(self) -> None:
        """Log what the game announced since it was last asked."""
        notices = self.game.drain_notices()
        if notices:
            self._log_notices(notices)

    def _log_notices(self, notices: Iterable[Notice]) -> None:
        for notice in notices:
            self.events.append(EventKind.NOTICE, None, notice.data, notice.visible_to)

    def _settle(self) -> None:
        """After any change: end the game, close the phase, or move on to the next round."""
        game = self.game
        while self.result is None:
            run = self._run
            assert run is not None, "an unfinished match is always in a phase"
            if game.check_end_conditions():
                self._finish()
                return
            if run.acting_now and not (run.plan.game_decides and game.phase_complete(run.plan.name)):
                return  # the phase goes on
            self._move_on(run)

    def _move_on(self, run: PhaseRun) -> None:
        """Close `run`'s phase, then open the next phase, or the next round, or end the match."""
        plan = run.plan
        if plan.reveals:
            self.events.append(EventKind.REVEALED, None, {"submissions": run.submissions})
        ends_phases = self._hooks.ends_phases
        if ends_phases:
            self.game.end_phase(plan.name)
            self._drain_notices()
        elif self._rounds_alike and self.round < self.spec.rounds:
            self._reopen_round(run)
            return
        self.events.append_phase_ended()
        if ends_phases and self.game.check_end_conditions():  # else nothing changed since
            self._finish()
            return
        index = self._phase_index + 1
        if self._plan.every_round:
            following = index if index < len(self._plan.phases) else None
        else:
            following = self._next_phase(index)
        if following is not None:
            self._start_phase(following)
        elif self.round < self.spec.rounds:
            self._start_round(self.round + 1)
        else:
            self._finish()

    def _reopen_round(self, run: PhaseRun) -> None:
        """The rest of `_move_on` for a match whose rounds all open alike, its phase closed and a round to
        come: its one phase's run restarts with the order it had, and the log's phase end and opening
        events are written at once (what `_move_on`, `_start_round` and `_start_phase` do in this case, in
        their order)."""
        number = self.round = self.round + 1
        game = self.game
        game.current_round = number
        run.restart(run.order)
        plan = run.plan
        if plan.seconds_per_turn is not None:
            self._arm_deadline(run)
        game.current_phase = plan.name
        self.events.append_round_turned(number, plan.name)

    def _start_round(self, number: int) -> None:
        self.round = number
        self._run = None
        self._phase_name = None
        game = self.game
        if self._hooks.own_round:
            contract.begin_round(game, self.spec.id, number)
            self.events.append_round_started(number)
            self._drain_notices()
        else:  # all BaseGame's begin_round does, and it announces nothing
            game.current_round = number
            self.events.append_round_started(number)
        first = 0 if self._plan.every_round else self._next_phase(0)
        assert first is not None, "the spec guarantees a phase in every round"
        self._start_phase(first)

    def _next_phase(self, start: int) -> int | None:
        """Index of the first phase from `start` on that runs in this round."""
        phases = self.spec.phases
        if self._plan.every_round:
            return start if start < len(phases) else None
        for index in range(start, len(phases)):
            if phases[index].runs_in(self.round):
                return index
        return None

    def _start_phase(self, index: int) -> None:
        self._phase_index = index
        plan = self._plan.phases[index]
        orders = self._game_orders
        given = orders.order(self.game, plan.phase, self.round) if orders is not None else None
        if given is not None:
            order = given
        elif plan.steady and index in self._openings:  # the one order this phase ever has
            order = self._openings[index]
        else:
            order = self._opening(index, plan)
        run = self._runs.get(index)
        if run is None:
            run = self._runs[index] = PhaseRun(plan, self.players, order)
        else:
            run.restart(order)
        self._run = run
        self._phase_name = name = plan.name
        if plan.seconds_per_turn is not None:  # else the deadline stays None
            self._arm_deadline(run)
        game = self.game
        if self._hooks.own_phase:
            contract.begin_phase(game, self.spec.id, name)
        else:  # all BaseGame's begin_phase does
            game.current_phase = name
        self.events.append_opening(self.round, name, plan.turn_order, order if plan.alternating else None)

    def _opening(self, index: int, plan: PhasePlan) -> list[str]:
        """The engine's turn order for the phase this round.

        It is the same every round with the same first seat, so it is made once per first seat (kept
        under the phase's index alone for a phase whose first seat never changes); a shuffled order is
        drawn anew every round.
        """
        phase = plan.phase
        alternating = plan.alternating
        if alternating and phase.start is StartRule.SHUFFLED:
            assert self._rng is not None
            return self._rng.sample(self.players, len(self.players))
        offset = self._order_offset(phase) if alternating else 0
        key: int | tuple[int, int] = index if plan.steady else (index, offset)
        order = self._openings.get(key)
        if order is None:
            order = self._openings[key] = self.players[offset:] + self.players[:offset]
        return order

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
