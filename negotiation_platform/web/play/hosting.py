"""The play page beside a transport's HTTP app.

The page sits before any bearer-token guard of `app`: a browser cannot send the operator's token,
and the seat token is the credential there. Like every page of the server it answers only the
hosts the server allows (`negotiation_platform.network.hosts`, applied around the whole server).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from negotiation_platform.network.exposure import Asgi, announce_line
from negotiation_platform.web.favicon import with_favicon
from negotiation_platform.web.play.app import play_app
from negotiation_platform.web.play.pages import PREFIX
from negotiation_platform.web.viewer.app import beside

if TYPE_CHECKING:
    from negotiation_platform.arena.arena import Arena


def with_play(app: Asgi, arena: Arena | None, base_url: str, *, announce: bool = True) -> Asgi:
    """`app` with the play page of `arena` answering every HTTP request under /play (and the site icon),
    said on stderr unless `announce` is false (`play --human` prints the seat's own link instead);
    `app` alone without an arena."""
    if arena is None:
        return app
    if announce:
        announce_line(f"play page on {base_url}/play/MATCH_ID (a seat's link carries its token)")
    return with_favicon(beside(app, play_app(arena), PREFIX))
