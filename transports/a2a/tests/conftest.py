"""Fixtures of the A2A tests here: one plain `serve a2a` subprocess for the session, for the tests that read
only the matches and contexts they make themselves (a server start costs seconds)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from a2a_servers import a2a_server


@pytest.fixture(scope="session")
def shared_a2a_base() -> Iterator[str]:
    """The base URL of a plain `serve a2a` subprocess shared by the session. Tests that read its log, set
    flags, count or list matches, or stop the server start their own."""
    with a2a_server() as (base, _):
        yield base
