"""The transport-neutral arena service."""

from negotiation_platform.arena.arena import Arena
from negotiation_platform.arena.protocol import ArenaApi
from negotiation_platform.arena.waiting import MAX_WAIT_SECONDS

__all__ = ["MAX_WAIT_SECONDS", "Arena", "ArenaApi"]
