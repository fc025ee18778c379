"""Structured refusals shared by the engine, the arena and every transport.

A refusal carries a stable machine-readable code, a message that says what was wrong and what
is allowed, and optional details. Transports serialise it with `to_dict()`; none of them ever
shows a stack trace to an agent.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field


class ErrorCode(StrEnum):
    """The stable error codes an agent can branch on."""

    UNKNOWN_GAME = "unknown_game"
    UNKNOWN_OPERATION = "unknown_operation"
    UNKNOWN_MATCH = "unknown_match"
    INVALID_CONFIG = "invalid_config"
    INVALID_ARGUMENT = "invalid_argument"
    FORBIDDEN = "forbidden"
    MATCH_FULL = "match_full"
    NOT_STARTED = "not_started"
    MATCH_OVER = "match_over"
    NOT_YOUR_TURN = "not_your_turn"
    PHASE_CLOSED = "phase_closed"
    UNKNOWN_ACTION = "unknown_action"
    INVALID_PAYLOAD = "invalid_payload"
    INVALID_ACTION = "invalid_action"
    LIMIT_REACHED = "limit_reached"
    UNKNOWN_RECIPIENT = "unknown_recipient"
    MESSAGE_TOO_LONG = "message_too_long"
    WRONG_OWNER = "wrong_owner"
    STORE_UNAVAILABLE = "store_unavailable"
    INTERNAL_ERROR = "internal_error"
    """The game's own code failed on an accepted call (a bug in the game): the call changed nothing."""


class NegotiationError(Exception):
    """A refused request. Raising it must leave every piece of state as it was."""

    def __init__(self, code: ErrorCode, message: str, /, **details: Any) -> None:
        """`code` and `message` are positional only, so `details` may hold keys of any name (an answer
        relayed from elsewhere may carry its own `code`) without ever replacing them."""
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form every transport returns to the agent."""
        error: dict[str, Any] = {"code": self.code.value, "message": self.message}
        if self.details:
            error["details"] = self.details
        return {"error": error}

    def __repr__(self) -> str:
        return f"NegotiationError({self.code.value!r}, {self.message!r})"


HTTP_STATUS = {
    ErrorCode.UNKNOWN_MATCH: 404,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.WRONG_OWNER: 403,
    ErrorCode.LIMIT_REACHED: 429,
    ErrorCode.NOT_YOUR_TURN: 409,
    ErrorCode.MATCH_OVER: 409,
    ErrorCode.NOT_STARTED: 409,
    ErrorCode.PHASE_CLOSED: 409,
    ErrorCode.STORE_UNAVAILABLE: 503,
    ErrorCode.INTERNAL_ERROR: 500,
}
"""The HTTP status a refusal is answered with where HTTP carries it (the viewer's and play page's JSON
APIs); any other code is the client's mistake in the request: 400."""


def http_status(code: ErrorCode) -> int:
    """The HTTP status of a refusal with `code` (see `HTTP_STATUS`)."""
    return HTTP_STATUS.get(code, 400)


class CannotStart(Exception):
    """Why a command cannot start serving or playing (a store it must not use, a port it cannot listen
    on): one line for a person. Raised below the CLI, which ends the command with it (exit status 1)."""


class ErrorBody(BaseModel):
    """A refusal as every transport sends it (`{"error": ErrorBody}`), and as a peer's answer is read."""

    code: ErrorCode = Field(description="A stable code to branch on, e.g. not_your_turn or invalid_payload.")
    message: str = Field(description="What was wrong and what is allowed.")
    details: dict[str, Any] = Field(default_factory=dict, description="More about it, e.g. the field refused.")
