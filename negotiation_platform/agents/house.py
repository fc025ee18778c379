"""House seats: built-in agents that play server-side, so one remote client alone can play a match.

Transports call `HouseSeats.start_game(..., opponents=["concession"])`: the match is created, the
caller takes the first seat, and each named built-in agent takes a further seat and plays it as a
background task on the server's event loop, waiting for its turn like any client.

Each such seat is stored with its agent's name and seed, so when a server restarted on the same
store resumes the match, the agent is made again and plays on (a remote `a2a:URL` agent is
contacted again, if the server still allows its URL). A scripted agent decides from the turn
state alone (the random one draws by its seed and its seat's moves in the log it is shown), so it
plays on exactly as it would have.
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

    def __init__(self, arena: Arena, *, play: bool = True) -> None:
        """`play=False` only seats the opponents (a study creating matches for later): the server that
        resumes each match from the store plays them."""
        self.arena = arena
        self.play = play
        self._tasks: set[asyncio.Task[None]] = set()
        if play:
            arena.house_driver = self._play_again

    async def start_game(
        self,
        game_id: str,
        config: dict[str, Any] | None = None,
        seed: int | None = None,
        name: str | None = None,
        opponents: list[str] | None = None,
        human_seats: int | None = None,
    ) -> dict[str, Any]:
        """The arena's `start_game`, then each opponent seated; `human_seats` keeps seats for people
        (their links are in the answer) beside the opponents."""
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
        started = await self.arena.start_game(
            game_id, config=config, seed=seed, name=name, reserve=len(opponents), human_seats=human_seats
        )
        match_id = started["match_id"]
        seated = []
        for index, opponent in enumerate(opponents):
            seed = random.Random(f"{match_id}:{index}").getrandbits(32)
            agent = make_agent(registry, opponent, seed, allow=self.arena.policy.remote_agents)
            joined = await self.arena.join_game(match_id, name=agent.name, house={"agent": opponent, "seed": seed})
            if self.play:
                self._spawn(match_id, SeatHandle(agent, joined["agent_id"], joined["token"]))
            seated.append(joined["agent_id"])
        return {**started, "opponents": seated}

    def _play_again(self, match_id: str, agent_id: str, token: str, house: dict[str, Any]) -> None:
        """A resumed match's server-side seat: make its agent again and play on."""
        spec = house.get("agent")
        if not isinstance(spec, str) or (
            ":" in spec and not self.arena.policy.allows_remote_agent(spec.partition(":")[2])
        ):
            log.warning("match %s: seat %s (%r) is not played again: not allowed here", match_id, agent_id, spec)
            return
        try:
            agent = make_agent(
                self.arena.registry, spec, int(house.get("seed", 0)), allow=self.arena.policy.remote_agents
            )
        except NegotiationError as refused:
            log.warning("match %s: seat %s (%s) is not played again: %s", match_id, agent_id, spec, refused.message)
            return
        self._spawn(match_id, SeatHandle(agent, agent_id, token))

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
