"""Logging belongs to the command line: building the MCP server in process leaves the root logger as it
was, and a served request's log line is written by the handlers the program chose (no Rich rendering
on the request path)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import pytest
from mcp import Client

from negotiation_mcp.client import McpArena
from negotiation_mcp.server import build_server
from negotiation_platform.arena import Arena
from negotiation_platform.observability.logs import REQUEST_LOGGER

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def unconfigured() -> Iterator[logging.Logger]:
    """The root logger as in a program that configured no logging (pytest's own handlers set aside)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    root.handlers = []
    root.setLevel(logging.WARNING)
    try:
        yield root
    finally:
        root.handlers = handlers
        root.setLevel(level)


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_building_the_server_in_process_leaves_the_root_logger_alone() -> None:
    with unconfigured() as root:
        build_server(Arena())
        assert root.handlers == [] and root.level == logging.WARNING


async def traced_action() -> list[str]:
    """The module of every Python function called while an in-process server answers one perform_action."""
    async with Client(build_server(Arena())) as client:
        arena = McpArena(client)
        alice = await arena.start_game("split_100", name="alice", seed=1)
        bob = await arena.join_game(alice["match_id"], name="bob")
        mover = alice if (await arena.get_turn_state(alice["match_id"], alice["token"]))["your_turn"] else bob
        called: list[str] = []

        def profile(frame: FrameType, event: str, _: object) -> None:
            if event == "call":
                called.append(str(frame.f_globals.get("__name__")))

        sys.setprofile(profile)
        try:
            await arena.perform_action(mover["match_id"], mover["token"], "propose", {"mine": 50})
        finally:
            sys.setprofile(None)
        return called


async def test_a_served_actions_log_line_goes_out_without_rich() -> None:
    lines = Lines()
    REQUEST_LOGGER.addHandler(lines)
    REQUEST_LOGGER.setLevel(logging.INFO)
    try:
        with unconfigured():
            called = await traced_action()
    finally:
        REQUEST_LOGGER.removeHandler(lines)
        REQUEST_LOGGER.setLevel(logging.NOTSET)
    assert any(line.startswith("operation=perform_action ") and "code=ok" in line for line in lines.lines), lines.lines
    assert called and [name for name in called if name.split(".")[0] == "rich"] == []
