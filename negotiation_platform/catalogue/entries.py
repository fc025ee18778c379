"""The catalogue: every arena operation, declared once.

An entry names the operation and says what it does, its request and answer models, an example
request, and its implementation (`run`: the method of `Arena`, or of the house seats for a `house`
entry, that takes its request model, checked when built). MCP tools, A2A skills, the remote client (`RemoteArena`)
and the viewer's reads are made from these entries, and every transport runs them through the one
dispatcher (`negotiation_platform.serving.operations.dispatch`): adding an operation is one entry here plus
its implementation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal

from pydantic import BaseModel, JsonValue
from typing_extensions import TypeVar

from negotiation_platform.arena import MAX_WAIT_SECONDS, Arena
from negotiation_platform.arena import requests as rq
from negotiation_platform.arena.paging import MAX_PAGE_EVENTS
from negotiation_platform.arena.protocol import HouseApi
from negotiation_platform.catalogue import answers

PAGED = (
    f"Events come a page at a time (at most {MAX_PAGE_EVENTS}): while `more` is true, call again with "
    "`since` set to the answer's `cursor`."
)
WAITS = f"With wait_seconds > 0 it blocks (up to {MAX_WAIT_SECONDS:g} s) until"


Host = TypeVar("Host", default=Any)
"""What implements an operation: `Arena`, or `HouseApi` for a `house` entry."""
RequestT = TypeVar("RequestT", bound=rq.Request, default=Any)
Answer = dict[str, Any]
Run = Callable[[Host, RequestT], Awaitable[Answer]]


def on_arena(run: Run[Arena, RequestT]) -> Run[Arena, RequestT]:
    """`run`, type-checked as a call of the `Arena` with the entry's request."""
    return run


def on_house(run: Run[HouseApi, RequestT]) -> Run[HouseApi, RequestT]:
    """`run`, type-checked as a call of the house seats with the entry's request."""
    return run


@dataclass(frozen=True)
class Operation(Generic[Host, RequestT]):
    name: str
    description: str
    request: type[RequestT]
    answer: type[BaseModel]
    example: dict[str, JsonValue]
    """A whole request's `arguments`, shown to clients (A2A skills); it validates against `request`."""
    run: Run[Host, RequestT]
    """The implementation called with the checked request (the operation bound to it, not found by name)."""
    host: Literal["arena", "house"] = "arena"
    """What `run` takes: the `Arena`, or the house seats (`HouseApi`, which seat built-in opponents around it)."""

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(n for n, f in self.request.model_fields.items() if f.is_required())

    @property
    def optional(self) -> tuple[str, ...]:
        return tuple(n for n, f in self.request.model_fields.items() if not f.is_required())

    @property
    def seat(self) -> bool:
        """Whether it acts for a seat (and so needs `match_id` and `token`)."""
        return "token" in self.required

    @property
    def arguments_schema(self) -> dict[str, Any]:
        """The JSON Schema of its arguments (no others allowed; an optional one's null is not advertised,
        see `AbsentNotNull`): an MCP tool's input schema, an A2A skill's arguments."""
        return self.request.model_json_schema(schema_generator=rq.AbsentNotNull)

    @property
    def answer_schema(self) -> dict[str, Any]:
        """The JSON Schema of its answer: an MCP tool's output schema."""
        return self.answer.model_json_schema(mode="serialization")


_SEAT = {"match_id": "MATCH_ID", "token": "TOKEN"}

CATALOGUE: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation(
            "list_games",
            "List the installed games with their roles and source package.",
            rq.NoArguments,
            answers.GameList,
            {},
            on_arena(lambda arena, _: arena.list_games()),
        ),
        Operation(
            "get_game_rules",
            "The rules of a game in plain language, and its spec with every payload's JSON Schema.",
            rq.GameRulesRequest,
            answers.GameRules,
            {"game_id": "split_100"},
            on_arena(lambda arena, r: arena.get_game_rules_request(r)),
        ),
        Operation(
            "start_game",
            "Create a match and take its first seat; returns your agent_id and secret token. `opponents` fills "
            "other seats with built-in agents (or 'a2a:URL' remote agents, where the server allows that URL) "
            "that play server-side. On a shared server `seed` does not determine the draws unless it runs "
            "in reproducible mode; the seed used is in get_result once the match is over. `human_seats` keeps "
            "seats for people, who play in the browser from the answer's links (`play_url`, on servers that "
            "serve the play page).",
            rq.StartGameRequest,
            answers.StartedMatch,
            {"game_id": "split_100", "opponents": ["concession"]},
            on_house(lambda house, r: house.start_game_request(r)),
            host="house",
        ),
        Operation(
            "join_game",
            "Take the next free seat of a match; the match starts when every seat is taken.",
            rq.JoinGameRequest,
            answers.JoinedMatch,
            {"match_id": "MATCH_ID", "name": "me"},
            on_arena(lambda arena, r: arena.join_game_request(r)),
        ),
        Operation(
            "get_turn_state",
            "Everything you need now: status, phase, round, whose turn, deadline, allowed actions with payload "
            "schemas, your view, the events since `since`, and the prompt text (unless include_prompt is false). "
            f"{WAITS} it is your turn or something new happened. {PAGED}",
            rq.TurnStateRequest,
            answers.TurnStateAnswer,
            {**_SEAT, "wait_seconds": 30},
            on_arena(lambda arena, r: arena.get_turn_state_request(r)),
        ),
        Operation(
            "send_public_message",
            "Post a message every player sees, if this phase allows public messages.",
            rq.PublicMessageRequest,
            answers.ActionOutcome,
            {**_SEAT, "content": "Shall we split evenly?"},
            on_arena(lambda arena, r: arena.send_public_message_request(r)),
        ),
        Operation(
            "send_private_message",
            "Send a message only the listed players (and you) see, if this phase allows private messages.",
            rq.PrivateMessageRequest,
            answers.ActionOutcome,
            {**_SEAT, "to": ["player_2"], "content": "psst"},
            on_arena(lambda arena, r: arena.send_private_message_request(r)),
        ),
        Operation(
            "perform_action",
            "Take a game action: `action_type` is one of the turn state's allowed_actions, `payload` matches that "
            "action's payload_schema (use {} for actions without payload).",
            rq.ActionRequest,
            answers.ActionOutcome,
            {**_SEAT, "action_type": "propose", "payload": {"mine": 60}},
            on_arena(lambda arena, r: arena.perform_action_request(r)),
        ),
        Operation(
            "leave_game",
            "Resign your seat. Before the match starts the seat is freed; once it runs, your remaining turns "
            "are played as the phase's default move (logged as a timeout, reason 'left the match').",
            rq.SeatRequest,
            answers.LeftMatch,
            dict(_SEAT),
            on_arena(lambda arena, r: arena.leave_game_request(r)),
        ),
        Operation(
            "get_result",
            "The result of a match: agreement, terms and payoffs once finished, otherwise its status.",
            rq.MatchRequest,
            answers.MatchResult,
            {"match_id": "MATCH_ID"},
            on_arena(lambda arena, r: arena.get_result_request(r)),
        ),
        Operation(
            "list_matches",
            "The matches on this server, newest first, with their status, free seats and, once finished, payoffs; "
            "filter by `status` (waiting_for_players, running, finished, abandoned), `game_id` and `created_after` "
            "(created at or after this ISO 8601 time; `since` is its deprecated alias); `limit` (1..500, default "
            "100) per page, and pass `next_cursor` as `cursor` for the next.",
            rq.MatchListRequest,
            answers.MatchList,
            {"status": "finished", "limit": 20},
            on_arena(lambda arena, r: arena.list_matches_request(r)),
        ),
        Operation(
            "watch",
            "Spectate a match without a seat: its status, round, phase, who must act, and the public events after "
            "cursor `since` (a seat's private messages and sealed moves are never shown while it runs). "
            f"{WAITS} something new happened. {PAGED}",
            rq.WatchRequest,
            answers.Spectacle,
            {"match_id": "MATCH_ID", "since": 0, "wait_seconds": 30},
            on_arena(lambda arena, r: arena.watch_request(r)),
        ),
    )
}


def answer_model(name: str) -> type[BaseModel]:
    """The answer model of operation `name` (how a peer process's answer to a forwarded call is read)."""
    return CATALOGUE[name].answer
