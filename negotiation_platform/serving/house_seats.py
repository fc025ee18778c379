"""House seats: built-in agents that play server-side, so one remote client alone can play a match.

Transports call `HouseSeats.start_game(..., opponents=["concession"])`: every opponent is checked
and made, then the match is created, the caller takes the first seat, and each named agent takes a
further seat and plays it as a background task on the server's event loop, waiting for its turn
like any client.

Each such seat is stored with its agent's name, its seed and who seated it (the operator or a
client, see `seating`), so when a server restarted on the same store resumes the match, the agent is
made again, checked as it was when seated, and plays on (a remote `a2a:URL` agent is contacted
again, if the server still allows its URL; an operator's `llm:MODEL` seat calls this server's
endpoint). A scripted agent decides from the turn state alone (the random one draws by its seed and
its seat's moves in the log it is shown), so it plays on exactly as it would have.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

from pydantic import JsonValue

from negotiation_platform.agents.base import Agent
from negotiation_platform.agents.catalog import make_agent
from negotiation_platform.agents.driver import SeatHandle, run_seat
from negotiation_platform.agents.seating import SeatedBy
from negotiation_platform.arena import Arena
from negotiation_platform.arena.requests import GameRulesRequest, StartGameRequest
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
        config: dict[str, JsonValue] | None = None,
        seed: int | None = None,
        name: str | None = None,
        opponents: list[str] | None = None,
        human_seats: int | None = None,
        *,
        by: SeatedBy = SeatedBy.CLIENT,
    ) -> dict[str, Any]:
        """`start_game_request` of these values (read as the operation's request, checked)."""
        values = {"game_id": game_id, "config": config, "seed": seed, "name": name, "opponents": opponents}
        request = StartGameRequest.read({**values, "human_seats": human_seats}, "start_game")
        return await self.start_game_request(request, by=by)

    async def start_game_request(self, request: StartGameRequest, *, by: SeatedBy = SeatedBy.CLIENT) -> dict[str, Any]:
        """The arena's `start_game`, then each opponent seated; `human_seats` keeps seats for people
        (their links are in the answer) beside the opponents. `by` says who seats the opponents (a
        client unless the operator says so): every opponent is checked and made before the match
        exists, so a refusal leaves nothing behind."""
        game_id, seed, opponents = request.game_id, request.seed, list(request.opponents or [])
        rules = GameRulesRequest.model_construct(game_id=game_id, config=request.config)  # checked: the request's
        seats = (await self.arena.get_game_rules_request(rules))["spec"]["roles"]["min_players"]
        if len(opponents) > seats - 1:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT, f"{game_id} has {seats} seats: at most {seats - 1} opponents."
            )
        draws = self._seed_draws(game_id, seed)
        seeds = [draws.getrandbits(32) for _ in opponents]
        agents = [self._make(spec, agent_seed, by) for spec, agent_seed in zip(opponents, seeds, strict=True)]
        started = await self.arena.start_game_request(request, reserve=len(opponents))
        match_id = started["match_id"]
        seated = []
        for spec, agent_seed, agent in zip(opponents, seeds, agents, strict=True):
            house: dict[str, JsonValue] = {"agent": spec, "seed": agent_seed, "by": by.value}
            joined = await self.arena.join_game(match_id, agent.name, house=house)
            if self.play:
                self._spawn(match_id, SeatHandle(agent, joined["agent_id"], joined["token"]))
            seated.append(joined["agent_id"])
        return {**started, "opponents": seated}

    def _seed_draws(self, game_id: str, seed: int | None) -> random.Random:
        """Where the opponents' seeds come from: the match's seed in a reproducible arena (the same seed,
        the same opponents), else fresh randomness (a client cannot predict a house agent's draws)."""
        if self.arena.policy.reproducible and seed is not None:
            return random.Random(f"{game_id}:{seed}")
        return random.SystemRandom()

    def _make(self, spec: str, seed: int, by: SeatedBy) -> Agent:
        policy = self.arena.policy
        return make_agent(
            self.arena.registry, spec, seed, allow=policy.remote_agents, by=by, offered=policy.offered_agents
        )

    def _play_again(self, match_id: str, agent_id: str, token: str, house: dict[str, JsonValue]) -> None:
        """A resumed match's server-side seat: make its agent again, checked as it was when seated (a seat
        the operator seated, as a study's, plays on; one without that mark counts as a client's), and play on."""
        spec, by = house.get("agent"), SeatedBy.OPERATOR if house.get("by") == "operator" else SeatedBy.CLIENT
        try:
            agent = self._make(spec, int(house.get("seed", 0)), by)  # type: ignore[arg-type]  # check_agent checks it
        except NegotiationError as refused:
            log.warning("match %s: seat %s (%r) is not played again: %s", match_id, agent_id, spec, refused.message)
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
