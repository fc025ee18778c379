"""Configs are refused when no legal outcome exists or when their numbers would make one call's work unbounded."""

from __future__ import annotations

from typing import Any

import pytest

from negotiation_platform.arena import Arena
from negotiation_platform.errors import ErrorCode, NegotiationError

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def refused_config(game_id: str, config: dict[str, Any]) -> NegotiationError:
    arena = Arena()
    with pytest.raises(NegotiationError) as info:
        await arena.start_game(game_id, config=config)
    assert info.value.code is ErrorCode.INVALID_CONFIG
    assert (await arena.list_matches())["matches"] == []  # a refusal changes nothing
    return info.value


@pytest.mark.parametrize(
    ("game_id", "config", "says"),
    [
        ("resource_allocation", {"min_gpu_hours": 60, "min_cpu_hours": 60}, "no plan is legal"),
        ("resource_allocation", {"bandwidth": 10}, "no plan is legal"),
        ("resource_allocation", {"batnas": {"development": 1}}, "batnas must give exactly the roles"),
        ("resource_allocation", {"total_resources": 10**9}, "less than or equal to 1000"),
        ("integrative_negotiation", {"issues": {}}, "at least one issue"),
        (
            "integrative_negotiation",
            {"issues": {"x": {"options": [], "points": {"IT": [], "Marketing": []}}}},
            "at least 1 item",
        ),
        (
            "integrative_negotiation",
            {"issues": {"x": {"options": ["a", "b"], "points": {"IT": [1], "Marketing": [1, 2]}}}},
            "one number per option",
        ),
        ("integrative_negotiation", {"weights": {"IT": {}}}, "weights must give every issue"),
        ("auction", {"value_low": 10, "value_high": 5}, "value_low must not exceed value_high"),
    ],
)
async def test_configs_without_a_legal_outcome_are_refused(game_id: str, config: dict[str, Any], says: str) -> None:
    error = await refused_config(game_id, config)
    assert says in error.message and game_id in error.message


@pytest.mark.parametrize(
    ("game_id", "config"),
    [
        ("split_100", {"rounds": 10**9}),
        ("split_100", {"total": 10**12}),
        ("split_100", {"max_message_length": 10**9}),
        ("split_100", {"seconds_per_turn": 10**12}),
        ("company_car", {"rounds": 10**6}),
        ("resource_allocation", {"rounds": 10**6}),
        ("auction", {"messages_per_bidder": 10**6}),
        ("auction", {"discuss_seconds": 10**9}),
        ("coins_classic", {"rounds": 10**6}),
        ("coins_classic", {"coins": 10**12}),
        ("coins_classic", {"messages_per_round": 10**6}),
    ],
)
async def test_numbers_beyond_the_bounds_are_refused(game_id: str, config: dict[str, Any]) -> None:
    if game_id not in Arena().registry.games():
        pytest.skip(f"{game_id} is not installed")
    error = await refused_config(game_id, config)
    assert "less than or equal to" in error.message


async def test_the_message_names_the_config_when_the_whole_config_is_wrong() -> None:
    error = await refused_config("resource_allocation", {"bandwidth": 10})
    assert error.message.startswith("Invalid config for resource_allocation: (config): no plan is legal")
    assert error.details["problems"][0]["field"] == "(config)"
