"""The engine's contract with a game: what the engine checks of the hooks a game overrides.

A game that breaks it has a bug (no move of a player can cause it), so the engine stops at once with
a `GameContractError` that names the hook and says how to fix it, rather than play on wrongly: a
round counter frozen at 0, an order that skips a player, rules text that says "the same order every
round" while the game rotates it. The contract as a whole is in the game authors' guide
("The engine's contract with your game").
"""

from __future__ import annotations

from typing import NoReturn

from negotiation_platform.games.base_game import BaseGame, GameConfig, overrides
from negotiation_platform.spec import GameSpec, PhaseSpec, RoleAssignment, StartRule, TurnOrder


class GameContractError(RuntimeError):
    """A game broke its contract with the engine; `hook` names the method at fault, the message the fix."""

    def __init__(self, game_id: str, hook: str, problem: str, fix: str) -> None:
        super().__init__(f"{game_id}.{hook}: {problem}. Fix: {fix}")
        self.game_id = game_id
        self.hook = hook


def game_orders(spec: GameSpec, players: list[str], game: BaseGame[GameConfig]) -> GameOrders | None:
    """What asks and checks the game's turn orders; None for a game that gives none (the spec's start
    rule applies without asking), which no phase may then leave to the game."""
    if overrides(game, "phase_order"):
        return GameOrders(spec.id, players)
    for phase in spec.phases:
        if phase.turn_order is TurnOrder.ALTERNATING and phase.start is StartRule.GAME_DECIDES:
            raise GameContractError(
                spec.id,
                "phase_order",
                f"phase `{phase.name}` declares start=game_decides but the game does not override phase_order",
                "override phase_order to return this round's order, or declare the start rule the engine "
                "should apply (fixed, rotating or shuffled)",
            )
    return None


def initialize(game: BaseGame[GameConfig], spec: GameSpec, players: list[str]) -> None:
    """Call the game's `initialize_game`, then check that the roles it seated agree with the spec."""
    game.initialize_game(list(players))
    roles = spec.roles
    if not roles.names:
        return
    seated = game.seat_roles()
    by_seat = dict(zip(players, roles.names, strict=True))
    if seated is None or sorted(seated) != sorted(players) or sorted(seated.values()) != sorted(roles.names):
        raise GameContractError(
            spec.id,
            "seat_roles",
            f"returned {seated!r}, not one role each of {list(roles.names)} for the players {players}",
            "return {player: role name} for every player, each role of the spec once",
        )
    if roles.assignment is RoleAssignment.BY_SEAT and seated != by_seat:
        raise GameContractError(
            spec.id,
            "seat_roles",
            f"seated {seated} but the spec says assignment=by_seat ({by_seat})",
            "declare RolesSpec(assignment='seeded') if the game draws the roles, or seat role i at seat i",
        )


def begin_round(game: BaseGame[GameConfig], spec_id: str, number: int) -> None:
    """Call the game's `begin_round` and check that it set `current_round` (BaseGame's does)."""
    game.begin_round(number)
    _check_set(game, spec_id, "begin_round", "current_round", number, "round_number")


def begin_phase(game: BaseGame[GameConfig], spec_id: str, name: str) -> None:
    """Call the game's `begin_phase` and check that it set `current_phase` (BaseGame's does)."""
    game.begin_phase(name)
    _check_set(game, spec_id, "begin_phase", "current_phase", name, "phase_name")


def _check_set(
    game: BaseGame[GameConfig], spec_id: str, hook: str, attribute: str, expected: object, argument: str
) -> None:
    found = getattr(game, attribute)
    if found != expected:
        raise GameContractError(
            spec_id,
            hook,
            f"{attribute} is {found!r} after {hook}({expected!r})",
            f"call super().{hook}({argument}) in your override: it sets {attribute}",
        )


class GameOrders:
    """Checks the turn orders a game's `phase_order` gives against its players and its spec's start rule,
    so the rules text (generated from the spec) never contradicts the order actually played."""

    __slots__ = ("_last", "_players", "_spec_id")

    def __init__(self, spec_id: str, players: list[str]) -> None:
        self._spec_id = spec_id
        self._players = players
        self._last: dict[str, tuple[int, list[str]]] = {}
        """The order the game last gave for each phase, with the round it was given in."""

    def order(self, game: BaseGame[GameConfig], phase: PhaseSpec, round_number: int) -> list[str] | None:
        """The game's order for `phase` this round (None: the engine applies the start rule)."""
        given = game.phase_order(phase.name)
        if given is None:
            if phase.start is StartRule.GAME_DECIDES and phase.turn_order is TurnOrder.ALTERNATING:
                self._fail(phase, "returned None", "return this round's order: the spec says the game decides it")
            return None
        players = self._players
        if not isinstance(given, list) or sorted(map(str, given)) != sorted(players) or len(given) != len(players):
            self._fail(
                phase,
                f"returned {given!r}, not an order of the players {players}",
                "return a list holding every player of the match exactly once (self.players in some order), "
                "or None to let the engine apply the spec's start rule",
            )
        last = self._last.get(phase.name)
        self._last[phase.name] = (round_number, list(given))
        if last is not None and phase.turn_order is TurnOrder.ALTERNATING:
            self._check_start_rule(phase, last, round_number, given)
        return given

    def _check_start_rule(self, phase: PhaseSpec, last: tuple[int, list[str]], number: int, given: list[str]) -> None:
        last_round, last_order = last
        if phase.start is StartRule.FIXED and given != last_order:
            self._fail(
                phase,
                f"gave {given} in round {number} after {last_order} in round {last_round}, "
                "but the spec says start=fixed (the same order every round)",
                "declare start=rotating, shuffled or game_decides, so the rules text says how the order changes",
            )
        if phase.start is StartRule.ROTATING:
            players = self._players
            opener = (players.index(last_order[0]) + number - last_round) % len(players)
            rotated = players[opener:] + players[:opener]
            if given != rotated:
                self._fail(
                    phase,
                    f"gave {given} in round {number} after {last_order} in round {last_round}, but the spec says "
                    f"start=rotating (the opener moves one seat on each round: {rotated})",
                    "return the rotated seat order, or declare start=game_decides and say in the phase's "
                    "description how the game orders the players",
                )

    def _fail(self, phase: PhaseSpec, problem: str, fix: str) -> NoReturn:
        raise GameContractError(self._spec_id, "phase_order", f"for phase `{phase.name}` it {problem}", fix)
