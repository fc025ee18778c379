"""`check_game` passes every shipped game and names the check and seed a broken game fails."""

from __future__ import annotations

import pytest

from negotiation_platform.registry import Registry
from negotiation_platform.spec import payload_schema
from negotiation_platform.testing import GameCheckError, check_game
from negotiation_platform.testing.bounds import unbounded_numbers
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
        (kit_games.SkipsAPlayer, "contract", "phase_order: for phase `bargain` it returned ['seat_1']"),
        (kit_games.FrozenRound, "contract", "call super().begin_round(round_number)"),
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


@pytest.mark.parametrize(
    ("game", "where"),
    [(kit_games.UnboundedPayload, "the payload of `propose`"), (kit_games.UnboundedConfig, "its config")],
)
def test_a_number_without_finite_bounds_is_refused_with_why_and_how(game: type, where: str) -> None:
    with pytest.raises(GameCheckError) as failure:
        check_game(game, seeds=range(1))
    message = str(failure.value)
    assert failure.value.check == "bounds" and failure.value.seed is None
    assert message.startswith(f"check_game [bounds] failed for secret_split: {where} has numbers without finite bounds")
    assert "overflow" in message and "Field(ge=" in message and "le=" in message


@pytest.mark.parametrize("game_id", shipped_games())
def test_every_number_of_every_installed_game_has_finite_bounds(game_id: str) -> None:
    game = Registry().game(game_id).cls
    schemas = {"config": game.Config.model_json_schema()}
    for config in (None, SHORT_ADASOCIETY) if game_id.startswith("adasociety") else (None,):
        spec = game.spec_for(config)
        schemas |= {f"{a.name} payload": payload_schema(a.payload) for p in spec.phases for a in p.actions}
    unbounded = {where: unbounded_numbers(schema) for where, schema in schemas.items()}
    assert {where: paths for where, paths in unbounded.items() if paths} == {}


def test_the_bounds_check_reads_nested_references_unions_and_maps() -> None:
    schema = {
        "$defs": {"Part": {"properties": {"n": {"type": "integer", "minimum": 0}}}},
        "properties": {
            "part": {"$ref": "#/$defs/Part"},
            "rate": {"anyOf": [{"type": "number", "minimum": 0, "maximum": 1}, {"type": "null"}]},
            "by_role": {"additionalProperties": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e400}},
            "pair": {"prefixItems": [{"type": "integer", "minimum": 0, "maximum": 9}, {"type": "number"}]},
            "kind": {"type": "integer", "enum": [1, 2]},
        },
    }
    assert unbounded_numbers(schema) == ["by_role[]", "pair", "part.n"]


def test_a_check_failure_is_an_assertion_error() -> None:
    with pytest.raises(AssertionError):
        check_game(kit_games.SeatViewLeak)
