"""The engine checks the hooks a game overrides and stops a game that breaks its contract with an error
naming the hook and the fix; on every installed game the turn orders played are the ones its rules text
states."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from pydantic import ValidationError

from negotiation_platform.engine import EventKind, Match
from negotiation_platform.engine.contract import GameContractError
from negotiation_platform.registry import Registry
from negotiation_platform.spec import GameSpec, OutcomeKind, RoleAssignment, RolesSpec, StartRule, TurnOrder
from negotiation_platform.spec.rules_text import render_rules
from negotiation_platform.testing.playthrough import play_randomly
from tests.probe_game import ProbeGame


class Reversed(ProbeGame):
    """Gives the reversed seat order in even rounds: a rule of its own, which only `game_decides` states."""

    def phase_order(self, phase_name: str) -> list[str] | None:
        return self.players[::-1] if self.current_round % 2 == 0 else list(self.players)


class Rotates(ProbeGame):
    def phase_order(self, phase_name: str) -> list[str] | None:
        k = (self.current_round - 1) % len(self.players)
        return self.players[k:] + self.players[:k]


class Leaves(ProbeGame):
    def phase_order(self, phase_name: str) -> list[str] | None:
        return None


class Duplicates(ProbeGame):
    def phase_order(self, phase_name: str) -> list[str] | None:
        return [self.players[0]] * len(self.players)


class RoundWithoutSuper(ProbeGame):
    def begin_round(self, round_number: int) -> None:
        self.game_data["rounds_begun"] = round_number


class PhaseWithoutSuper(ProbeGame):
    def begin_phase(self, phase_name: str) -> None:
        self.game_data["close"] = False


def start(game: type[ProbeGame], rounds: int = 3, **config: Any) -> Match:
    return Match(game, ["p1", "p2", "p3"], config={"players": 3, "rounds": rounds, **config})


def play_rounds(match: Match, rounds: int) -> None:
    for _ in range(rounds * len(match.players)):
        match.submit(match.acting()[0], "move", {"n": 1})


def contract_error(call: Any) -> GameContractError:
    with pytest.raises(GameContractError) as info:
        call()
    return info.value


def test_an_order_that_is_not_a_permutation_names_the_hook_and_the_fix() -> None:
    error = contract_error(lambda: start(Duplicates))
    assert error.hook == "phase_order" and error.game_id == "probe"
    assert "['p1', 'p1', 'p1'], not an order of the players ['p1', 'p2', 'p3']" in str(error)
    assert "Fix: return a list holding every player of the match exactly once" in str(error)


def test_begin_round_without_super_is_caught_instead_of_freezing_the_round() -> None:
    error = contract_error(lambda: start(RoundWithoutSuper))
    assert error.hook == "begin_round"
    assert "current_round is 0 after begin_round(1)" in str(error)
    assert "call super().begin_round(round_number)" in str(error)


def test_begin_phase_without_super_is_caught() -> None:
    error = contract_error(lambda: start(PhaseWithoutSuper))
    assert error.hook == "begin_phase" and "call super().begin_phase(phase_name)" in str(error)


def test_an_order_that_changes_under_a_fixed_start_rule_is_refused() -> None:
    match = start(Reversed)
    error = contract_error(lambda: play_rounds(match, 1))  # the last move of round 1 opens round 2
    assert "but the spec says start=fixed" in str(error) and "declare start=rotating, shuffled or game_decides" in (
        str(error)
    )


def test_a_rotating_start_rule_accepts_the_rotation_and_refuses_anything_else() -> None:
    match = start(Rotates, start=StartRule.ROTATING)
    play_rounds(match, 3)
    assert match.finished
    match = start(Reversed, start=StartRule.ROTATING)
    error = contract_error(lambda: play_rounds(match, 1))
    assert "start=rotating (the opener moves one seat on each round: ['p2', 'p3', 'p1'])" in str(error)


def test_a_game_decided_order_is_played_as_given_and_the_rules_text_says_the_game_sets_it() -> None:
    match = start(Reversed, start=StartRule.GAME_DECIDES)
    play_rounds(match, 3)
    orders = [e.data["order"] for e in match.events if e.kind is EventKind.PHASE_STARTED]
    assert orders == [["p1", "p2", "p3"], ["p3", "p2", "p1"], ["p1", "p2", "p3"]]
    assert "in an order the game's rules set every round" in render_rules(match.spec)
    assert "same order every round" not in render_rules(match.spec)


def test_a_game_decided_order_needs_a_game_that_gives_one() -> None:
    error = contract_error(lambda: start(ProbeGame, start=StartRule.GAME_DECIDES))
    assert "declares start=game_decides but the game does not override phase_order" in str(error)
    error = contract_error(lambda: start(Leaves, start=StartRule.GAME_DECIDES))
    assert "it returned None" in str(error)


def _orders_by_round(match: Match, phase: str) -> list[tuple[int, list[str]]]:
    rounds, found = 0, []
    for event in match.events:
        if event.kind is EventKind.ROUND_STARTED:
            rounds += 1
        elif event.kind is EventKind.PHASE_STARTED and event.data["phase"] == phase and "order" in event.data:
            found.append((rounds, event.data["order"]))
    return found


def _short_config(game_id: str) -> dict[str, Any]:
    return {"max_length": 12, "negotiation_steps": 6} if game_id.startswith("adasociety") else {}


def test_every_installed_game_plays_the_orders_its_rules_text_states() -> None:
    """Played with random legal moves, as `check_game` plays them."""
    non_fixed = set()
    for game_id, entry in sorted(Registry().games().items()):
        spec = entry.cls.spec_for(_short_config(game_id))
        players = [f"seat_{i}" for i in range(1, spec.roles.min_players + 1)]
        for seed in range(3):
            match = play_randomly(entry.cls, players, _short_config(game_id), seed, 5_000).match
            for phase in spec.phases:
                if phase.turn_order is not TurnOrder.ALTERNATING:
                    continue
                text = render_rules(spec)
                orders = _orders_by_round(match, phase.name)
                if phase.start is StartRule.FIXED:
                    assert "in the same order every round" in text
                    assert all(order == orders[0][1] for _, order in orders), (game_id, orders)
                    continue
                if len(orders) > 1:
                    non_fixed.add((game_id, phase.start))
                assert "same order every round" not in text, game_id
                if phase.start is StartRule.ROTATING:
                    assert "the opening player rotates every round" in text
                    openers = [(r, players.index(order[0])) for r, order in orders]
                    for (r0, first), (r1, second) in itertools.pairwise(openers):
                        assert second == (first + r1 - r0) % len(players), (game_id, orders)
    assert ("coins_classic", StartRule.ROTATING) in non_fixed  # the coin games' starting agent alternates
    assert ("company_car", StartRule.SHUFFLED) in non_fixed


class Named(ProbeGame):
    """The probe with named roles; `swap` seats them in reverse, as a game that draws roles might."""

    swap = False

    @classmethod
    def build_spec(cls, config: Any) -> GameSpec:
        spec = super().build_spec(config)
        return spec.model_copy(update={"roles": RolesSpec(names=("left", "right"), assignment=cls.assignment)})

    assignment = RoleAssignment.BY_SEAT

    def seat_roles(self) -> dict[str, str] | None:
        roles = dict(zip(self.players, ("right", "left") if self.swap else ("left", "right"), strict=True))
        return roles


class SwapsByseat(Named):
    swap = True


class SwapsSeeded(Named):
    swap = True
    assignment = RoleAssignment.SEEDED


class OneRoleTwice(Named):
    def seat_roles(self) -> dict[str, str] | None:
        return dict.fromkeys(self.players, "left")


def test_roles_seated_against_the_declared_assignment_are_refused() -> None:
    Match(Named, ["a", "b"])
    Match(SwapsSeeded, ["a", "b"])  # a game that draws the roles declares it, and the rules text says so
    assert "(assigned at random from the match seed)" in render_rules(SwapsSeeded.spec)
    error = contract_error(lambda: Match(SwapsByseat, ["a", "b"]))
    assert error.hook == "seat_roles" and "but the spec says assignment=by_seat" in str(error)
    error = contract_error(lambda: Match(OneRoleTwice, ["a", "b"]))
    assert "not one role each of ['left', 'right']" in str(error)


def test_an_assignment_is_one_of_the_declared_kinds_not_a_free_string() -> None:
    assert RolesSpec(names=("a", "b"), assignment="seeded").assignment is RoleAssignment.SEEDED  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        RolesSpec(names=("a", "b"), assignment="by_lottery")  # type: ignore[arg-type]
    assert {kind.value for kind in OutcomeKind} == {"agreement", "engine_rule"}


def test_the_built_in_games_that_draw_roles_report_them() -> None:
    seen = set()
    for seed in range(8):
        match = Match(Registry().game("company_car").cls, ["a", "b"], seed=seed)
        roles = match.game.seat_roles()
        assert roles is not None and sorted(roles.values()) == sorted(match.spec.roles.names)
        seen.add(roles["a"])
    assert len(seen) == 2  # drawn from the seed, as the spec's `seeded` says
