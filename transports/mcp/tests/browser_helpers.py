"""Shared by the browser tests: Debian's chromium driven by Playwright, and a screenshot that must show something."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageStat

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="no chromium installed (apt-get install chromium)"
)


async def screenshot(page: Any, path: Path) -> None:
    """Write the page's screenshot and check that it shows something: not one flat colour."""
    await page.screenshot(path=str(path), full_page=True)
    with Image.open(path) as image:
        spread = ImageStat.Stat(image.convert("L")).stddev[0]
    assert spread > 5, f"{path.name} looks blank (pixel standard deviation {spread:.2f})"
