"""The engine's BATNA hook is `player_batnas()`; the old name, `batna_values()`, still works for one release."""

from __future__ import annotations

import warnings

import pytest

from negotiation_platform.engine import Match
from negotiation_platform.games import CompanyCarGame
from tests.kit_games import SecretSplit


def test_a_game_that_defines_the_old_hook_is_warned_and_still_scored_with_it() -> None:
    with pytest.warns(DeprecationWarning, match=r"OldSplit defines batna_values\(\).*player_batnas\(\)") as caught:

        class OldSplit(SecretSplit):
            def batna_values(self) -> dict[str, float]:
                return {p: 7.0 for p in self.players}

    assert caught[0].filename == __file__  # pointed at the class statement
    match = Match(OldSplit, ["ann", "bob"], seed=2)
    match.submit(match.acting()[0], "walk_away", {})
    assert match.result is not None
    assert match.result.game_data["batnas"] == {"ann": 7.0, "bob": 7.0}
    assert match.game.player_batnas() == {"ann": 7.0, "bob": 7.0}


def test_a_game_with_the_new_hook_is_not_warned() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        class NewSplit(SecretSplit):
            def player_batnas(self) -> dict[str, float]:
                return dict.fromkeys(self.players, 1.0)

    assert NewSplit.player_batnas is not SecretSplit.player_batnas


def test_calling_the_old_name_warns_and_answers_the_new_hook() -> None:
    game = CompanyCarGame({})
    game.initialize_game(["ann", "bob"])
    with pytest.deprecated_call(match=r"renamed player_batnas\(\)"):
        old = game.batna_values()
    assert old == game.player_batnas() and set(old) == {"ann", "bob"}
