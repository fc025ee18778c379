"""The site icon every page of the server shows (and `/favicon.ico`, which browsers ask for unbidden)."""

from __future__ import annotations

from starlette.responses import Response

from negotiation_platform.network.exposure import Asgi, Receive, Scope, Send
from negotiation_platform.web.viewer.app import beside

FAVICON_PATH = "/favicon.ico"
ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<rect width="32" height="32" rx="6" fill="#2f3e4e"/>'
    '<path d="M7 18l6-6 4 4 8-8" stroke="#ffd75e" stroke-width="3" fill="none" stroke-linecap="round"/>'
    '<circle cx="10" cy="24" r="3" fill="#fff"/><circle cx="22" cy="24" r="3" fill="#fff"/></svg>'
)
"""Two seats and a rising offer, in the pages' colours."""


async def favicon(scope: Scope, receive: Receive, send: Send) -> None:
    """The icon as SVG (browsers take an SVG at /favicon.ico by its media type); cached for a day."""
    answer = Response(ICON, media_type="image/svg+xml", headers={"cache-control": "public, max-age=86400"})
    await answer(scope, receive, send)


def with_favicon(app: Asgi) -> Asgi:
    """`app` with the icon answering `/favicon.ico`."""
    return beside(app, favicon, FAVICON_PATH)
