"""What a transport plugin provides: a server over the arena, and a client that plays through it.

Transports register through the `negotiation_platform.transports` entry point (hook
`register_transports`); the core never imports one by name. The CLI's `serve NAME` and
`play --via TARGET` are built from whatever is installed; the options a `serve` command shares
with the others come from `negotiation_platform.cli.serve_options`.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from negotiation_platform.arena import ArenaApi
from negotiation_platform.registry import Registry, TransportPlugin


class Transport(TransportPlugin, Protocol):
    """A transport plugin (`registry.TransportPlugin`, as `Registry.transports()` hands it on) whose
    `connect` gives an `ArenaApi`."""

    name: str
    summary: str

    def add_serve_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the options of `negotiation-platform serve NAME`."""

    def serve(self, registry: Registry, args: argparse.Namespace) -> None:
        """Serve an arena of `registry`'s games until interrupted: its policy built from `args` first
        and given to `Arena(registry, policy=...)`, as it is fixed from then on."""

    def connects_to(self, via: str) -> bool:
        """Whether `play --via VIA` is for this transport."""

    def connect(self, via: str) -> AbstractAsyncContextManager[ArenaApi]:
        """A client for the arena behind `via`, usable wherever an `Arena` is."""


SHIPPED_TRANSPORTS = {
    "mcp": "negotiation-platform[mcp]",
    "a2a": "negotiation-platform[a2a]",
    "openenv": "negotiation-platform[openenv]",
}
"""The transports this project ships, each a distribution of its own, and the requirement that installs it."""


def install_hint(names: Iterable[str]) -> str:
    """How to install the shipped transports among `names` ("" when it names none of them)."""
    return " or ".join(
        f'pip install "{SHIPPED_TRANSPORTS[name]}"' for name in sorted(names) if name in SHIPPED_TRANSPORTS
    )
