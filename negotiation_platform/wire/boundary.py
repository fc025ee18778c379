"""The one edge between the network and the arena: one set of limits, checked once, both ways.

Every request a transport receives (MCP over HTTP or stdio, A2A over JSON-RPC or REST, the viewer
and play page JSON APIs) is checked here before its operation's request model reads it: its size,
its nesting, that its text encodes as UTF-8, that its numbers are finite and its integers within
what a JavaScript client holds exactly (a float64: ±(2^53 − 1)). Every answer is checked here on
its way out: an integer a JavaScript client would round travels as a string, and a non-finite
number (which JSON cannot carry) is refused rather than sent. The walks use an explicit stack, so
data nested thousands deep costs no recursion. Anything refused raises the same `invalid_argument`
`NegotiationError`, so every transport answers it with the same `{"error": ...}`.
"""

from __future__ import annotations

import math
from typing import Any

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.wire.unicode_text import not_unicode, text_problem

MAX_DEPTH = 32
"""Deepest nesting of objects and arrays accepted (in a request, a payload or a config)."""
MAX_TEXT_CHARS = 65_536
"""Longest single string (or object key) accepted."""
MAX_REQUEST_CHARS = 262_144
"""Largest request, counted as the characters of its strings and keys plus a few per other value."""
MAX_SAFE_INTEGER = 2**53 - 1
"""Largest integer magnitude accepted or answered as a number: what a JavaScript client reads exactly."""

Path = tuple[str | int, ...]


def place(loc: Path) -> str:
    """An argument's place, as `payload.offer.0`."""
    return ".".join(str(part) for part in loc) or "arguments"


def _refused(loc: Path, problem: str, **details: str) -> NegotiationError:
    field = place(loc)
    return NegotiationError(ErrorCode.INVALID_ARGUMENT, f"`{field}` {problem}.", field=field, **details)


def check_request(arguments: object) -> None:
    """Refuse a request no operation may read: too large, too deep, text that is not Unicode,
    non-finite numbers, integers beyond ±`MAX_SAFE_INTEGER`, strings over `MAX_TEXT_CHARS`.

    Its text is checked as one: a refusal names the first text the walk met that is not Unicode, as
    it names the first of any other problem, and the one that came first wins."""
    texts: list[tuple[str, Path, str]] = []
    try:
        _walk(arguments, texts)
    except NegotiationError:
        _check_texts(texts)
        raise
    _check_texts(texts)


def _walk(arguments: object, texts: list[tuple[str, Path, str]]) -> None:
    """Every check but the text's, in one walk; each text met is added to `texts` (with its place)."""
    size = 0
    stack: list[tuple[object, Path]] = [(arguments, ())]
    while stack:
        value, loc = stack.pop()
        size += 4
        if isinstance(value, str):
            size += len(value)
            _check_length(value, loc)
            texts.append((value, loc, ""))
        elif isinstance(value, bool) or value is None:
            pass
        elif isinstance(value, int):
            if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
                raise _refused(loc, f"is an integer beyond ±{MAX_SAFE_INTEGER} (2^53 − 1)", limit="integer_range")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise _refused(loc, "is NaN or infinite, which JSON cannot carry", limit="finite_numbers")
        elif isinstance(value, dict | list):
            if len(loc) >= MAX_DEPTH:
                raise _refused(loc, f"is nested deeper than {MAX_DEPTH} levels", limit="max_depth")
            if isinstance(value, dict):
                for key, item in value.items():
                    if not isinstance(key, str):
                        raise _refused(loc, "has a key that is not a string")
                    size += len(key)
                    _check_length(key, loc, "has a key that ")
                    texts.append((key, loc, "has a key that "))
                    stack.append((item, (*loc, key)))
            else:
                stack.extend((item, (*loc, i)) for i, item in enumerate(value))
        else:
            raise _refused(loc, f"is not JSON data ({type(value).__name__})")
        if size > MAX_REQUEST_CHARS:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT,
                f"The request is larger than {MAX_REQUEST_CHARS} characters.",
                limit="max_request_chars",
            )


def _check_length(text: str, loc: Path, what: str = "") -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise _refused(loc, f"{what or 'is '}longer than {MAX_TEXT_CHARS} characters", limit="max_text_chars")


def _check_texts(texts: list[tuple[str, Path, str]]) -> None:
    """Refuse the first of `texts` that UTF-8 cannot carry: all of them checked at once, and one by one
    only to name the culprit."""
    if text_problem("".join(text for text, _, _ in texts)) is None:
        return
    for text, loc, what in texts:
        if problem := text_problem(text):
            raise not_unicode(place(loc), what + problem)


def safe_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """`answer` as every client reads it exactly: integers beyond ±`MAX_SAFE_INTEGER` as decimal
    strings (a JavaScript client would round them). A non-finite number is refused, not sent."""
    if not _needs_rewrite(answer):
        return answer
    return {key: _rewrite(item) for key, item in answer.items()}


def _needs_rewrite(answer: object) -> bool:
    stack: list[object] = [answer]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
        elif isinstance(value, float) and not math.isfinite(value):
            raise NegotiationError(ErrorCode.INTERNAL_ERROR, "The answer holds a non-finite number; it was not sent.")
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
            return True
    return False


def _rewrite(value: object) -> object:
    """Big integers as strings (recursion is bounded: answers are built by the arena, not clients)."""
    if isinstance(value, dict):
        return {key: _rewrite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_rewrite(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
        return str(value)
    return value
