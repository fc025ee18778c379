"""The pytest plugin (entry point `pytest11`): the `check_game` and `check_kernel` fixtures."""

from __future__ import annotations

from collections.abc import Callable

import pytest


@pytest.fixture
def check_game() -> Callable[..., None]:
    """`negotiation_platform.testing.check_game`: `check_game(MyGame, seeds=range(5), config=None)`."""
    from negotiation_platform.testing import check_game as check

    return check


@pytest.fixture
def check_kernel() -> Callable[..., None]:
    """`negotiation_platform.testing.check_kernel`: `check_kernel(MyGame, seeds=range(5), config=None)`."""
    from negotiation_platform.testing import check_kernel as check

    return check
