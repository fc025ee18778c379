"""`AllowList`: which URLs a served arena may contact (`--allow-remote-agent` prefixes), and the one
spelling of a URL that is compared.

Every URL the arena contacts goes through `AllowList.refusal` first: the agent URL a caller names,
the agent card read from it, each endpoint the card names, and every request actually sent
(redirects included). Two parsers must never read one URL two ways, so a URL that could mean two
things is refused, not repaired: dot segments (`.`, `..`, or any `%2e`), encoded slashes or
backslashes (`%2f`, `%5c`), backslashes, user info (`user@host`), whitespace, control or non-ASCII
characters, a fragment, a port that is not plain digits, a host that is not a plain name or IP
address (`127.1`, `0x7f.0.0.1`, zone ids). What is left is spelled one way: lower-case scheme and
host, IP addresses in their short form (IPv6 in brackets), no default port (http 80, https 443),
an empty path as `/`, escapes of letters, digits and `-_~` decoded and the other escapes in upper case.

A prefix allows its own path and what lies below it segment by segment: `/agents/ok` (or
`/agents/ok/`) allows `/agents/ok` and `/agents/ok/...`, never `/agents/okay`.
"""

from __future__ import annotations

import ipaddress
import re
import string
from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_PORTS = {"http": 80, "https": 443}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_NAME = re.compile(r"^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$")
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_PATH_CHARS = frozenset(string.ascii_letters + string.digits + "-._~!$&'()*+,;=:@/%")
_QUERY_CHARS = _PATH_CHARS | {"?"}
_DECODED = frozenset(string.ascii_letters + string.digits + "-_~")
_NEVER_ENCODED = frozenset("./\\%")


class UrlRefused(ValueError):
    """A URL that is ambiguous, malformed or outside the allow-list; the message says which."""


@dataclass(frozen=True)
class CanonicalUrl:
    """A URL in its one spelling: lower-case scheme and host, no default port, normalised path."""

    scheme: str
    host: str
    port: int | None
    path: str
    query: str = ""

    def __str__(self) -> str:
        port = f":{self.port}" if self.port is not None else ""
        query = f"?{self.query}" if self.query else ""
        return f"{self.scheme}://{self.host}{port}{self.path}{query}"

    def under(self, prefix: CanonicalUrl) -> bool:
        """Same scheme, host and port, and the path is the prefix's or below it (segment-wise)."""
        if (self.scheme, self.host, self.port) != (prefix.scheme, prefix.host, prefix.port):
            return False
        base = prefix.path.rstrip("/")
        return self.path.rstrip("/") == base or self.path.startswith(base + "/")


def canonical(url: str) -> CanonicalUrl:
    """`url` in its one spelling; `UrlRefused` saying why for anything ambiguous or not http(s)."""
    if not isinstance(url, str) or not url:
        raise UrlRefused("not a URL")
    if any(ord(c) <= 0x20 or ord(c) >= 0x7F for c in url):
        raise UrlRefused("whitespace, control or non-ASCII characters")
    if "\\" in url:
        raise UrlRefused("backslashes")
    if "#" in url:
        raise UrlRefused("a fragment")
    scheme_match = _SCHEME.match(url)
    if scheme_match is None:
        raise UrlRefused("no scheme://")
    scheme = scheme_match.group(1).lower()
    if scheme not in DEFAULT_PORTS:
        raise UrlRefused(f"scheme {scheme!r} (only http and https)")
    rest = url[scheme_match.end() :]
    authority_end = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, rest = rest[:authority_end], rest[authority_end:]
    path, _, query = rest.partition("?")
    host, port = _authority(authority)
    if port == DEFAULT_PORTS[scheme]:
        port = None
    if any(c not in _QUERY_CHARS for c in query):
        raise UrlRefused("characters a query may not hold unescaped")
    return CanonicalUrl(scheme, host, port, _path(path), query)


def _authority(authority: str) -> tuple[str, int | None]:
    if "@" in authority:
        raise UrlRefused("user info (user@host)")
    if authority.startswith("["):
        literal, bracket, port_text = authority[1:].partition("]")
        if not bracket or "%" in literal or (port_text and not port_text.startswith(":")):
            raise UrlRefused("a malformed IPv6 address or one with a zone id")
        try:
            host = f"[{ipaddress.IPv6Address(literal).compressed}]"
        except ValueError:
            raise UrlRefused(f"a malformed IPv6 address [{literal}]") from None
        return host, _port(port_text[1:], bool(port_text))
    name, colon, port_text = authority.partition(":")
    return _host(name.lower()), _port(port_text, bool(colon))


def _host(name: str) -> str:
    if not name:
        raise UrlRefused("no host")
    if not _NAME.match(name):
        raise UrlRefused(f"host {name!r} is not a plain name or IP address")
    if _NUMERIC_LABEL.match(name.rsplit(".", 1)[-1]):
        try:
            return ipaddress.IPv4Address(name).compressed
        except ValueError:
            raise UrlRefused(f"host {name!r} is not a plain IPv4 address (a.b.c.d)") from None
    return name


def _port(text: str, given: bool) -> int | None:
    if not given or text == "":
        return None
    if not text.isdigit() or len(text) > 5 or not 0 < int(text) < 65536:
        raise UrlRefused(f"port {text!r}")
    return int(text)


def _path(path: str) -> str:
    if any(c not in _PATH_CHARS for c in path):
        raise UrlRefused("characters a path may not hold unescaped")
    if _ESCAPE.sub("", path).count("%"):
        raise UrlRefused("a malformed %-escape")
    decoded = _ESCAPE.sub(_unescape, path) or "/"
    if any(segment in (".", "..") for segment in decoded.split("/")):
        raise UrlRefused("dot segments (. or ..)")
    return decoded


def _unescape(escape: re.Match[str]) -> str:
    """An escape of a letter, digit or `-_~` as that character; `.`, `/`, `\\`, `%` and controls refused."""
    char = chr(int(escape.group(1), 16))
    if char in _NEVER_ENCODED or ord(char) < 0x20 or ord(char) == 0x7F:
        raise UrlRefused(f"an encoded {char!r} (%{escape.group(1)})")
    return char if char in _DECODED else escape.group(0).upper()


@dataclass(frozen=True)
class AllowList:
    """URL prefixes the arena may contact; `None` in a policy stands for "anything" (in-process)."""

    prefixes: tuple[CanonicalUrl, ...]

    @classmethod
    def of(cls, prefixes: Iterable[str]) -> AllowList:
        """The allow-list of these prefixes; `UrlRefused` for a prefix that is ambiguous or has a query."""
        parsed = tuple(canonical(prefix) for prefix in prefixes)
        if any(prefix.query for prefix in parsed):
            raise UrlRefused("a prefix with a query")
        return cls(parsed)

    def refusal(self, url: str) -> str | None:
        """Why `url` may not be contacted, or None when it lies under an allowed prefix."""
        try:
            found = canonical(url)
        except UrlRefused as why:
            return f"{url!r} is refused: {why}"
        if not any(found.under(prefix) for prefix in self.prefixes):
            return f"{url!r} is not under an allowed prefix"
        return None

    def check(self, url: str) -> None:
        """Raise `UrlRefused` unless `url` lies under an allowed prefix."""
        why = self.refusal(url)
        if why is not None:
            raise UrlRefused(why)
