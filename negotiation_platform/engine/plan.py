"""What a match reads from its spec and its game's class, worked out once and shared by every match of
that spec: each phase's actions with their payload checks, its turn rules, and which of the game's
hooks do anything. A match then asks dictionaries and flags on each move rather than the spec."""

from __future__ import annotations

from operator import attrgetter

from negotiation_platform.engine.event_log import action_kind
from negotiation_platform.engine.seeding import draws_orders
from negotiation_platform.games.base_game import BaseGame, GameConfig
from negotiation_platform.spec import ActionSpec, GameSpec, MessagingPolicy, PhaseEnd, PhaseSpec, StartRule, TurnOrder
from negotiation_platform.spec.flat_payloads import flat_checker
from negotiation_platform.spec.payload_checks import PayloadCheck, payload_check, stored_fields


class ActionPlan:
    """One action of a phase: its spec, its payload check and how the log stores its payload."""

    __slots__ = ("check", "ends_turn", "fields", "kind", "limit", "name", "quick", "spec")

    def __init__(self, spec: ActionSpec, phase: PhaseSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self.check: PayloadCheck = payload_check(spec)
        self.quick = flat_checker(spec.payload)
        """`check`'s quick first step for a dict payload (None: there is none), asked in line by the match;
        where it is unsure (None), `check` decides."""
        self.fields = stored_fields(spec.payload)
        self.kind = action_kind(self.name, self.fields)
        """How the log records the action when a player takes it."""
        self.limit = spec.max_per_player
        self.ends_turn = spec.ends_turn or phase.limits.actions_per_turn == 1
        """Whether taking it ends the turn at once (itself, or a one-action turn)."""


class PhasePlan:
    """One phase's rules as a match applies them."""

    __slots__ = (
        "actions",
        "actions_per_turn",
        "alternating",
        "game_decides",
        "messaging",
        "name",
        "phase",
        "reveals",
        "sealed",
        "seconds_per_turn",
        "steady",
        "stop_on_quota",
        "turn_clock",
        "turn_order",
        "turns",
    )

    def __init__(self, phase: PhaseSpec) -> None:
        self.phase = phase
        self.name = phase.name
        self.actions = {n: ActionPlan(a, phase) for a in phase.actions for n in (a.name, *a.aliases)}
        """The phase's actions by name and by alias (unique in a phase)."""
        self.turn_order = phase.turn_order.value
        self.alternating = phase.turn_order is TurnOrder.ALTERNATING
        self.sealed = phase.turn_order is TurnOrder.SIMULTANEOUS
        self.reveals = self.sealed and phase.reveal_actions
        """Whether closing the phase publishes its sealed submissions."""
        limits = phase.limits
        assert limits.turns is not None or not self.alternating, "alternating phases always have a turn limit"
        self.turns = limits.turns
        self.actions_per_turn = limits.actions_per_turn
        self.seconds_per_turn = limits.seconds_per_turn
        self.turn_clock = self.alternating and self.seconds_per_turn is not None
        """Whether each turn has a clock of its own, armed as the turn passes."""
        self.steady = not self.alternating or phase.start is StartRule.FIXED
        """Whether the engine's turn order is the same every round (the first seat never moves)."""
        self.messaging: MessagingPolicy = phase.messaging
        self.stop_on_quota = PhaseEnd.MESSAGES_USED in phase.ends_when
        self.game_decides = PhaseEnd.GAME_DECIDES in phase.ends_when
        """Whether the game may close the phase before its turns run out (`phase_complete`)."""


class SpecPlan:
    """A spec's phases as plans, and what holds for all of them."""

    __slots__ = ("clocked", "draws_orders", "every_round", "game_orders", "phases", "spec")

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec
        self.phases = tuple(PhasePlan(p) for p in spec.phases)
        self.every_round = all(p.runs_in(1) and p.last_round is None for p in spec.phases)
        """Whether every phase runs in every round (else which ones do is asked per round)."""
        self.draws_orders = draws_orders(spec)
        self.game_orders = any(
            p.turn_order is TurnOrder.ALTERNATING and p.start is StartRule.GAME_DECIDES for p in spec.phases
        )
        """Whether some phase leaves its turn order to the game (`contract.game_orders` asks or refuses)."""
        self.clocked = any(p.seconds_per_turn is not None for p in self.phases)
        """Whether some phase has a clock (else a match of the spec never has a deadline)."""


_MAX_PLANS = 1024
_plans: dict[int, SpecPlan] = {}
"""Plans by the id of their spec (a spec is shared by all games of one class and config); the plan
holds its spec, so an id is never reused while its plan is kept."""


def spec_plan(spec: GameSpec) -> SpecPlan:
    plan = _plans.get(id(spec))
    if plan is None or plan.spec is not spec:
        plan = SpecPlan(spec)
        if len(_plans) >= _MAX_PLANS:
            _plans.clear()
        _plans[id(spec)] = plan
    return plan


_HOOK_METHODS = attrgetter(
    "action_error",
    "is_valid_action",
    "has_own_rules",
    "available_actions",
    "end_phase",
    "phase_order",
    "drain_notices",
    "begin_round",
    "begin_phase",
)
"""What `GameHooks` is read from: a class's methods as they are now (a test may patch them)."""
_hooks: dict[type[BaseGame[GameConfig]], tuple[tuple[object, ...], tuple[object, ...], GameHooks]] = {}


def game_hooks(game_cls: type[BaseGame[GameConfig]]) -> GameHooks:
    """`GameHooks(game_cls)`, kept while the class's methods and BaseGame's are the ones it was read
    from: checked for each match (a class patched meanwhile is read again as it is now)."""
    methods, base = _HOOK_METHODS(game_cls), _HOOK_METHODS(BaseGame)
    known = _hooks.get(game_cls)
    if known is not None and known[0] == methods and known[1] == base:
        return known[2]
    if len(_hooks) >= _MAX_PLANS:
        _hooks.clear()
    hooks = GameHooks(game_cls)
    _hooks[game_cls] = (methods, base, hooks)
    return hooks


class GameHooks:
    """Which of BaseGame's hooks a game class replaces: a hook it keeps does nothing the engine does not
    already know (allows everything, announces nothing, sets the round), so the engine need not call it.
    Made by `game_hooks`, which checks for each match that the class is still as it was read."""

    __slots__ = ("ends_phases", "filters", "orders", "own_notices", "own_phase", "own_round", "refuses")

    def __init__(self, game_cls: type[BaseGame[GameConfig]]) -> None:
        def replaced(method: str) -> bool:
            return getattr(game_cls, method) is not getattr(BaseGame, method)

        self.refuses = game_cls.has_own_rules()
        """Whether the game has rules of its own to check an action against."""
        self.filters = replaced("available_actions")
        self.ends_phases = replaced("end_phase")
        self.orders = replaced("phase_order")
        self.own_notices = replaced("drain_notices")
        self.own_round = replaced("begin_round")
        self.own_phase = replaced("begin_phase")
