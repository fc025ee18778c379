"""`Registry.agents()` and `transports()` hand on only what fits their types (`registry.plugin_types`), and
report the rest; `make_agent` refuses what a factory made that is not an agent."""

from __future__ import annotations

import argparse
from contextlib import AbstractAsyncContextManager
from types import SimpleNamespace

import pytest

from negotiation_platform.agents import ConcessionAgent
from negotiation_platform.agents.catalog import make_agent
from negotiation_platform.agents.seating import SeatedBy
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry, hookimpl


class FakeTransport:
    name = "fake"
    summary = "a transport that serves nothing"

    def add_serve_arguments(self, parser: argparse.ArgumentParser) -> None:
        return None

    def serve(self, registry: Registry, args: argparse.Namespace) -> None:
        return None

    def connects_to(self, via: str) -> bool:
        return via == "fake"

    def connect(self, via: str) -> AbstractAsyncContextManager[object]:
        raise NotImplementedError


class Offers:
    @hookimpl
    def register_agents(self) -> dict[str, object]:
        return {"good": ConcessionAgent, "not_callable": 42, "makes_nothing": lambda **options: None}

    @hookimpl
    def register_transports(self) -> dict[str, object]:
        return {"fake": FakeTransport(), "half": SimpleNamespace(name="half", summary="no methods")}


class Misshapen:
    @hookimpl
    def register_games(self) -> int:
        return 7

    @hookimpl
    def register_agents(self) -> list[str]:
        return ["not", "a", "mapping"]


def test_offers_that_do_not_fit_are_left_out_and_reported() -> None:
    registry = Registry(entry_points=False)
    registry.register(Offers(), name="offers")
    assert set(registry.agents()) == {"good", "makes_nothing"}
    assert list(registry.transports()) == ["fake"]
    reasons = sorted(p.reason for p in registry.problems)
    assert reasons == ["'half' is not a transport", "'not_callable' is not an agent factory"]
    registry.agents(), registry.transports()  # asked again: still reported once
    assert len(registry.problems) == 2


def test_a_hook_answer_of_the_wrong_shape_is_reported_and_others_still_load() -> None:
    from negotiation_platform.registry import builtin_games

    registry = Registry(entry_points=False)
    registry.register(builtin_games, name="builtin")
    registry.register(Misshapen(), name="misshapen")
    assert "split_100" in registry.games()
    assert registry.agents() == {}
    reasons = {p.reason for p in registry.problems if p.plugin == "misshapen"}
    assert reasons == {
        "register_games returned int, not what the hook specifies",
        "register_agents returned list, not what the hook specifies",
    }


def test_make_agent_refuses_what_a_factory_made_that_is_no_agent() -> None:
    registry = Registry(entry_points=False)
    registry.register(Offers(), name="offers")
    assert isinstance(make_agent(registry, "good", 0, by=SeatedBy.OPERATOR), ConcessionAgent)
    with pytest.raises(NegotiationError) as refused:
        make_agent(registry, "makes_nothing", 0, by=SeatedBy.OPERATOR)
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert "made no agent" in refused.value.message
    assert registry.transports()["fake"].connects_to("fake")
