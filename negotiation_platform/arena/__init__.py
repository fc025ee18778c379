"""The transport-neutral arena service."""

from negotiation_platform.arena.arena import MAX_WAIT_SECONDS, Arena
from negotiation_platform.arena.protocol import ArenaApi

__all__ = ["MAX_WAIT_SECONDS", "Arena", "ArenaApi"]
