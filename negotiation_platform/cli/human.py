"""`play GAME --human`: a person plays the first seat in the browser, the given agents the others.

The match runs in this process (an in-process arena: the seed decides the draws, no turn clock).
The play page is served on a free loopback port with the pieces every HTTP server here uses
(`bind`, `http_server`, the play page and the viewer beside it); the agents play their seats as
tasks on the same event loop. The link (its fragment holds the seat token) is always printed, and
opened in a browser when one is available. When the match ends the result is returned and the
server stops; Ctrl-C stops it at any time.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import webbrowser
from collections.abc import Callable
from typing import Any

from negotiation_platform.agents.base import Agent
from negotiation_platform.agents.driver import SeatHandle, run_seat
from negotiation_platform.arena import MAX_WAIT_SECONDS, Arena
from negotiation_platform.arena.seat_links import HUMAN_NAME
from negotiation_platform.network.exposure import bind, http_server
from negotiation_platform.network.hosts import allowed_hosts, guard_hosts
from negotiation_platform.web.play import play_link, with_play
from negotiation_platform.web.viewer.app import viewer_app

HOST = "127.0.0.1"
GRACE_SECONDS = 1.0
"""How long the page is still served after the end, so it shows the payoffs before the server stops."""


def browser_available() -> bool:
    """Whether `webbrowser` can open a page a person will see: on Linux and the BSDs only with a
    display (or $BROWSER set), never a text browser started inside this terminal."""
    if sys.platform in ("darwin", "win32"):
        return True
    if not any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")):
        return False
    try:
        return not getattr(webbrowser.get(), "_terminal", False)  # `_terminal`: e.g. lynx, w3m
    except webbrowser.Error:
        return False


async def play_with_human(
    arena: Arena,
    game_id: str,
    agents_for: Callable[[int], list[Agent]],
    *,
    config: dict[str, Any] | None,
    seed: int,
    open_browser: bool,
) -> dict[str, Any]:
    """Serve the match's first seat to a person, play the others with `agents_for(seats)`; the result."""
    seats = (await arena.get_game_rules(game_id, config))["spec"]["roles"]["min_players"]
    agents = agents_for(seats - 1)
    started = await arena.start_game(game_id, config=config, seed=seed, name=HUMAN_NAME)
    match_id = started["match_id"]
    players = []
    for agent in agents:
        joined = await arena.join_game(match_id, name=agent.name)
        players.append(asyncio.create_task(run_seat(arena, match_id, SeatHandle(agent, **joined))))
    sock = bind(HOST, 0)
    base_url = f"http://{HOST}:{sock.getsockname()[1]}"
    server = http_server(
        guard_hosts(with_play(viewer_app(arena), arena, base_url, announce=False), allowed_hosts(HOST)),
        logging.getLogger().getEffectiveLevel(),
        timeout_graceful_shutdown=GRACE_SECONDS,
    )
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    link = play_link(base_url, match_id, started["token"])
    print(f"Play {game_id} (your seat: {started['agent_id']}) at:\n  {link}", file=sys.stderr, flush=True)
    if open_browser and browser_available():
        webbrowser.open(link, new=2)
    ended = asyncio.create_task(_finished(arena, match_id))
    try:
        await _until_ended(ended, serving, players)
        await asyncio.sleep(GRACE_SECONDS)
    finally:
        server.should_exit = True
        for task in (ended, *players):
            task.cancel()
        await serving
    return await arena.get_result(match_id)


async def _finished(arena: Arena, match_id: str) -> None:
    cursor = 0
    while True:
        seen = await arena.watch(match_id, since=cursor, wait_seconds=MAX_WAIT_SECONDS)
        if seen["status"] == "finished":
            return
        cursor = seen["cursor"]


async def _until_ended(
    ended: asyncio.Task[None], serving: asyncio.Task[None], players: list[asyncio.Task[None]]
) -> None:
    """Wait for the match's end; a seat's agent failing, or the server stopping (Ctrl-C), ends the wait early."""
    pending = {ended, serving, *players}
    while ended in pending:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()  # an agent's failure is the command's
        if serving in done:
            raise KeyboardInterrupt  # the server stopped on a signal before the match ended
