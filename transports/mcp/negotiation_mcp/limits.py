"""The bounds on streamable-HTTP sessions, with their defaults (no MCP SDK import: `--help` reads them)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_SESSIONS = 1000
DEFAULT_MAX_SESSIONS_PER_CALLER = 32
DEFAULT_SESSION_IDLE_TIMEOUT = 600.0


@dataclass(frozen=True)
class SessionLimits:
    max_sessions: int = DEFAULT_MAX_SESSIONS
    """Open sessions in all; past it the SDK answers 503 to everybody, so keep it well above `per_caller`."""
    per_caller: int = DEFAULT_MAX_SESSIONS_PER_CALLER
    """Open sessions one caller (client address) may hold; one more is refused with 429."""
    idle_timeout: float = DEFAULT_SESSION_IDLE_TIMEOUT
    """Seconds a session lives with no request in flight; then it ends and its id answers 404."""
