"""`check_game` passes every shipped game and names the check and seed a broken game fails."""

from __future__ import annotations

import pytest

from negotiation_platform.registry import Registry
from negotiation_platform.testing import GameCheckError, check_game
from tests import kit_games

SHORT_ADASOCIETY = {"max_length": 12, "negotiation_steps": 6}


def shipped_games() -> list[str]:
    return sorted(Registry().games())


@pytest.mark.parametrize("game_id", shipped_games())
def test_every_shipped_game_passes(game_id: str) -> None:
    entry = Registry().game(game_id)
    if game_id.startswith("adasociety"):
        check_game(entry.cls, seeds=range(2), config=SHORT_ADASOCIETY)
    else:
        check_game(entry.cls, seeds=range(3))


def test_the_shipped_games_include_the_plugins() -> None:
    assert {"split_100", "company_car", "coins_classic", "no_press", "adasociety"} <= set(shipped_games())


def test_the_clean_test_game_passes(check_game) -> None:  # the pytest11 fixture
    check_game(kit_games.SecretSplit, seeds=range(5))


@pytest.mark.parametrize(
    ("game", "check", "words"),
    [
        (kit_games.PublicViewLeak, "private_views", "copied in the public view at `board.seat_"),
        (kit_games.SeatViewLeak, "private_views", "copied in seat_"),
        (kit_games.GlobalRandom, "determinism", "same seed"),
        (kit_games.SchemaRefusesOwnMoves, "payload_schemas", "is not a multiple of 7"),
        (kit_games.NoPosition, "bargaining_position", "bargaining_position() returned None"),
    ],
)
def test_a_broken_game_fails_with_the_check_named(game: type, check: str, words: str) -> None:
    with pytest.raises(GameCheckError) as failure:
        check_game(game, seeds=range(5))
    message = str(failure.value)
    assert failure.value.check == check
    assert message.startswith(f"check_game [{check}] failed for secret_split")
    assert words in message
    if check != "private_views":
        assert f"seed {failure.value.seed}" in message and failure.value.seed in range(5)


def test_a_check_failure_is_an_assertion_error() -> None:
    with pytest.raises(AssertionError):
        check_game(kit_games.SeatViewLeak)
