# mypy: warn-unused-ignores
"""Typing contracts of the public seams, checked by `tox -e type` (mypy strict) and never run.

Each `type: ignore[...]` below marks a line mypy must reject: with warn-unused-ignores, an ignore that
is no longer needed (the mistake type-checks again) fails the run. Each `assert_type` pins a public type.
"""

from __future__ import annotations

from typing import assert_type

from negotiation_a2a.plugin import A2aTransport, remote_agent
from negotiation_adasociety.gatherer import GathererAgent
from negotiation_adasociety.plugin import adasociety_kernel
from negotiation_mcp.plugin import McpTransport
from negotiation_platform.agents import ConcessionAgent
from negotiation_platform.agents.base import Agent
from negotiation_platform.cli.serve_view import ViewerTransport
from negotiation_platform.games.base_game import BaseGame, GameConfig, PlayerAction
from negotiation_platform.games.split_100 import Split100Game
from negotiation_platform.registry import (
    AgentFactory,
    GameEntry,
    KernelFactory,
    Registry,
    SeatableAgent,
    TransportPlugin,
)
from negotiation_platform.serving.transport_plugin import Transport


def misspelled_method(game: Split100Game, action: PlayerAction) -> None:
    """`BaseGame.__getattr__` (config values as attributes) is invisible to type checkers: a typo is an error."""
    game.proces_action(action)  # type: ignore[attr-defined]
    game.process_action(action)


def registry_answers(registry: Registry) -> None:
    assert_type(registry.games(), dict[str, GameEntry])
    assert_type(registry.game("split_100").cls, type[BaseGame[GameConfig]])
    assert_type(registry.agents(), dict[str, AgentFactory])
    assert_type(registry.transports(), dict[str, TransportPlugin])
    assert_type(registry.kernels(), dict[str, KernelFactory])


def plugin_types_fit_the_real_classes(agent: Agent, transport: Transport) -> None:
    """The registry's Protocols (typed below the agents and transports) are met by what plugins offer."""
    factories: list[AgentFactory] = [ConcessionAgent, GathererAgent, remote_agent]
    transports: list[TransportPlugin] = [McpTransport(), A2aTransport(), ViewerTransport(), transport]
    kernel: KernelFactory = adasociety_kernel
    seated: SeatableAgent = agent
    not_a_transport: TransportPlugin = ConcessionAgent(seed=0)  # type: ignore[assignment]
    del factories, transports, kernel, seated, not_a_transport


def games_are_base_games(game: Split100Game) -> BaseGame[GameConfig]:
    """A game of any config is a `BaseGame[GameConfig]` (the config type is covariant)."""
    return game
