"""House seats: built-in agents that play server-side, so one remote client alone can play a match.

Transports call `HouseSeats.start_game(..., opponents=["concession"])`: the match is created, the
caller takes the first seat, and each named built-in agent takes a further seat and plays it as a
background task on the server's event loop, waiting for its turn like any client.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

from negotiation_platform.agents.catalog import known_agent, make_agent
from negotiation_platform.agents.driver import SeatHandle, run_seat
from negotiation_platform.arena import Arena
from negotiation_platform.errors import ErrorCode, NegotiationError

log = logging.getLogger(__name__)


class HouseSeats:
    """Starts matches with built-in opponents and keeps their seat tasks alive."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self._tasks: set[asyncio.Task[None]] = set()

    async def start_game(
        self,
        game_id: str,
        config: dict[str, Any] | None = None,
        seed: int | None = None,
        name: str | None = None,
        opponents: list[str] | None = None,
    ) -> dict[str, Any]:
        opponents = list(opponents or [])
        registry = self.arena.registry
        unknown = [o for o in opponents if not known_agent(registry, o)]
        if unknown:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT,
                f"Unknown opponent(s) {unknown}; built-in agents: {sorted(registry.agents())}.",
            )
        seats = (await self.arena.get_game_rules(game_id, config))["spec"]["roles"]["min_players"]
        if len(opponents) > seats - 1:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT, f"{game_id} has {seats} seats: at most {seats - 1} opponents."
            )
        started = await self.arena.start_game(game_id, config=config, seed=seed, name=name)
        match_id = started["match_id"]
        seated = []
        for index, opponent in enumerate(opponents):
            agent = make_agent(registry, opponent, random.Random(f"{match_id}:{index}").getrandbits(32))
            joined = await self.arena.join_game(match_id, name=agent.name)
            self._spawn(match_id, SeatHandle(agent, joined["agent_id"], joined["token"]))
            seated.append(joined["agent_id"])
        return {**started, "opponents": seated}

    def _spawn(self, match_id: str, seat: SeatHandle) -> None:
        task = asyncio.get_running_loop().create_task(run_seat(self.arena, match_id, seat))
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        error = task.exception()
        if isinstance(error, NegotiationError) and error.code is ErrorCode.UNKNOWN_MATCH:
            log.info("house seat ended: its match was dropped")  # abandoned by its creator or evicted
            return
        log.error("house seat stopped: %r", error)
