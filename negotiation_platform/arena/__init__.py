"""The transport-neutral arena service."""

from negotiation_platform.arena.arena import MAX_WAIT_SECONDS, Arena

__all__ = ["MAX_WAIT_SECONDS", "Arena"]
