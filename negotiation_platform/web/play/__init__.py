"""The play page: a person plays a seat of a match in the browser, from the seat's link.

`app` holds the routes (the page and the JSON API it acts through), `serving` mounts them beside
a transport's HTTP app, `pages` writes the HTML shell, and `static/` holds the script and style
(no build step, nothing fetched from elsewhere). Links are made by `arena.seat_links`, which the
arena uses without the web stack.
"""

from negotiation_platform.arena.seat_links import play_link
from negotiation_platform.web.play.app import play_app
from negotiation_platform.web.play.hosting import with_play

__all__ = ["play_app", "play_link", "with_play"]
