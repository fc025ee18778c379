"""The play page beside a transport's HTTP app, behind the same DNS-rebinding protection as MCP.

A browser on a page of another site may be pointed at this server under a name that resolves to
it (DNS rebinding): requests under /play are answered only when their Host is a loopback name, the
server's own host or one the operator allowed, and a request that says where it comes from
(`Origin`) only from such a host. The page sits before any bearer-token guard of `app`: a browser
cannot send the operator's token, and the seat token is the credential there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from negotiation_platform.arena.exposure import Asgi, Receive, Scope, Send, announce_line, refuse
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.play.app import play_app
from negotiation_platform.play.pages import PREFIX

if TYPE_CHECKING:
    from negotiation_platform.arena.arena import Arena

LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")


def with_play(app: Asgi, arena: Arena | None, base_url: str, allowed_hosts: list[str] | None = None) -> Asgi:
    """`app` with the play page of `arena` answering every HTTP request under /play, said on stderr;
    `app` alone without an arena. Hosts allowed: loopback names, `base_url`'s and `allowed_hosts`
    (`name:port` or `name:*`, as the MCP server's `--allowed-host`)."""
    if arena is None:
        return app
    announce_line(f"play page on {base_url}/play/MATCH_ID (a seat's link carries its token)")
    hosts = [*LOOPBACK_HOSTS, *(allowed_hosts or [])]
    own = urlsplit(base_url).netloc
    if own:
        hosts.append(own)
    return beside_play(app, play_app(arena), hosts)


def beside_play(app: Asgi, play: Asgi, hosts: list[str]) -> Asgi:
    """`app`, with `play` answering /play for requests whose Host (and Origin, if any) is among `hosts`."""

    async def dispatch(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path == PREFIX or path.startswith(PREFIX + "/")):
            await app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        origin = headers.get(b"origin")
        origin_host = urlsplit(origin.decode("latin-1")).netloc if origin is not None else None
        if not allowed(host, hosts) or (origin_host is not None and not allowed(origin_host, hosts)):
            refusal = NegotiationError(ErrorCode.FORBIDDEN, "This host or origin may not use the play page.")
            await refuse(send, 403 if allowed(host, hosts) else 421, refusal)
            return
        await play(scope, receive, send)

    return dispatch


def allowed(host: str, hosts: list[str]) -> bool:
    """Whether `host` (`name` or `name:port`) matches one of `hosts` (`name:port`, or `name:*` for any port)."""
    name, port = host, ""
    if ":" in host and not host.endswith("]"):
        name, _, port = host.rpartition(":")
    if not name or (port and not port.isdigit()):
        return False
    return any(pattern == host or pattern == f"{name}:*" for pattern in hosts)
