"""What the registry hands on from `register_agents` and `register_transports`, typed in the registry's layer.

The agents (`negotiation_platform.agents.Agent`) and the transports
(`negotiation_platform.serving.transport_plugin.Transport`) live in layers above the registry, so
`Registry.agents()` and `transports()` cannot name those types without an import cycle. These Protocols
state the part of each contract that needs nothing above the registry; the real classes satisfy them
(pinned by tests/typing_contracts.py), and the layers above narrow them to their own types.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from negotiation_platform.registry.registry import Registry


class SeatableAgent(Protocol):
    """An agent as the registry sees it: a name, and `decide` over a turn state (the agents layer's
    `Agent` states what a decision is)."""

    name: str

    def decide(self, turn: dict[str, object], /) -> object:
        """A decision, or an awaitable of one."""
        ...


AgentFactory = Callable[..., SeatableAgent]
"""What `register_agents` offers by kind: called as `factory(seed=..., name=..., **options)` (plus
`target=` for a kind whose factory says `needs_target = True`); each kind takes its own options."""


class TransportPlugin(Protocol):
    """A transport as the registry sees it: `serve NAME` for the CLI and a client for `play --via`
    (`serving.transport_plugin.Transport` narrows `connect` to an `ArenaApi`)."""

    name: str
    summary: str

    def add_serve_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the options of `negotiation-platform serve NAME`."""
        ...

    def serve(self, registry: Registry, args: argparse.Namespace) -> None:
        """Serve an arena of `registry`'s games until interrupted."""
        ...

    def connects_to(self, via: str) -> bool:
        """Whether `play --via VIA` is for this transport."""
        ...

    def connect(self, via: str) -> AbstractAsyncContextManager[object]:
        """A client for the arena behind `via`."""
        ...
