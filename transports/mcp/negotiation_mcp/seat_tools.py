"""The tools an `mcp-llm` seat offers its model: its own seat's, bound to it, and nothing else.

A model reads text an opponent wrote, so it must be assumed steerable (prompt injection). It is
therefore offered only what playing its seat needs, and none of it can reach another match or seat:
`get_turn_state` (the situation, the allowed actions with their payload schemas, and in its prompt
the rules of the match as configured), `perform_action`, `send_public_message` and
`send_private_message`: the arena's tools of those names without `match_id` and `token`.

Left out: `start_game`, `join_game` and `list_matches` (they take or find other seats), `leave_game`
(resigning is not a move), `get_game_rules` (the game's default rules, which may not be the
match's: the turn state's prompt has the match's own), `watch` and `get_result` (the turn state
says as much of the seat's own match), `list_games` and `ping`. The client fills `match_id` and
`token` in from the seat it holds, so the model is never told the token and cannot name a match,
a seat or a token at all. An unknown tool, an argument the tool does not take (`match_id` and
`token` included), or any argument that contains the seat's token is refused here, as a structured
refusal fed back to the model, and nothing is sent to the arena.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

from negotiation_platform.agents.driver import SeatInPlay
from negotiation_platform.catalogue import CATALOGUE
from negotiation_platform.errors import ErrorCode, NegotiationError

SEAT_TOOLS = ("get_turn_state", "perform_action", "send_public_message", "send_private_message")
"""The arena operations the model may call, each for its own seat only."""
SEAT_BOUND = ("match_id", "token")
"""The arguments the client fills in from its seat: the model may not give them."""
REDACTED = "<token>"


@cache
def parameters(name: str) -> dict[str, Any]:
    """Operation `name`'s input schema without the bound arguments (and no others allowed)."""
    schema = copy.deepcopy(CATALOGUE[name].arguments_schema)
    schema["properties"] = {k: v for k, v in schema.get("properties", {}).items() if k not in SEAT_BOUND}
    schema["required"] = [k for k in schema.get("required", []) if k not in SEAT_BOUND]
    schema["additionalProperties"] = False
    return schema


def model_tools() -> list[dict[str, Any]]:
    """The seat's tools as OpenAI functions: name, description, and parameters without `match_id` and `token`."""
    return [
        {
            "type": "function",
            "function": {"name": name, "description": CATALOGUE[name].description, "parameters": parameters(name)},
        }
        for name in SEAT_TOOLS
    ]


class SeatBinding:
    """Turns the model's tool calls into calls for one seat, and keeps its token out of what the model reads."""

    def __init__(self, seat: SeatInPlay, game_id: str) -> None:
        self.agent_id = seat.agent_id
        self.game_id = game_id
        self._token = seat.token
        self._bound = {"match_id": seat.match_id, "token": seat.token}

    def bind(self, name: str, text: str) -> dict[str, Any]:
        """The whole arguments of the arena operation `name` for the model's call (its arguments as
        JSON text); a refusal raises, and then nothing is sent."""
        if name not in SEAT_TOOLS:
            raise NegotiationError(
                ErrorCode.UNKNOWN_OPERATION,
                f"No tool {name[:64]!r} for your seat; its tools: {list(SEAT_TOOLS)}.",
                tools=list(SEAT_TOOLS),
            )
        try:
            arguments = json.loads(text)
        except json.JSONDecodeError as exc:
            unreadable = f"The arguments of {name} are not JSON ({exc})."
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, unreadable) from None
        if not isinstance(arguments, dict):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"The arguments of {name} must be a JSON object.")
        takes = list(parameters(name)["properties"])
        unknown = sorted(str(key)[:64] for key in arguments if key not in takes)
        if unknown:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT,
                f"Invalid arguments for {name}: unknown {unknown} ({name} takes {takes}; your seat's match "
                "and token are filled in for you).",
                unknown=unknown,
            )
        if self._token in json.dumps(arguments, ensure_ascii=False):
            raise NegotiationError(
                ErrorCode.FORBIDDEN,
                f"Refused {name}: its arguments contain your seat token, which must never be shared. Nothing was sent.",
                reason="secret_in_arguments",
            )
        return {**arguments, **self._bound}

    def redact(self, text: str) -> str:
        """`text` with the seat's token replaced: no answer the model reads ever carries it."""
        return text.replace(self._token, REDACTED)
