"""The operations every transport exposes, by name: what each does, its arguments, and one dispatcher.

MCP tools and A2A skills are described from this table, and message-based transports (A2A)
dispatch `{"operation": NAME, "arguments": {...}}` through `run_operation`, so a new transport
cannot drift from the others.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from negotiation_platform.agents.house import HouseSeats
from negotiation_platform.arena import MAX_WAIT_SECONDS
from negotiation_platform.arena.forwarding import forward
from negotiation_platform.arena.limits import CALLER, Caller
from negotiation_platform.arena.paging import MAX_PAGE_EVENTS
from negotiation_platform.arena.policy import MAX_SEED
from negotiation_platform.arena.seat_links import MAX_HUMAN_SEATS
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.observability.requests import observed_operation
from negotiation_platform.unicode_text import not_unicode, text_problem

MAX_NESTING = 64
"""Deepest nesting of lists and objects accepted in any argument."""


ARGUMENTS: dict[str, dict[str, Any]] = {
    "game_id": {"type": "string", "description": "A game id from list_games, e.g. 'split_100'."},
    "config": {
        "type": "object",
        "description": "Game config overriding defaults; see the spec from get_game_rules.",
    },
    "seed": {
        "type": "integer",
        "minimum": -MAX_SEED,
        "maximum": MAX_SEED,
        "description": "Seed; determines the draws only on a server in reproducible mode.",
    },
    "name": {"type": "string", "description": "Your display name; becomes your agent id."},
    "opponents": {
        "type": "array",
        "items": {"type": "string"},
        "description": "Built-in agents for the other seats, e.g. ['concession'], or 'a2a:URL' if allowed.",
    },
    "human_seats": {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_HUMAN_SEATS,
        "description": "Seats to keep for people (default 0; at most the seats left besides yours and the "
        "opponents'); the answer lists each one's agent_id, token and play_url (the browser page's link).",
    },
    "match_id": {"type": "string", "description": "The match id returned by start_game or list_matches."},
    "token": {"type": "string", "description": "Your secret seat token from start_game or join_game."},
    "since": {"type": "integer", "minimum": 0, "description": "The `cursor` of your last call."},
    "wait_seconds": {
        "type": "number",
        "minimum": 0,
        "maximum": MAX_WAIT_SECONDS,
        "description": "How long to wait for your turn or news.",
    },
    "include_prompt": {
        "type": "boolean",
        "description": "Include the game's prompt text (false: only the data, a smaller answer).",
    },
    "content": {"type": "string", "description": "The message text."},
    "to": {"type": "array", "items": {"type": "string"}, "description": "Agent ids of the recipients."},
    "action_type": {"type": "string", "description": "One of the turn state's allowed_actions, e.g. 'propose'."},
    "payload": {
        "type": "object",
        "description": "The action's payload, matching that action's payload_schema ({} or left out for none).",
    },
}
"""The JSON Schema of every argument an operation takes, by name (the same name means the same thing)."""


MATCH_FILTERS: dict[str, dict[str, Any]] = {
    "status": {
        "type": "string",
        "enum": ["waiting_for_players", "running", "finished", "abandoned"],
        "description": "Only matches in this status.",
    },
    "game_id": {"type": "string", "description": "Only matches of this game."},
    "since": {"type": "string", "description": "Only matches created at or after this ISO 8601 time."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 500, "description": "Matches per page (default 100)."},
    "cursor": {"type": "string", "description": "The `next_cursor` of the page before."},
}
"""`list_matches`' own arguments: there `since` is a time, not an event cursor."""


PAGED = (
    f"Events come a page at a time (at most {MAX_PAGE_EVENTS}): while `more` is true, call again with "
    "`since` set to the answer's `cursor`."
)


@dataclass(frozen=True)
class Operation:
    description: str
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    own: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Schemas of arguments that mean something else here than in `ARGUMENTS`."""

    def schema_of(self, argument: str) -> dict[str, Any]:
        return self.own.get(argument) or ARGUMENTS[argument]

    @property
    def seat(self) -> bool:
        """Whether it acts for a seat (and so needs `match_id` and `token`)."""
        return "token" in self.required

    @property
    def arguments_schema(self) -> dict[str, Any]:
        """The JSON Schema of the operation's `arguments` object: each argument typed, no others allowed."""
        return {
            "type": "object",
            "properties": {name: self.schema_of(name) for name in self.required + self.optional},
            "required": list(self.required),
            "additionalProperties": False,
        }


OPERATIONS: dict[str, Operation] = {
    "list_games": Operation("List the installed games with their roles and source package."),
    "get_game_rules": Operation(
        "The rules of a game in plain language, and its spec with every payload's JSON Schema.",
        ("game_id",),
        ("config",),
    ),
    "start_game": Operation(
        "Create a match and take its first seat; returns your agent_id and secret token. `opponents` fills "
        "other seats with built-in agents (or 'a2a:URL' remote agents, where the server allows that URL) "
        "that play server-side. On a shared server `seed` does not determine the draws unless it runs "
        "in reproducible mode; the seed used is in get_result once the match is over. `human_seats` keeps seats "
        "for people, who play in the browser from the answer's links (`play_url`, on servers that serve the "
        "play page).",
        ("game_id",),
        ("config", "seed", "name", "opponents", "human_seats"),
    ),
    "join_game": Operation(
        "Take the next free seat of a match; the match starts when every seat is taken.", ("match_id",), ("name",)
    ),
    "get_turn_state": Operation(
        "Everything you need now: status, phase, round, whose turn, deadline, allowed actions with payload "
        "schemas, your view, the events since `since`, and the prompt text (unless include_prompt is false). "
        f"With wait_seconds > 0 it blocks (up to {MAX_WAIT_SECONDS:g} s) until it is your turn or something "
        f"new happened. {PAGED}",
        ("match_id", "token"),
        ("since", "wait_seconds", "include_prompt"),
    ),
    "send_public_message": Operation(
        "Post a message every player sees, if this phase allows public messages.",
        ("match_id", "token", "content"),
    ),
    "send_private_message": Operation(
        "Send a message only the listed players (and you) see, if this phase allows private messages.",
        ("match_id", "token", "to", "content"),
    ),
    "perform_action": Operation(
        "Take a game action: `action_type` is one of the turn state's allowed_actions, `payload` matches that "
        "action's payload_schema (use {} for actions without payload).",
        ("match_id", "token", "action_type"),
        ("payload",),
    ),
    "leave_game": Operation(
        "Resign your seat. Before the match starts the seat is freed; once it runs, your remaining turns "
        "are played as the phase's default move (logged as a timeout, reason 'left the match').",
        ("match_id", "token"),
    ),
    "get_result": Operation(
        "The result of a match: agreement, terms and payoffs once finished, otherwise its status.", ("match_id",)
    ),
    "list_matches": Operation(
        "The matches on this server, newest first, with their status, free seats and, once finished, payoffs; "
        "filter by `status` (waiting_for_players, running, finished, abandoned), `game_id` and `since` "
        "(created at or after this ISO 8601 time); `limit` (1..500, default 100) per page, and pass `next_cursor` "
        "as `cursor` for the next.",
        (),
        tuple(MATCH_FILTERS),
        MATCH_FILTERS,
    ),
    "watch": Operation(
        "Spectate a match without a seat: its status, round, phase, who must act, and the public events after "
        "cursor `since` (a seat's private messages and sealed moves are never shown while it runs). With "
        f"wait_seconds > 0 it blocks (up to {MAX_WAIT_SECONDS:g} s) until something new happened. {PAGED}",
        ("match_id",),
        ("since", "wait_seconds"),
    ),
}


@observed_operation
async def run_operation(
    house: HouseSeats, name: str, arguments: dict[str, Any], *, caller: Caller | None = None
) -> dict[str, Any]:
    """Run an operation by name with keyword arguments; refusals raise NegotiationError.

    `caller` is who asks as the transport knows it (its address and session): the arena's
    per-caller limits count by it.
    """
    operation = OPERATIONS.get(name) if isinstance(name, str) else None
    if operation is None:
        raise NegotiationError(ErrorCode.UNKNOWN_OPERATION, f"No operation {name!r}; operations: {sorted(OPERATIONS)}.")
    if not isinstance(arguments, dict):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "`arguments` must be an object.")
    check_json(arguments)  # first: no refusal below may echo text that cannot be sent back
    missing = [a for a in operation.required if a not in arguments]
    unknown = [a for a in arguments if a not in operation.required + operation.optional]
    if missing or unknown:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"{name} takes {list(operation.required)} and optionally {list(operation.optional)}; "
            + (f"missing {missing}" if missing else "")
            + ("; " if missing and unknown else "")
            + (f"unknown {unknown}" if unknown else "")
            + ".",
            missing=missing,
            unknown=unknown,
        )
    if name == "start_game":
        _check_opponents(house, arguments.get("opponents"))
    target: Any = house if name == "start_game" else house.arena
    token = CALLER.set(caller) if caller is not None else None
    try:
        result: dict[str, Any] = await getattr(target, name)(**arguments)
    except NegotiationError as refused:
        if refused.code is not ErrorCode.WRONG_OWNER:
            raise
        return await forward(house.arena, name, arguments, caller or CALLER.get(), refused)  # to the match's holder
    finally:
        if token is not None:
            CALLER.reset(token)
    return result


def check_json(arguments: dict[str, Any]) -> None:
    """Refuse what JSON cannot carry faithfully (NaN, infinities, text that is not Unicode) and absurd
    nesting, without recursion, before any operation sees it."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(arguments, ())]
    while stack:
        value, loc = stack.pop()
        if len(loc) > MAX_NESTING:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT, f"Arguments are nested deeper than {MAX_NESTING} levels."
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "Arguments may not hold NaN or infinite numbers.")
        if isinstance(value, str):
            if problem := text_problem(value):
                raise not_unicode(_path(loc), problem)
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and (problem := text_problem(key)):  # before it is part of any path
                    raise not_unicode(_path(loc), f"has a key that {problem}")
                stack.append((item, (*loc, key)))
        elif isinstance(value, list):
            stack.extend((item, (*loc, i)) for i, item in enumerate(value))


def _path(loc: tuple[str | int, ...]) -> str:
    """An argument's place, as `payload.offer.0`."""
    return ".".join(str(part) for part in loc) or "arguments"


def _check_opponents(house: HouseSeats, opponents: Any) -> None:
    """Remote opponents (`kind:URL`) only where the arena's policy allows the URL: no fetching anything."""
    if opponents is None:
        return
    if not isinstance(opponents, list) or not all(isinstance(o, str) for o in opponents):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "opponents must be a list of agent names.")
    policy = house.arena.policy
    reasons = {o: policy.remote_agent_refusal(o.partition(":")[2]) for o in opponents if ":" in o}
    refused = {o: why for o, why in reasons.items() if why is not None}
    if refused:
        raise NegotiationError(
            ErrorCode.FORBIDDEN,
            f"This server does not seat these remote agents: {'; '.join(refused.values())}. "
            "Its operator can allow URL prefixes with `serve ... --allow-remote-agent PREFIX`.",
            refused=refused,
        )
