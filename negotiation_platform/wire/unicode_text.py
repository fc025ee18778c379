"""Text from a client must be Unicode that UTF-8 can carry, checked before it reaches a match;
text shown on a terminal must not steer it.

A JSON escape such as "\\ud800" read by a lenient parser (Python's `json`, as A2A's JSON text
parts are read) gives a lone surrogate: a Python string that no UTF-8 writer accepts. Logged
into a match, it would break every later answer, store write and page that shows it, so such
text is refused where it comes in, as `invalid_argument`.

A request has all its text checked once, when its model is built (`boundary.check_request`, run by
`arena.requests.Request`); the arena checks none of it again. `unicode_text` checks one value that
meets the arena outside a request (a host's or an in-process seat's call).

A chat message must also hold something a reader sees (`chat_problem`), and whatever a player
or a server sent is printed through `terminal_safe`: an ESC sequence retitles the window or
recolours the screen, a bidi override shows a line's words out of order.
"""

from __future__ import annotations

import re
import unicodedata

from negotiation_platform.errors import ErrorCode, NegotiationError

_TERMINAL_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 controls, DEL, the line and paragraph separators, and the bidi marks, embeddings,
overrides and isolates."""
_BLANK_LETTERS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180e\u3164\uffa0") | {
    chr(c) for c in [*range(0x180B, 0x1810), *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)]
}
"""Default-ignorable characters outside the control and format categories (fillers, variation
selectors): they show nothing either."""


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


def terminal_safe(text: str) -> str:
    """`text` as a terminal may show it: control and bidi characters written as escapes (`\\x1b`, `\\u202e`)."""
    return _TERMINAL_UNSAFE.sub(_escaped, text)


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def invisible(char: str) -> bool:
    """Whether `char` shows nothing: white space, a control or format character (zero-width ones), a filler."""
    return char.isspace() or unicodedata.category(char) in ("Cc", "Cf") or char in _BLANK_LETTERS


def chat_problem(text: str) -> str | None:
    """Why `text` cannot be a chat message, in words (None if it can): a NUL, which ends a C string
    early in whatever reads it later, or nothing a reader would see."""
    if "\x00" in text:
        return "holds a NUL character (\\x00)"
    if all(invisible(char) for char in text):
        return "has no visible text (only white space, zero-width or other invisible characters)"
    return None


def unicode_text(name: str, text: str) -> str:
    """`text`, unless it cannot be written as UTF-8: then the `invalid_argument` refusal of argument `name`."""
    problem = text_problem(text)
    if problem is not None:
        raise not_unicode(name, problem)
    return text
