"""Costly work bounded per caller: each caller has its own few slots, so one caller's flood waits on
its own slots only and never delays another caller's request."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from negotiation_platform.errors import ErrorCode, NegotiationError


class CallerSlots:
    """At most `running` requests of one caller at work at once, `total` of all callers; a caller's
    further requests wait their turn, up to `queued` of them, and more are refused (`limit_reached`).
    Every caller's share of `total` is `running`, so `total` is reached only by several callers."""

    def __init__(self, running: int, queued: int, total: int, what: str) -> None:
        self.running, self.queued, self.what = running, queued, what
        self._total = asyncio.Semaphore(total)
        self._callers: dict[str, tuple[asyncio.Semaphore, int]] = {}

    @asynccontextmanager
    async def slot(self, caller: str) -> AsyncIterator[None]:
        """Holds one of `caller`'s slots (and one of all) while the block runs."""
        own, held = self._callers.get(caller, (asyncio.Semaphore(self.running), 0))
        if held >= self.running + self.queued:
            raise NegotiationError(
                ErrorCode.LIMIT_REACHED,
                f"At most {self.running + self.queued} {self.what} per client at once; wait for the earlier ones.",
                limit=f"max_{self.what.replace(' ', '_')}_per_client",
            )
        self._callers[caller] = (own, held + 1)
        try:
            async with own, self._total:
                yield
        finally:
            own, held = self._callers[caller]
            if held <= 1:
                del self._callers[caller]
            else:
                self._callers[caller] = (own, held - 1)
