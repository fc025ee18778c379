"""Fixtures of the MCP tests here: one plain server subprocess for the session (for tests that read only the
matches they make), and for the browser tests one Chromium per module and a person (a fresh page) per test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from browser_helpers import CHROMIUM, FLAGS
from mcp_servers import mcp_server


@pytest.fixture(scope="session")
def shared_mcp_url() -> Iterator[str]:
    """A plain `serve mcp --transport http` subprocess shared by every test that reads only the matches it
    makes itself (by id): a server start costs seconds. Tests that count or list matches, set flags or stop
    the server start their own."""
    with mcp_server() as url:
        yield url


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture
async def person(browser: Any) -> AsyncIterator[Any]:
    """A page in a fresh browser context (its own storage), at laptop width."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(20_000)
    try:
        yield page
    finally:
        await context.close()
