from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from negotiation_platform.engine import Match
from negotiation_platform.registry import Registry, hookimpl
from tests.probe_game import ProbeGame


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def probe(clock: FakeClock) -> Callable[..., Match]:
    """Build a probe match: probe(players=..., **config)."""

    def build(seed: int = 1, **config: Any) -> Match:
        n = config.get("players", 2)
        return Match(ProbeGame, [f"p{i}" for i in range(1, n + 1)], config=config, seed=seed, clock=clock)

    return build


class _ProbePlugin:
    @hookimpl
    def register_games(self) -> list[type[Any]]:
        return [ProbeGame]


@pytest.fixture
def registry() -> Registry:
    """The installed games plus the probe game."""
    reg = Registry()
    reg.register(_ProbePlugin(), name="probe_plugin")
    return reg


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model of tests/llm_rl_models.py and its tokenizer saved once as a local model folder, which
    the tests only read (its users `importorskip("trl")` first)."""
    from tests.llm_rl_models import save_tiny_model

    return save_tiny_model(tmp_path_factory.mktemp("tiny-model"))
