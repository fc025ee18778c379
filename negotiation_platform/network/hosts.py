"""Host and Origin checks against DNS rebinding, one guard for every HTTP server of the project.

A page of another site may point a browser at this server under a name that resolves to it (DNS
rebinding) and so read and act through the visitor's browser. Every request (MCP, A2A, the viewer,
`/metrics`, the play page) is answered only when its `Host` is a loopback name, the host the server
is bound to, or one the operator allowed (`--allowed-host`, `name:port` or `name:*`); a request that
says where it comes from (`Origin`) must come from such a host too. A foreign Host is refused with
421, a foreign Origin with 403, both with the structured `forbidden` refusal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.network.exposure import Asgi, Receive, Scope, Send, is_loopback, refuse

LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
WRONG_HOST = 421
WRONG_ORIGIN = 403


def allowed_hosts(bound: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The Host patterns a server bound to `bound` answers: loopback names, `bound` itself (any port)
    when it is not loopback, and `extra` (the operator's `--allowed-host` values, a public URL's host)."""
    own = [] if is_loopback(bound) else [f"[{bound}]:*" if ":" in bound else f"{bound}:*"]
    return (*LOOPBACK_HOSTS, *own, *extra)


def netloc(url: str | None) -> list[str]:
    """The `host[:port]` of an http(s) `url` as a Host pattern (none for anything else)."""
    parts = urlsplit(url or "")
    found = parts.netloc.rpartition("@")[2] if parts.scheme in ("http", "https") else ""
    return [found] if found else []


def matches(host: str, hosts: Iterable[str]) -> bool:
    """Whether `host` (`name` or `name:port`) matches one of `hosts` (`name:port`, or `name:*` for any port)."""
    name, port = host, ""
    if ":" in host and not host.endswith("]"):
        name, _, port = host.rpartition(":")
    if not name or (port and not port.isdigit()):
        return False
    return any(pattern == host or pattern == f"{name}:*" for pattern in hosts)


def host_refusal(scope: Scope, hosts: Iterable[str]) -> int:
    """0 when the request's Host (and Origin, if any) is among `hosts`, else the status to refuse it with."""
    hosts = tuple(hosts)
    headers = dict(scope.get("headers") or [])
    if not matches(headers.get(b"host", b"").decode("latin-1"), hosts):
        return WRONG_HOST
    origin = headers.get(b"origin")
    if origin is not None and not matches(urlsplit(origin.decode("latin-1")).netloc, hosts):
        return WRONG_ORIGIN
    return 0


def guard_hosts(app: Asgi, hosts: Iterable[str], refused: Callable[[], None] | None = None) -> Asgi:
    """`app`, answering HTTP requests only from `hosts` (see `host_refusal`); `refused` is
    called for each request turned away (to count it)."""
    patterns = tuple(hosts)
    refusal = NegotiationError(
        ErrorCode.FORBIDDEN,
        "This server does not answer requests for this Host or from this Origin (DNS-rebinding protection; "
        "the operator may allow a name with --allowed-host).",
        check="host",
    )

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        status = host_refusal(scope, patterns) if scope["type"] == "http" else 0
        if not status:
            await app(scope, receive, send)
            return
        if refused is not None:
            refused()
        await refuse(send, status, refusal)

    return guarded
