"""A peer's answer to a forwarded call, read as hostile input.

The peer is named by the store, not trusted: its answer is read up to `MAX_ANSWER_BYTES` within
`ANSWER_SECONDS`, and accepted only in the shared models of an answer (`{"result": ...}` in the
operation's answer model, or `{"error": ...}` as a `errors.ErrorBody`). Anything else is a
`BadAnswer` saying what was wrong (never echoing the answer), which `forwarding.forward` turns into a
structured refusal; a peer's `details` travel as details and never replace its code or message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from negotiation_platform.errors import ErrorBody, NegotiationError

if TYPE_CHECKING:
    import httpx

MAX_ANSWER_BYTES = 16 * 1024 * 1024
"""The most a peer's answer may hold (a page of events with their messages is far less)."""
ANSWER_SECONDS = 30.0
"""How long a forwarded call may take, its whole answer read; changing calls never wait for other players."""
MAX_PROBLEM_CHARS = 300


class BadAnswer(ValueError):
    """A peer answered what is not an arena answer; the message says what was wrong with it."""


class PeerAnswer(BaseModel):
    """A peer's answer: exactly one of its result and its refusal."""

    model_config = ConfigDict(extra="forbid", strict=True)
    result: dict[str, Any] | None = None
    error: ErrorBody | None = None

    @model_validator(mode="after")
    def _one(self) -> PeerAnswer:
        if (self.result is None) == (self.error is None):
            raise ValueError("holds neither or both of `result` and `error`")
        return self


class BoundContext(BaseModel):
    """The answer of `bind_context` (an arena method, not a catalogue operation)."""

    context_id: str


async def post(client: httpx.AsyncClient, endpoint: str, body: bytes, headers: dict[str, str]) -> bytes:
    """POST `body` to `endpoint`; the answer's body, bounded in size and time (else `BadAnswer`, or the
    network's own error where the peer could not be reached)."""
    try:
        async with asyncio.timeout(ANSWER_SECONDS):
            return await _read(client, endpoint, body, headers)
    except TimeoutError:
        raise BadAnswer(f"no whole answer within {ANSWER_SECONDS:g} s") from None


async def _read(client: httpx.AsyncClient, endpoint: str, body: bytes, headers: dict[str, str]) -> bytes:
    async with client.stream("POST", endpoint, content=body, headers=headers) as response:
        if response.status_code != 200:
            raise BadAnswer(f"HTTP status {response.status_code}")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_ANSWER_BYTES:
            raise BadAnswer(f"an answer of {int(declared)} bytes, over {MAX_ANSWER_BYTES}")
        read = bytearray()
        async for chunk in response.aiter_bytes():
            read += chunk
            if len(read) > MAX_ANSWER_BYTES:
                raise BadAnswer(f"an answer over {MAX_ANSWER_BYTES} bytes")
        return bytes(read)


AnswerModels = Callable[[str], type[BaseModel]]
"""The answer model of an operation, by name (the catalogue's, handed down by the serving code: the
arena sits below the catalogue and never imports it)."""


def answer_of(operation: str, body: bytes, answers: AnswerModels) -> dict[str, Any]:
    """The peer's result for `operation`, checked against its answer model; its refusal raised as the
    same `NegotiationError`; `BadAnswer` for anything else."""
    try:
        answer = PeerAnswer.model_validate_json(body)
    except ValidationError as wrong:
        raise BadAnswer(_problems(wrong)) from None
    if answer.error is not None:
        refusal = answer.error
        raise NegotiationError(refusal.code, refusal.message, **refusal.details)
    assert answer.result is not None
    model = BoundContext if operation == "bind_context" else answers(operation)
    try:
        model.model_validate(answer.result, strict=True)
    except ValidationError as wrong:
        raise BadAnswer(_problems(wrong, ("result",))) from None
    return answer.result


def _problems(wrong: ValidationError, within: tuple[str, ...] = ()) -> str:
    """What was wrong with an answer (at `within`), without the answer's content."""
    problems = []
    for error in wrong.errors(include_input=False, include_url=False, include_context=False):
        where = ".".join(map(str, within + error["loc"]))
        problems.append(f"{where}: {error['msg']}" if where else error["msg"])
    text = "; ".join(problems)
    return text if len(text) <= MAX_PROBLEM_CHARS else text[: MAX_PROBLEM_CHARS - 1] + "…"
