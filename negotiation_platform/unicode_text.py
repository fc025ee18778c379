"""Text from a client must be Unicode that UTF-8 can carry, checked before it reaches a match.

A JSON escape such as "\\ud800" read by a lenient parser (Python's `json`, as A2A's JSON text
parts are read) gives a lone surrogate: a Python string that no UTF-8 writer accepts. Logged
into a match, it would break every later answer, store write and page that shows it, so such
text is refused where it comes in, as `invalid_argument`.
"""

from __future__ import annotations

from negotiation_platform.errors import ErrorCode, NegotiationError


def text_problem(text: str) -> str | None:
    """Why `text` cannot be written as UTF-8 (it holds a lone surrogate), in words; None if it can."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as failure:
        where = failure.start
        return f"holds a lone surrogate ({text[where]!a} at character {where}), which is not Unicode text"
    return None


def not_unicode(name: str, problem: str) -> NegotiationError:
    """The refusal of argument `name`, whose text has `problem` (see `text_problem`)."""
    return NegotiationError(ErrorCode.INVALID_ARGUMENT, f"`{name}` {problem}; send UTF-8 text.", field=name)


def unicode_text(name: str, text: str) -> str:
    """`text`, unless it cannot be written as UTF-8: then the `invalid_argument` refusal of argument `name`."""
    problem = text_problem(text)
    if problem is not None:
        raise not_unicode(name, problem)
    return text
