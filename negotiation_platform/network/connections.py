"""What one HTTP connection may hold of a server: time to send its request, idle time, and a share
of the connections (so of the process's file descriptors), with their defaults.

Standard library only (`--help` reads the defaults without a web stack); the uvicorn protocol that
applies them is `negotiation_platform.network.connection_guard`.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass

DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_IDLE_TIMEOUT = 30.0
"""Longer than the idle expiry of common clients' connection pools (httpx 5 s, aiohttp 15 s): a client
that reuses a kept-alive connection never races the server closing it."""
DEFAULT_BODY_TIMEOUT = 20.0
MIN_BODY_RATE = 1024
"""Bytes a second a request body earns beyond `body_timeout`: a large body sent at a steady pace
finishes, one that trickles is cut off."""
MOST_CONNECTIONS = 10_000
DESCRIPTOR_SHARE = 0.75
"""Of the process's descriptor limit (RLIMIT_NOFILE), the part HTTP connections may use: the rest
stays for the store, logs, outgoing calls and accepting (then refusing) new clients."""
PER_ADDRESS_SHARE = 8
"""One peer address may hold 1/PER_ADDRESS_SHARE of the connections by default."""


def default_max_connections() -> int:
    """`DESCRIPTOR_SHARE` of this process's descriptor limit, at most `MOST_CONNECTIONS`."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MOST_CONNECTIONS
    return max(PER_ADDRESS_SHARE, min(MOST_CONNECTIONS, int(soft * DESCRIPTOR_SHARE)))


@dataclass(frozen=True)
class ConnectionLimits:
    """The bounds every HTTP server here applies to its connections (see `connection_guard`)."""

    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    """Seconds a connection has to send a request's complete headers, from when it opens (or, kept alive,
    from the first byte of its next request); then it is closed (408 if part of a request had come)."""
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT
    """Seconds a kept-alive connection may stay silent after an answer before it is closed."""
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    """Seconds a request body has, plus one per `MIN_BODY_RATE` bytes received; then 408 and close."""
    max_connections: int | None = None
    """Open connections in all (None: `default_max_connections()`); more are closed at once with 503."""
    max_connections_per_address: int | None = None
    """Open connections from one peer address (None: 1/PER_ADDRESS_SHARE of the total); more get 429."""

    @property
    def total(self) -> int:
        return self.max_connections or default_max_connections()

    @property
    def per_address(self) -> int:
        return self.max_connections_per_address or max(1, self.total // PER_ADDRESS_SHARE)
