"""The interface every game implements, with the names of the documented `negotiation_platform.games` API.

A game holds the rules particular to it and its own private state; its `spec` (data) says what the
engine enforces before the game sees an action, and its pydantic `Config` holds every number a
researcher may change. A game never deals with transports, clocks or other matches.
"""

from __future__ import annotations

import inspect
import random
import re
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypedDict, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from negotiation_platform.errors import NegotiationError
from negotiation_platform.games.bargaining import BargainingPosition
from negotiation_platform.games.setups import shared_setup
from negotiation_platform.spec import (
    ActionSpec,
    GameSpec,
    OpenPayload,
    OutcomeKind,
    OutcomeSpec,
    PhaseLimits,
    PhaseSpec,
    RolesSpec,
    payload_schema,
)
from negotiation_platform.spec.narration import Fact, Happening, default_text
from negotiation_platform.spec.payload_checks import validate_payload
from negotiation_platform.spec.plain_data import plain_copy
from negotiation_platform.wire.strict_json import validate_strict


class GameState(Enum):
    """Lifecycle of a game: WAITING → ACTIVE → COMPLETED (or FAILED)."""

    WAITING = "waiting"
    ACTIVE = "active"
    COMPLETED = "completed"
    FAILED = "failed"


@dataclass(slots=True)
class PlayerAction:
    """One action a player took; `timestamp` is the engine's logical clock (the event sequence)."""

    player_id: str
    action_type: str
    action_data: dict[str, Any]
    timestamp: float
    round_number: int


@dataclass
class GameResult:
    """The authoritative record of a finished game; `final_scores` are its payoffs (also `payoffs`)."""

    game_id: str
    players: list[str]
    winner: str | None
    final_scores: dict[str, float]
    total_rounds: int
    game_data: dict[str, Any]
    success: bool

    @property
    def payoffs(self) -> dict[str, float]:
        """Each player's payoff: `final_scores`, the documented field, under the word every other part
        of the platform uses (`get_result`, the store, the analysis)."""
        return self.final_scores

    def to_dict(self) -> dict[str, JsonValue]:
        """A deep copy as plain data, exactly as `dataclasses.asdict` makes it, but without asdict's
        deepcopy of every leaf (which made this the dearest step of finishing a match)."""
        copied: dict[str, JsonValue] = plain_copy(self)
        return copied


class GameInfo(TypedDict):
    """`BaseGame.get_game_info()`: the game's id, lifecycle state, players, round and config."""

    game_id: str
    state: str
    """A `GameState` value: waiting, active, completed or failed."""
    players: list[str]
    current_round: int
    max_rounds: int
    config: dict[str, JsonValue]


MAX_ROUNDS = 1_000
"""Bounds every game's config numbers stay within, so the work of one call (a view, a prompt, a
menu of offers) stays bounded whatever a client asks for."""
MAX_MESSAGES = 100
MAX_MESSAGE_CHARS = 10_000
MAX_SECONDS = 86_400.0
MAX_VALUE = 1_000_000_000
"""Largest magnitude of a game's values, prices, BATNAs, weights and amounts, in its config and its
payloads: sums and products of a few such numbers stay finite floats, so no outcome can overflow
(a number without bounds fails `check_game`)."""
MAX_ECHOED_CHARS = 40
"""How much of a refused move's own `type` a refusal repeats back to the client."""
FREE_FORM_ACTION = "act"
"""The one action of a game that declares no spec of its own."""


MAX_PLAYERS = 100
"""Most seats a game that declares no spec of its own may be configured with."""

BARGAINING_ACTIONS = frozenset({"propose", "offer", "counter_offer", "accept"})
"""Action names that make a game a bargaining game: such a game answers `bargaining_position`, which
the scripted negotiators read (and `negotiation_platform.testing.check_game` requires)."""


class GameConfig(BaseModel):
    """Base of every game's `Config`: unknown keys are refused so a typo never goes unnoticed, and
    numbers must be finite (a clock of Infinity would also not survive being sent as JSON)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class BasicConfig(GameConfig):
    """The config of a game that declares no `Config`: the parameters every game understands.

    A game with parameters of its own declares a `Config` subclass with them (and their defaults).
    """

    rounds: int = Field(default=10, ge=1, le=MAX_ROUNDS, description="Rounds before the game ends without a result.")
    players: int = Field(default=2, ge=1, le=MAX_PLAYERS, description="Seats at the table.")
    seconds_per_turn: float | None = Field(default=None, gt=0, le=MAX_SECONDS, description="Clock of each turn.")


@dataclass(frozen=True)
class Notice:
    """Something the game announces to some players (None: everyone), logged by the engine."""

    data: Mapping[str, object]
    visible_to: tuple[str, ...] | None = None


ConfigInput = Mapping[str, object] | GameConfig | None
"""A game's config as callers give it: a mapping (checked against `Config`), a parsed config, or None (defaults)."""

RngInput = random.Random | Callable[[], random.Random] | None
"""A game's random generator: made, made on first use by a factory, or None (seeded with 0)."""

ConfigT = TypeVar("ConfigT", bound=GameConfig, covariant=True)
"""Covariant: a game's config is set once, when it is made, so every `BaseGame[C]` is a `BaseGame[GameConfig]`."""


def _unseeded() -> random.Random:
    """The generator of a game created without one: seeded with 0, so it is still deterministic."""
    return random.Random(0)


class _SpecDescriptor:
    """`Game.spec` is the spec under default config; `game.spec` the one under the game's config."""

    def __get__(self, instance: BaseGame[GameConfig] | None, owner: type[BaseGame[GameConfig]]) -> GameSpec:
        if instance is not None:
            return instance.game_setup.spec
        return shared_setup(owner, None).spec


class BaseGame(ABC, Generic[ConfigT]):
    """Abstract base of all negotiation games (the template of the documented API).

    Subclasses declare `Config` (a `GameConfig` with defaults) and `build_spec(config)`, and
    implement the abstract methods; a game that declares neither gets `BasicConfig` and a generic
    spec (see `build_spec`), so the documented API's six-method games play as they are.
    The engine calls `initialize_game`, then for each accepted action `process_action` and
    `check_end_conditions` and, at the end, `get_result`.
    """

    Config: ClassVar[type[GameConfig]] = BasicConfig
    spec: ClassVar[GameSpec] = _SpecDescriptor()  # type: ignore[assignment]

    def __init_subclass__(cls, **kwargs: object) -> None:
        """A game written before the hook `batna_values()` was renamed `player_batnas()` keeps working
        for one release (the engine calls its old method), with a DeprecationWarning where it is defined."""
        super().__init_subclass__(**kwargs)
        legacy = cls.__dict__.get("batna_values")
        if inspect.isfunction(legacy) and "player_batnas" not in cls.__dict__:
            warnings.warn(
                f"{cls.__qualname__} defines batna_values(), the hook now named player_batnas(): rename it "
                "(the old name is read until the next release)",
                DeprecationWarning,
                stacklevel=3,  # the class statement (type.__new__ and ABCMeta.__new__ in between)
            )
            cls.player_batnas = legacy  # type: ignore[method-assign]

    def __init__(
        self,
        game_id: str = "game",
        config: ConfigInput = None,
        *,
        rng: RngInput = None,
    ) -> None:
        self.game_id = game_id
        self.game_setup = shared_setup(type(self), config)
        """The game's settings, spec and rules text under its config (shared by every game of its class and config)."""
        self.settings: ConfigT = cast(ConfigT, self.game_setup.settings)
        self._rng: random.Random | None = None
        self._make_rng: Callable[[], random.Random] = _unseeded
        if isinstance(rng, random.Random):
            self._rng = rng
        elif rng is not None:
            self._make_rng = rng
        self.state = GameState.WAITING
        self.players: list[str] = []
        self.current_round = 0
        self.max_rounds = self.game_setup.spec.rounds
        self.actions_history: list[PlayerAction] = []
        self.game_data: dict[str, Any] = {}
        self.current_phase: str | None = None
        self.pending_notices: list[Notice] = []
        """What `notify()` kept, until the engine drains it (`drain_notices`)."""
        self._asking_is_valid_action = False

    @property
    def rng(self) -> random.Random:
        """The game's random generator. Made on first use when it was given as a factory: seeding one
        costs more than a whole move, and many games never draw anything."""
        rng = self._rng
        if rng is None:
            rng = self._rng = self._make_rng()
        return rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value

    @classmethod
    def parse_config(cls, config: ConfigInput) -> GameConfig:
        """Validate a config mapping against `Config`, as strict JSON (raises pydantic's ValidationError):
        `{"rounds": true}` or `{"rounds": "5"}` is refused, never read as a number. `max_rounds`, the
        documented name of the round limit, is read as `rounds` in a config that has that field."""
        if isinstance(config, cls.Config):
            return config
        data = dict(config or {})
        if "max_rounds" in data and "rounds" not in data and "rounds" in cls.Config.model_fields:
            data["rounds"] = data.pop("max_rounds")  # the documented name of the round limit
        return validate_strict(cls.Config, data)

    @classmethod
    def spec_for(cls, config: ConfigInput = None) -> GameSpec:
        """The spec under `config`, without creating a game (shared: built once per config)."""
        return shared_setup(cls, config).spec

    @property
    def config(self) -> dict[str, JsonValue]:
        """The game's config as a plain dict (a fresh copy: the parsed config is shared and frozen)."""
        return self.settings.model_dump()

    if not TYPE_CHECKING:  # invisible to type checkers, so `game.proces_action(...)` stays an error there

        def __getattr__(self, name: str) -> object:
            """Config values read as attributes (`game.rounds`, `game.buyer_batna`), as the documented API
            shows; typed code reads them from `game.settings`."""
            settings = self.__dict__.get("settings")
            if settings is not None and name in type(settings).model_fields:
                return getattr(settings, name)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # --- declared by each game -------------------------------------------------------------

    @classmethod
    def build_spec(cls, config: Any) -> GameSpec:
        """The game's spec under `config`: numbers in the spec come from the config.

        A game that declares no spec (as the documented API's games, which define only the abstract
        methods) gets a generic one: `players` interchangeable seats, named by the player list the
        game is initialised with; `rounds` rounds in which each player acts once, in seat order; and
        one free-form action, `act`, whose payload is any JSON object: the move as the game's prompt
        asks for it, e.g. {"type": "offer", "price": 42000}. The game's own `is_valid_action` judges
        it (see `action_error`) and `process_action` receives it as `action.action_data`.
        """
        if not isinstance(config, BasicConfig):
            raise TypeError(
                f"{cls.__name__} declares no build_spec, so its Config must derive from BasicConfig "
                "(rounds, players, seconds_per_turn)"
            )
        return GameSpec(
            id=_snake_case(cls.__name__),
            title=" ".join(re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", cls.__name__)) or cls.__name__,
            summary=inspect.cleandoc(cls.__doc__ or "").split("\n\n")[0]
            or "A negotiation game whose rules each turn's prompt states.",
            roles=RolesSpec(min_players=config.players, max_players=config.players),
            rounds=config.rounds,
            phases=(
                PhaseSpec(
                    name="play",
                    description="each player acts once per round, in seat order",
                    limits=PhaseLimits(turns=1, seconds_per_turn=config.seconds_per_turn),
                    actions=(
                        ActionSpec(
                            name=FREE_FORM_ACTION,
                            description="make your move: a JSON object as the prompt asks for it, "
                            'e.g. {"type": "offer", ...}; the game checks it against its rules',
                            payload=OpenPayload,
                        ),
                    ),
                ),
            ),
            outcome=OutcomeSpec(
                kind=OutcomeKind.ENGINE_RULE,
                description="The game ends when its rules say so, or after the last round; "
                "each player then scores what the rules award.",
            ),
        )

    @abstractmethod
    def initialize_game(self, players: list[str]) -> bool:
        """Seat the players (drawing roles from `self.rng`) and become ACTIVE."""

    @abstractmethod
    def process_action(self, action: PlayerAction) -> dict[str, object]:
        """Apply an action the engine and `is_valid_action` accepted; return the updated state."""

    @abstractmethod
    def check_end_conditions(self) -> bool:
        """Whether the game is over (agreement, walk-away, …); the engine also ends it after the last round."""

    @abstractmethod
    def calculate_scores(self) -> dict[str, float]:
        """Each player's final utility."""

    @abstractmethod
    def get_game_prompt(self, player_id: str) -> str:
        """The prompt text for `player_id` at this moment."""

    # --- optional refinements with safe defaults -------------------------------------------

    @classmethod
    def has_own_rules(cls) -> bool:
        """Whether the game may refuse something its spec allows (it overrides `action_error` or the
        documented `is_valid_action`); the engine skips asking a game that has none."""
        return cls.action_error is not BaseGame.action_error or cls.is_valid_action is not BaseGame.is_valid_action

    def action_error(self, player_id: str, action: dict[str, Any]) -> str | None:
        """Why the game's own rules refuse `action` ({"type": …, **payload}) now, or None if allowed.

        By default, a game that states its rules the documented way, by overriding `is_valid_action`,
        is asked that (with `game_data` as the state); any other game allows what its spec allows.
        """
        if type(self).is_valid_action is BaseGame.is_valid_action or self._asking_is_valid_action:
            return None  # the second test: an override that calls super() must not ask itself again
        self._asking_is_valid_action = True
        try:
            allowed = self.is_valid_action(player_id, action, self.game_data)
        finally:
            self._asking_is_valid_action = False
        if allowed:
            return None
        kind = str(action.get("type"))[:MAX_ECHOED_CHARS]  # the client's own text, echoed only in part
        return f"The rules of {self.spec.title} do not allow this {kind!r} move now; see your prompt."

    def explain_invalid_action(self, player: str, action: dict[str, Any]) -> str | None:
        """Why `action` ({"type": …, **payload}, or wrapped in {"decision": …}) is refused: its payload is
        checked against the spec as the engine would, then the game's own rules. None if allowed."""
        if isinstance(action.get("decision"), dict):
            action = action["decision"]
        phase = self.spec.phase(self.current_phase) if self.current_phase else self.spec.phases[0]
        assert phase is not None
        spec = phase.action(str(action.get("type")))
        if spec is None:
            return f"Unknown action type {action.get('type')!r}; allowed: {[a.name for a in phase.actions]}."
        try:
            data = validate_payload(spec, {k: v for k, v in action.items() if k != "type"})
        except NegotiationError as refusal:
            return refusal.message
        return self.action_error(player, {"type": spec.name, **data})

    def is_valid_action(self, player: str, action: dict[str, Any], game_state: dict[str, Any] | None = None) -> bool:
        """Whether the spec and the game's rules allow `action` for `player` now."""
        return self.explain_invalid_action(player, action) is None

    def available_actions(self, player_id: str, candidates: list[str]) -> list[str]:
        """Narrow the spec's actions for this turn to those that make sense now (e.g. no accept without an offer)."""
        return candidates

    def action_payload_schema(self, player_id: str, action: ActionSpec) -> dict[str, Any]:
        """The JSON Schema of `action`'s payload as `player_id` should see it now.

        The spec's schema is static; a game whose legal payloads depend on the state (only the
        resources on your cell, claims bounded by this round's stock) narrows it here, so agents
        that sample from the schema stay legal. The engine still validates against the spec and
        the game's `action_error`; a narrowed schema is guidance, never the only check.
        """
        return payload_schema(action.payload)

    def get_player_view(self, player_id: str) -> dict[str, JsonValue]:
        """What `player_id` may see of the game's state; override to show private information to its owner only."""
        return {"round": self.current_round}

    def public_view(self) -> dict[str, JsonValue]:
        """What a spectator may see of the state while the match runs: only what the rules make known to
        every player (never a seat's values, hand or sealed move). Spectators get nothing else until
        the end, so override it to let game boards show a pool, a sale or a map."""
        return {"round": self.current_round}

    def bargaining_position(self, player_id: str) -> BargainingPosition | None:
        """For scripted negotiators: proposal action and field, best and reservation values, standing offer."""
        return None

    @classmethod
    def max_collective_payoff(cls, config: Any) -> float | None:
        """The most the seats can earn together in a match under `config` (the pot of a split game), for
        split efficiency in `eval-social`; None where the config alone does not fix it (values drawn per match)."""
        return None

    def seat_roles(self) -> dict[str, str] | None:
        """Each player's role, for a spec with named roles (None: no named roles). By default seat i plays
        role i; a game that draws the roles (`RolesSpec.assignment` `seeded`) returns what it drew. The
        engine checks the answer after `initialize_game`: every role once, and seat order for `by_seat`."""
        names = self.spec.roles.names
        return dict(zip(self.players, names, strict=True)) if names else None

    def begin_round(self, round_number: int) -> None:
        """Called by the engine when a round starts (1-based). An override must call
        `super().begin_round(round_number)`, which sets `current_round`: the engine checks it."""
        self.current_round = round_number

    def phase_order(self, phase_name: str) -> list[str] | None:
        """For alternating phases whose order a game rule fixes (e.g. a starting agent the payoffs depend
        on): the order to use this round, every player exactly once. None lets the engine apply the
        spec's start rule. The engine checks that the order agrees with the phase's `start` (`fixed`:
        the same every round; `rotating`: the opener one seat on each round; `game_decides`: never None)."""
        return None

    def begin_phase(self, phase_name: str) -> None:
        """Called by the engine when a phase opens. An override must call `super().begin_phase(phase_name)`,
        which sets `current_phase`: the engine checks it."""
        self.current_phase = phase_name

    def end_phase(self, phase_name: str) -> None:
        """Called by the engine when a phase closes (resolve sealed submissions here)."""

    def phase_complete(self, phase_name: str) -> bool:
        """For phases that end `game_decides`: whether the game closes the phase now."""
        return False

    def describe_event(self, event: Happening, reader: str | None) -> str:
        """`event` in plain words from `reader`'s side ("you" for them; None: a spectator), for people
        and prompts. The default says any event generically; a game overrides it to say what its moves
        mean to the reader ("concession offers you 18 and keeps 82") and calls this for the rest."""
        return default_text(event, reader, self.describe_event)

    def seat_facts(self, player_id: str) -> list[Fact]:
        """What `player_id` knows, said for a person in the game's units (role, values, BATNA, budget,
        the standing offer from their side), shown first on the play page. None by default: the page
        then shows the seat's view as data."""
        return []

    def action_effect(self, player_id: str, action: str) -> str | None:
        """What taking `action` now would do for `player_id`, where the game can say ("you get 18"),
        for the action's button; None where it depends on a payload or cannot be told."""
        return None

    def agreement_terms(self) -> dict[str, JsonValue] | None:
        """The agreed terms, or None when there was no deal."""
        return None

    def player_batnas(self) -> dict[str, float]:
        """Each player's (decayed) BATNA at the deciding round; zero where a game has none."""
        return dict.fromkeys(self.players, 0.0)

    if not TYPE_CHECKING:  # invisible to type checkers: a game may document `batna_values` as its own attribute

        def batna_values(self) -> dict[str, float]:
            """Deprecated name of `player_batnas()`, for one release (the documented `ResourceAllocationGame`
            has a `batna_values` dict attribute, by team, instead)."""
            warnings.warn("batna_values() is renamed player_batnas()", DeprecationWarning, stacklevel=2)
            return self.player_batnas()

    # --- shared infrastructure --------------------------------------------------------------

    @property
    def rules_text(self) -> str:
        """The plain-language rules of this game's spec (rendered once per config, shared by its games)."""
        return self.game_setup.rules_text

    def open_actions(self, player_id: str) -> list[ActionSpec]:
        """The current phase's actions that the game would allow `player_id` now (for prompts)."""
        phase = self.spec.phase(self.current_phase) if self.current_phase else self.spec.phases[0]
        actions = list(phase.actions) if phase is not None else []
        allowed = set(self.available_actions(player_id, [a.name for a in actions]))
        return [a for a in actions if a.name in allowed]

    def add_action(self, action: PlayerAction) -> None:
        """Append an action to the chronological history."""
        self.actions_history.append(action)

    def notify(self, data: Mapping[str, object], to: list[str] | None = None) -> None:
        """Announce something to `to` (None: everyone); the engine writes it to the event log."""
        self.pending_notices.append(Notice(data=data, visible_to=tuple(to) if to is not None else None))

    def drain_notices(self) -> list[Notice]:
        notices = self.pending_notices
        if notices:  # most steps announce nothing: keep the empty list rather than make a new one
            self.pending_notices = []
        return notices

    def surplus(self) -> dict[str, float]:
        """Each player's score above its BATNA."""
        return _surplus(self.players, self.calculate_scores(), self.player_batnas())

    def get_winner(self, game_state: Mapping[str, object] | None = None) -> str | None:
        """The player with the highest positive surplus; None on a tie, without a deal, or without surplus.

        Decided from `game_state` when given (its `agreement_reached` and `utility_surplus`, as the
        documented games' states carry them), else from this game's own state.
        """
        if game_state is not None:
            surplus = game_state.get("utility_surplus")
            return _winner(bool(game_state.get("agreement_reached")), surplus if isinstance(surplus, Mapping) else {})
        return None if self.agreement_terms() is None else _winner(True, self.surplus())

    def get_game_info(self) -> GameInfo:
        return {
            "game_id": self.game_id,
            "state": self.state.value,
            "players": list(self.players),
            "current_round": self.current_round,
            "max_rounds": self.max_rounds,
            "config": self.config,
        }

    def get_result(self) -> GameResult:
        """The final result, with the fields every game reports (agreement, terms, BATNAs, surplus)."""
        terms = self.agreement_terms()
        scores = self.calculate_scores()
        batnas = self.player_batnas()
        surplus = self.surplus() if overrides(self, "surplus") else _surplus(self.players, scores, batnas)
        if overrides(self, "get_winner"):
            winner = self.get_winner()
        else:  # what get_winner() would say, without scoring the game twice more
            winner = None if terms is None else _winner(True, surplus)
        return GameResult(
            game_id=self.game_id,
            players=list(self.players),
            winner=winner,
            final_scores=scores,
            total_rounds=self.current_round,
            game_data={"agreement": terms is not None, "terms": terms, "batnas": batnas, "surplus": surplus},
            success=self.state is not GameState.FAILED,
        )


def _surplus(players: list[str], scores: Mapping[str, float], batnas: Mapping[str, float]) -> dict[str, float]:
    return {p: scores[p] - batnas.get(p, 0.0) for p in players}


def overrides(game: BaseGame[GameConfig], method: str) -> bool:
    """Whether `game`'s class replaces BaseGame's `method` (else its default is known without calling it)."""
    return getattr(type(game), method) is not getattr(BaseGame, method)


def _winner(agreement: bool, surplus: Mapping[str, float]) -> str | None:
    if not agreement or not surplus:
        return None
    best = max(surplus.values())
    leaders = [p for p, s in surplus.items() if s == best]
    return leaders[0] if best > 0 and len(leaders) == 1 else None


def _snake_case(name: str) -> str:
    """A spec id from a class name: CustomGame → custom, XMLTradeGame → xml_trade."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)).lower()
    words = re.sub(r"[^a-z0-9_]", "", words).strip("_").removesuffix("_game")
    return words if re.match(r"^[a-z]", words) else f"game_{words}".rstrip("_")
