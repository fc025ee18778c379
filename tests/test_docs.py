"""The documentation site builds with `mkdocs build --strict`: every page in the nav, every link and
anchor resolving, every docstring the API reference renders, and the CLI reference generated."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(out),
        ],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr[-4000:]
    return out


def test_the_cli_reference_is_generated_from_the_parser(site: Path) -> None:
    page = (site / "cli" / "index.html").read_text()
    assert "<!-- cli-reference -->" not in page
    for command in ("play", "rules", "simulate", "tournament", "serve mcp", "serve a2a", "serve view"):
        assert f"usage: negotiation-platform {command}" in page


def test_the_api_reference_renders_the_docstrings(site: Path) -> None:
    page = (site / "reference" / "base_game" / "index.html").read_text()
    assert "Abstract base of all negotiation games" in page
    assert "bargaining_position" in page


def test_pages_link_nowhere_outside_the_repository() -> None:
    outside = re.compile(r"https?://(?!127\.0\.0\.1|localhost)[^\s)\"'>`]+")
    found = {str(page.relative_to(DOCS)): outside.findall(page.read_text()) for page in DOCS.rglob("*.md")}
    assert {page: links for page, links in found.items() if links} == {}
