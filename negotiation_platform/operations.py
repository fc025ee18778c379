"""The operations every transport exposes, by name: what each does, its arguments, and one dispatcher.

MCP tools and A2A skills are described from this table, and message-based transports (A2A)
dispatch `{"operation": NAME, "arguments": {...}}` through `run_operation`, so a new transport
cannot drift from the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from negotiation_platform.agents.house import HouseSeats
from negotiation_platform.arena import MAX_WAIT_SECONDS
from negotiation_platform.errors import ErrorCode, NegotiationError


@dataclass(frozen=True)
class Operation:
    description: str
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()

    @property
    def seat(self) -> bool:
        """Whether it acts for a seat (and so needs `match_id` and `token`)."""
        return "token" in self.required


OPERATIONS: dict[str, Operation] = {
    "list_games": Operation("List the installed games with their roles and source package."),
    "get_game_rules": Operation(
        "The rules of a game in plain language, and its spec with every payload's JSON Schema.",
        ("game_id",),
        ("config",),
    ),
    "start_game": Operation(
        "Create a match and take its first seat; returns your agent_id and secret token. `opponents` fills "
        "other seats with built-in agents (or 'a2a:URL' remote agents) that play server-side.",
        ("game_id",),
        ("config", "seed", "name", "opponents"),
    ),
    "join_game": Operation(
        "Take the next free seat of a match; the match starts when every seat is taken.", ("match_id",), ("name",)
    ),
    "get_turn_state": Operation(
        "Everything you need now: status, phase, round, whose turn, deadline, allowed actions with payload "
        "schemas, your view, the events since `since`, and the prompt text. With wait_seconds > 0 it blocks "
        f"(up to {MAX_WAIT_SECONDS:g} s) until it is your turn or something new happened.",
        ("match_id", "token"),
        ("since", "wait_seconds"),
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
    "get_result": Operation(
        "The result of a match: agreement, terms and payoffs once finished, otherwise its status.", ("match_id",)
    ),
    "list_matches": Operation("The matches on this server with their status and free seats."),
}


async def run_operation(house: HouseSeats, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Run an operation by name with keyword arguments; refusals raise NegotiationError."""
    operation = OPERATIONS.get(name) if isinstance(name, str) else None
    if operation is None:
        raise NegotiationError(ErrorCode.UNKNOWN_OPERATION, f"No operation {name!r}; operations: {sorted(OPERATIONS)}.")
    if not isinstance(arguments, dict):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "`arguments` must be an object.")
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
        )
    target: Any = house if name == "start_game" else house.arena
    result: dict[str, Any] = await getattr(target, name)(**arguments)
    return result
