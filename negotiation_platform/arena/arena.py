"""`Arena`: the transport-neutral service every transport and in-process driver talks to.

It owns live matches, seats and their secret tokens, waiting (an agent can wait for its turn
instead of polling) and deadlines. Every operation takes plain JSON-ready arguments and returns
plain JSON-ready dicts; refusals raise `NegotiationError` and change nothing. The argument names
here are the ones every transport reuses. A player in this process can take its seat typed instead
(`seat_for`, see `negotiation_platform.arena.seats`): the operations on a seat are that typed path,
encoded.

Game code runs under a per-match lock; on a served arena it runs off the event loop
(`asyncio.to_thread`), so a slow step of one match never stalls the others or the server. What
a shared server adds (secret seeds, turn clocks, limits, steps off the loop) is its `ArenaPolicy`;
see `negotiation_platform.arena.policy`.

With a store (`use_store`), every call that changes a match writes what it changed before it
answers, and a match not in memory is loaded from the store: adopted and rebuilt by replaying
its events when no other live process holds its lease, otherwise read from the store for calls
that only read (see `negotiation_platform.arena.persistence`). Without one, matches live in
memory only. Seat tokens are kept as hashes either way. Readers see only what is committed: they
read under the match's lock, and never a copy forgotten because its store write failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable, Set
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from negotiation_platform.arena.arguments import (
    MAX_ARGUMENT_CHARS,
    cursor_argument,
    match_query,
    seat_id_base,
    text_argument,
)
from negotiation_platform.arena.clocks import TurnClocks
from negotiation_platform.arena.committer import Committer
from negotiation_platform.arena.game_configs import game_config
from negotiation_platform.arena.limits import CALLER, check_limits
from negotiation_platform.arena.listing import listed, live_result, page_of, result_of
from negotiation_platform.arena.live import LiveMatch, Seat
from negotiation_platform.arena.match_table import MatchTable, unknown_match
from negotiation_platform.arena.match_views import spectator_state, turn_state
from negotiation_platform.arena.persistence import match_record
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.arena.requests import (
    ActionRequest,
    GameRulesRequest,
    JoinGameRequest,
    MatchListRequest,
    MatchRequest,
    PrivateMessageRequest,
    PublicMessageRequest,
    SeatRequest,
    StartGameRequest,
    TurnStateRequest,
    WatchRequest,
)
from negotiation_platform.arena.rollback import start_match
from negotiation_platform.arena.seat_access import SeatAccess
from negotiation_platform.arena.seat_links import HUMAN_NAME, human_seat_count, seat_link
from negotiation_platform.arena.seats import LocalSeat, SeatMoves
from negotiation_platform.arena.waiting import Waiters
from negotiation_platform.engine.spectator import rewound, spectator_events, spectator_view
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.spec.rules_text import render_rules
from negotiation_platform.store.records import token_hash
from negotiation_platform.wire.unicode_text import unicode_text

if TYPE_CHECKING:
    from negotiation_platform.arena.forwarding import Peers
    from negotiation_platform.arena.persistence import Persistence

log = logging.getLogger(__name__)
Config = dict[str, JsonValue]
"""A game config as a client sends it (JSON), read by the game's config model."""
HouseDriver = Callable[[str, str, str, dict[str, JsonValue]], None]
"""(match_id, agent_id, token, house) -> None: plays a server-side seat again after its match was resumed."""
__all__ = ["MAX_ARGUMENT_CHARS", "Arena", "LiveMatch", "Seat", "game_config"]
"""What this module gives: the arena, and (from where they moved) its live matches, seats, argument bound
and config parsing."""


class Arena:
    """Live matches, seats and waiting, behind the operations of the design.

    A facade over collaborators with one job each: the match table (`match_table`: find, load,
    evict, lease), the committer (`committer`: change, save or undo), the turn clocks (`clocks`),
    waiting (`waiting`), seat access (`seat_access`: credentials to seats) and the seats' moves
    (`seats`).

    `policy` defaults to the in-process one (reproducible seeds, no clocks or limits); a server
    passes `ArenaPolicy.served(...)`. It is fixed at construction: `policy` is read-only.
    """

    def __init__(
        self,
        registry: Registry | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        new_match_id: Callable[[], str] = lambda: uuid.uuid4().hex[:12],
        policy: ArenaPolicy | None = None,
    ) -> None:
        self.registry = registry if registry is not None else Registry()
        self._policy = policy if policy is not None else ArenaPolicy()
        self._clock = clock
        self._new_match_id = new_match_id
        self._table = table = MatchTable(self.registry, clock)
        table.adopted = self._adopted
        self._committer = committer = Committer(table, self._policy, clock)
        self._clocks = clocks = TurnClocks(table, committer, self._policy, clock)
        self._access = SeatAccess(table)
        self._waiters = Waiters(table, clock)
        self._moves = SeatMoves(table, committer, clocks, self._access, self._waiters, self._policy, clock)
        self.house_driver: HouseDriver | None = None
        """Set by whoever seats server-side players (`HouseSeats`): called for each such seat of a resumed match."""
        self.peers: Peers | None = None
        """Set by a server with a peer secret: changes of matches other processes hold are forwarded (`forwarding`)."""

    @property
    def policy(self) -> ArenaPolicy:
        """What this arena allows and guarantees: given to `Arena(policy=...)` and fixed from then on
        (no setter: clocks, limits and draws already armed under one policy never meet another)."""
        return self._policy

    # --- the store ------------------------------------------------------------------------

    def use_store(self, persistence: Persistence) -> None:
        """Keep every match in `persistence`'s store from now on (set before serving)."""
        self._table.persistence = persistence

    @property
    def persistence(self) -> Persistence | None:
        """The store this arena keeps its matches in (see `use_store`); None: memory only."""
        return self._table.persistence

    async def resume(self) -> int:
        """Adopt every unfinished match of the store that no live process holds; returns how many.

        Each is rebuilt by replaying its events: seats keep their tokens and cursors, every seat
        due to act gets a fresh turn clock, and server-side seats are handed to `house_driver`.
        """
        return await self._table.resume()

    async def close(self) -> None:
        """Stop renewing leases and give them up, so another process may adopt the matches at once."""
        await self._table.close()

    # --- what this process holds, for its host (metrics, request logs, tests) ---------------

    def held(self, match_id: str) -> LiveMatch | None:
        """The match if this process holds it (plays it), as it is in memory now; never read from the store."""
        return self._table.get(match_id)

    def held_matches(self) -> list[LiveMatch]:
        """Every match this process holds now (not the read-only copies of others' it follows)."""
        return [live for live in self._table.held() if live.follower is None]

    def seat_of(self, match_id: str | None, credential: object) -> str | None:
        """The agent id of the seat whose token (or A2A context id) is `credential`, in a match held here."""
        seat = self._access.held_seat(match_id, credential)
        return seat.agent_id if seat is not None else None

    # --- catalogue ------------------------------------------------------------------------

    async def list_games(self) -> dict[str, Any]:
        return {"games": [entry.summary() for entry in self.registry.games().values()]}

    async def get_game_rules(self, game_id: str, config: Config | None = None) -> dict[str, Any]:
        return await self.get_game_rules_request(
            GameRulesRequest.read({"game_id": game_id, "config": config}, "get_game_rules")
        )

    async def get_game_rules_request(self, request: GameRulesRequest) -> dict[str, Any]:
        entry = self.registry.game(request.game_id)
        spec = entry.cls.spec_for(game_config(entry, request.config))
        return {"game_id": entry.game_id, "rules": render_rules(spec), "spec": spec.model_dump(mode="json")}

    # --- seats ----------------------------------------------------------------------------

    async def start_game(
        self,
        game_id: str,
        config: Config | None = None,
        seed: int | None = None,
        name: str | None = None,
        *,
        reserve: int = 0,
        human_seats: int | None = None,
    ) -> dict[str, Any]:
        """`start_game_request` of these values (read as the operation's request, checked)."""
        values = {"game_id": game_id, "config": config, "seed": seed, "name": name, "human_seats": human_seats}
        return await self.start_game_request(StartGameRequest.read(values, "start_game"), reserve=reserve)

    async def start_game_request(self, request: StartGameRequest, *, reserve: int = 0) -> dict[str, Any]:
        """Create a match and take its first seat; returns the seat's secret token. (Its `opponents` are
        the house seats', which seat them around this call.)

        The match's draws come from `seed` only in a reproducible arena; a served one derives
        them from its secret (see `ArenaPolicy`), and reveals the seed used once the match is over.
        `reserve` (never a transport argument) holds that many seats for house players the caller
        seats next (`join_game(house=...)`): nobody else may take them, and no one waits for them.
        `human_seats` takes that many more seats at once, for people, and answers their tokens and
        play links (see `seat_links`).
        """
        entry, name = self.registry.game(request.game_id), request.name
        parsed = game_config(entry, request.config)
        spec = entry.cls.spec_for(parsed)
        reserve = min(max(reserve, 0), spec.roles.min_players - 1)
        humans = human_seat_count(request.human_seats, spec.roles.min_players - 1 - reserve)
        caller = CALLER.get()
        creator = caller.key() if caller is not None else None
        await self._evict()
        check_limits(self.policy, self._table.held_now(), creator)
        match_id = self._new_match_id()
        live = LiveMatch(
            match_id=match_id,
            entry=entry,
            config=parsed.model_dump(mode="json"),
            settings=parsed,
            seed=self.policy.match_seed(match_id, request.seed),
            seats_total=spec.roles.min_players,
            creator=creator,
            reserved=reserve + humans,
            held_since=self._clock(),
        )
        self._table.add(live)
        try:
            seat, token = await self._take_seat(live, name, None)
            people = [await self._take_seat(live, HUMAN_NAME, None, kept=True) for _ in range(humans)]
        except BaseException:
            self._table.drop(live)
            raise
        self._table.keep_leases()
        base = self.policy.play_base_url
        started = {"match_id": match_id, "agent_id": seat.agent_id, "token": token, "seats": live.seats_total}
        if humans:
            started["human_seats"] = [
                {"agent_id": s.agent_id, "token": t, "play_url": seat_link(base, match_id, t).get("play_url")}
                for s, t in people
            ]
        return {**started, **seat_link(base, match_id, token)}

    async def join_game(
        self, match_id: str, name: str | None = None, *, house: dict[str, JsonValue] | None = None
    ) -> dict[str, Any]:
        """`join_game_request` of these values (read as the operation's request, checked)."""
        request = JoinGameRequest.read({"match_id": match_id, "name": name}, "join_game")
        return await self.join_game_request(request, house=house)

    async def join_game_request(
        self, request: JoinGameRequest, *, house: dict[str, JsonValue] | None = None
    ) -> dict[str, Any]:
        """Take the next free seat of a match; the match starts when the last seat is taken.

        `house` (never a transport argument) marks a seat the server plays itself, with what
        rebuilds its player (JSON): a resumed match hands it to `house_driver` with a fresh token.
        """
        live = await self._table.find(request.match_id, write=True)
        seat, token = await self._take_seat(live, request.name, house)
        return {"agent_id": seat.agent_id, "token": token, **seat_link(self.policy.play_base_url, live.match_id, token)}

    async def leave_game(self, match_id: str, token: str) -> dict[str, Any]:
        """`leave_game_request` of these values (read as the operation's request, checked)."""
        return await self.leave_game_request(SeatRequest.read({"match_id": match_id, "token": token}, "leave_game"))

    async def leave_game_request(self, request: SeatRequest) -> dict[str, Any]:
        """Give up a seat. Before the match starts the seat is freed, and the match is dropped when its
        creator leaves (its other seats may be built-in opponents nobody else wants); once it runs,
        every later turn of the seat is its default move, logged as a timeout with the reason "left
        the match", so the others can finish. The token can still read a running match."""
        live, seat = await self._access.seat(request.match_id, request.token, write=True)
        async with live.lock:
            if live.match is None:
                if seat is live.seats[0]:
                    await self._committer.mutate(live, lambda: self._committer.save(live, status="abandoned"))
                    self._table.drop(live)
                    live.seats.clear()
                    live.signal()
                else:
                    await self._committer.mutate(live, lambda: self._committer.save(live, unseated=seat.agent_id))
                    live.seats.remove(seat)
            elif live.match.finished:
                raise NegotiationError(ErrorCode.MATCH_OVER, "The match is over; there is nothing to leave.")
            else:
                live.left.add(seat.agent_id)
                before = len(live.match.events)
                try:
                    await self._committer.mutate(
                        live, lambda: self._committer.play_and_save(live, before, left=seat.agent_id)
                    )
                except NegotiationError:
                    live.left.discard(seat.agent_id)
                    raise
        self._clocks.settled(live)
        return {"ok": True, "status": live.status if self._table.get(live.match_id) is not None else "abandoned"}

    # --- per-seat operations --------------------------------------------------------------

    async def seat_for(self, match_id: str, token: str) -> LocalSeat:
        """The seat `token` holds in the match, for a player in this process (see `LocalSeat`)."""
        live, seat = await self._access.seat(unicode_text("match_id", match_id), token)
        return LocalSeat(self._moves, live, seat, token)

    async def seat_all(
        self, game_id: str, names: list[str], *, config: Config | None = None, seed: int | None = None
    ) -> list[LocalSeat]:
        """A new match with a seat for each of `names` in order, for players in this process: `start_game`
        with the first name, then the next seat for each other one as `join_game` takes it (each name
        checked where it comes in), answered as their `LocalSeat`s, made from the seats themselves rather
        than found again by token. A game with another number of seats raises ValueError once the first
        seat is taken, as a `start_game` then `join_game`s would find out."""
        started = await self.start_game(game_id, config, seed, names[0])
        if started["seats"] != len(names):
            raise ValueError(f"{game_id} has {started['seats']} seats; got {len(names)} agents")
        live = await self._table.find(started["match_id"], write=True)
        seats = [LocalSeat(self._moves, live, live.seats[0], started["token"])]
        for name in names[1:]:
            live = await self._table.find(live.match_id, write=True)
            seat, token = await self._take_seat(live, text_argument("name", name), None)
            seats.append(LocalSeat(self._moves, live, seat, token))
        return seats

    async def get_turn_state(
        self,
        match_id: str,
        token: str,
        since: int | None = None,
        wait_seconds: float = 0,
        include_prompt: bool = True,
    ) -> dict[str, Any]:
        """`get_turn_state_request` of these values (read as the operation's request, checked)."""
        values = {"since": since, "wait_seconds": wait_seconds, "include_prompt": include_prompt}
        request = TurnStateRequest.read({"match_id": match_id, "token": token, **values}, "get_turn_state")
        return await self.get_turn_state_request(request)

    async def get_turn_state_request(self, request: TurnStateRequest) -> dict[str, Any]:
        """Everything the seat needs now; waits up to `wait_seconds` for its turn or something new.

        `include_prompt=False` leaves out the prompt text, for agents that read only the data.
        """
        cursor, include_prompt = request.since or 0, request.include_prompt

        def find() -> Awaitable[tuple[LiveMatch, Seat]]:
            return self._access.seat(request.match_id, request.token)

        if not request.wait_seconds:  # no wait: one read (most calls)
            return (await self._moves.read_turn(find, cursor, include_prompt)).to_dict()

        async def locate() -> tuple[LiveMatch, Callable[[], dict[str, Any]]]:
            live, seat = await find()
            return live, lambda: turn_state(live, seat, cursor, include_prompt, self.policy, self._clock)

        return await self._waiters.wait_for(locate, request.wait_seconds, lambda state: bool(state["your_turn"]))

    async def watch(self, match_id: str, since: int | None = None, wait_seconds: float = 0) -> dict[str, Any]:
        """`watch_request` of these values (read as the operation's request, checked)."""
        values = {"match_id": match_id, "since": since, "wait_seconds": wait_seconds}
        return await self.watch_request(WatchRequest.read(values, "watch"))

    async def watch_request(self, request: WatchRequest) -> dict[str, Any]:
        """A spectator's view of a match: its status and the public events after cursor `since`; waits up
        to `wait_seconds` for something new. Needs no seat. A seat's private messages and sealed moves
        are never shown while the match runs, nor after it unless the policy reveals finished matches."""
        cursor = request.since or 0

        async def locate() -> tuple[LiveMatch, Callable[[], dict[str, Any]]]:
            live = await self._table.find(request.match_id)
            return live, lambda: spectator_state(live, cursor, self.policy)

        return await self._waiters.wait_for(locate, request.wait_seconds, lambda _: False)

    async def spectate(self, match_id: str, at: int | None = None) -> dict[str, Any]:
        """The game as a spectator may see it once event `at` was logged (default: now), for drawing
        boards: `watch`'s answer with the game's public view (`view`) and the events seen up to then
        (`events`). Earlier states are rebuilt by replaying the match's inputs, off the event loop.
        For viewers; not a transport operation (the draws of a running match never leave the server)."""

        held_id = unicode_text("match_id", match_id)  # not a request: checked here, where it comes in

        async def find() -> tuple[LiveMatch, None]:
            return await self._table.find(held_id), None

        upto = None if at is None else cursor_argument(at)
        async with self._table.committed(find) as (live, _):
            state = spectator_state(live, 0, self.policy, with_events=False)
            match = live.match
            if match is None:
                return {**state, "at": 0, "view": None, "events": []}
            revealed = state["revealed"]
            events = list(match.events)
            upto = len(events) if upto is None else min(upto, len(events))
            view = spectator_view(match, revealed) if upto == len(events) else None
        if view is None:
            view = spectator_view(await asyncio.to_thread(rewound, match, events, upto), revealed)
        return {
            **state,
            "at": upto,
            "view": view,
            "events": [e.to_dict() for e in spectator_events(events[:upto], revealed)],
        }

    async def send_public_message(self, match_id: str, token: str, content: str) -> dict[str, Any]:
        """`send_public_message_request` of these values (read as the operation's request, checked)."""
        values = {"match_id": match_id, "token": token, "content": content}
        return await self.send_public_message_request(PublicMessageRequest.read(values, "send_public_message"))

    async def send_public_message_request(self, request: PublicMessageRequest) -> dict[str, Any]:
        live, seat = await self._access.running(request.match_id, request.token)
        return (await self._moves.say(live, seat, request.content, None)).to_dict()

    async def send_private_message(self, match_id: str, token: str, to: list[str], content: str) -> dict[str, Any]:
        """`send_private_message_request` of these values (read as the operation's request, checked)."""
        values = {"match_id": match_id, "token": token, "to": to, "content": content}
        return await self.send_private_message_request(PrivateMessageRequest.read(values, "send_private_message"))

    async def send_private_message_request(self, request: PrivateMessageRequest) -> dict[str, Any]:
        live, seat = await self._access.running(request.match_id, request.token)
        return (await self._moves.say(live, seat, request.content, request.to)).to_dict()

    async def perform_action(
        self, match_id: str, token: str, action_type: str, payload: dict[str, JsonValue] | None = None
    ) -> dict[str, Any]:
        """`perform_action_request` of these values (read as the operation's request, checked)."""
        values = {"match_id": match_id, "token": token, "action_type": action_type, "payload": payload}
        return await self.perform_action_request(ActionRequest.read(values, "perform_action"))

    async def perform_action_request(self, request: ActionRequest) -> dict[str, Any]:
        live, seat = await self._access.running(request.match_id, request.token)
        return (await self._moves.act(live, seat, request.action_type, request.payload)).to_dict()

    async def play_default(self, match_id: str, token: str, reason: str) -> dict[str, Any]:
        """Forfeit the seat's move: the phase's default action is played and the reason logged.

        For hosts that relay a remote agent (a late, garbled or illegal reply); not a transport operation.
        """
        live, seat = await self._access.running(unicode_text("match_id", match_id), token)
        return (await self._moves.forfeit(live, seat, text_argument("reason", reason))).to_dict()

    async def bind_context(self, match_id: str, token: str) -> str:
        """A fresh context id for the seat: `MATCH_ID.SECRET` (192 random bits), a second credential for
        it that any process reading the match recognises (its hash is kept with the seat, as the
        token's is, in memory and in the store), and that lives as long as the seat's token.
        For transports whose conversations carry an id (A2A); not a transport operation."""
        live, seat = await self._access.seat(unicode_text("match_id", match_id), token, write=True)
        context_id = f"{live.match_id}.{secrets.token_urlsafe(24)}"
        bound = (seat.agent_id, token_hash(context_id))
        async with live.lock:
            await self._committer.mutate(live, partial(self._committer.save, live, None, context_hash=bound))
            seat.context_hash = bound[1]
        return context_id

    async def context_match(self, context_id: str) -> str | None:
        """The match whose seat `context_id` (from `bind_context`) is bound to; None for any other id."""
        match_id, dot, _ = unicode_text("context_id", context_id).rpartition(".")
        if not dot:
            return None
        try:
            await self._access.seat(match_id, context_id)
        except NegotiationError as refused:
            if refused.code in (ErrorCode.UNKNOWN_MATCH, ErrorCode.FORBIDDEN):
                return None
            raise
        return match_id

    # --- results and listing --------------------------------------------------------------

    async def get_result(self, match_id: str) -> dict[str, Any]:
        """`get_result_request` of this match id (read as the operation's request, checked)."""
        return await self.get_result_request(MatchRequest.read({"match_id": match_id}, "get_result"))

    async def get_result_request(self, request: MatchRequest) -> dict[str, Any]:
        """The result once finished (the seed used included), otherwise the status; from the store
        when the match is not in memory (finished long ago, or played by another process)."""
        match_id = request.match_id
        live = self._table.get(match_id)
        if live is not None and live.follower is None:
            if not live.lock.locked() and self._table.holds(live):  # no change under way: read at once
                return live_result(live)
            async with live.lock:  # what is committed: not a change whose store write is still running
                if self._table.holds(live):
                    return live_result(live)
        persist = self._table.persistence
        if persist is None:
            raise unknown_match(match_id)
        record = await persist.read(lambda: persist.store.get_match(match_id))
        if record is None:
            raise unknown_match(match_id)
        return result_of(record)

    async def list_matches(
        self,
        status: str | None = None,
        game_id: str | None = None,
        since: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> dict[str, Any]:
        """`list_matches_request` of these values (read as the operation's request; `since` is its `created_after`)."""
        values = {"status": status, "game_id": game_id, "created_after": since, "limit": limit, "cursor": cursor}
        return await self.list_matches_request(MatchListRequest.read(values, "list_matches"))

    async def list_matches_request(self, request: MatchListRequest) -> dict[str, Any]:
        """Matches newest first, filtered by status, game and creation time (ISO 8601 `since`), a page
        at a time (`next_cursor`), and the limits that apply. With a store: every match it holds,
        whichever process plays it; without one: those in memory (finished ones leave after a while)."""
        query = match_query(request)
        await self._evict()
        persist = self._table.persistence
        if persist is not None:
            page = await persist.read(lambda: persist.store.list_matches(query))
            records, next_cursor = page.matches, page.next_cursor
        else:
            held = []
            for live in [m for m in self._table.held() if m.follower is None]:
                async with live.lock:  # each as committed, not halfway through a step
                    held += [match_record(live)] if self._table.holds(live) else []
            records, next_cursor = page_of(held, query)
        return {"limits": self.policy.limits(), "matches": [listed(r) for r in records], "next_cursor": next_cursor}

    def events(self, match_id: str, *, seen_by: Set[str] | None = None) -> list[dict[str, Any]]:
        """The whole log of a match in memory, for its host (a CLI or a test), never exposed to a seat;
        with `seen_by`, only the events one of those agents may see."""
        live = self._table.get(match_id)
        if live is None:
            raise unknown_match(match_id)
        return live.match.events.dicts(seen_by) if live.match is not None else []

    # --- internals ------------------------------------------------------------------------

    async def _evict(self) -> None:
        """Forget matches finished, or still waiting for players, longer than the policy's TTL
        (the store keeps finished ones; the waiting ones are abandoned there)."""
        ttl = self.policy.finished_ttl
        if ttl is None:
            return
        for live in self._table.stale(self._clock(), ttl):
            if live.match is None and self._table.persistence is not None:
                with contextlib.suppress(NegotiationError):
                    await self._committer.mutate(live, partial(self._committer.save, live, None, status="abandoned"))
            self._table.drop(live)

    async def _take_seat(
        self, live: LiveMatch, name: str | None, house: dict[str, JsonValue] | None, *, kept: bool = False
    ) -> tuple[Seat, str]:
        """Seat a new player, in a reserved seat for a house player or a `kept` one; returns the seat and
        its token (which only its hash is kept of)."""
        kept = kept or house is not None
        async with live.lock:
            if len(live.seats) + (0 if kept else live.reserved) >= live.seats_total:
                raise NegotiationError(ErrorCode.MATCH_FULL, f"Match {live.match_id} has no free seat.")
            taken = {s.agent_id for s in live.seats}
            base = seat_id_base(name) or f"player_{len(live.seats) + 1}"
            agent_id, n = base, 1
            while agent_id in taken:
                n += 1
                agent_id = f"{base}_{n}"
            token = secrets.token_urlsafe(24)
            caller = CALLER.get() if house is None else None
            seat = Seat(agent_id, token_hash(token), name or agent_id, house, caller.key() if caller else None)
            if len(live.seats) + 1 == live.seats_total:
                live.match = await self._committer.step(start_match, live, [*live.players(), agent_id], self._clock)
            live.seats.append(seat)
            if kept and live.reserved:
                live.reserved -= 1
            live.seated_at = self._clock()
            if self._table.persistence is not None:
                await self._committer.mutate(live, lambda: self._committer.save_seat(live, seat))
        self._clocks.settled(live)
        return seat, token

    async def _adopted(self, live: LiveMatch) -> None:
        """A match just adopted from the store: its server-played seats play again, its clocks run."""
        if live.status != "finished" and self.house_driver is not None:
            for seat in live.seats:
                if seat.house is None or seat.agent_id in live.left:
                    continue
                # a fresh token (only hashes are stored) for the house driver, which plays the seat again
                token = secrets.token_urlsafe(24)
                change = (seat.agent_id, token_hash(token))
                await self._committer.mutate(live, partial(self._committer.save, live, None, new_token_hash=change))
                seat.token_hash = change[1]
                self.house_driver(live.match_id, seat.agent_id, token, seat.house)
        self._clocks.settled(live)
