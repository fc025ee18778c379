"""The documentation site builds with `mkdocs build --strict`: every page in the nav, every link and
anchor resolving, every docstring the API reference renders, and the CLI reference generated."""

from __future__ import annotations

import asyncio
import html
import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest

from negotiation_platform.agents import ConcessionAgent, play_match
from negotiation_platform.arena import Arena
from negotiation_platform.registry import Registry

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


def test_the_spec_reference_lists_every_field_of_every_spec_model(site: Path) -> None:
    spec_reference = importlib.import_module("scripts.spec_reference")
    page = (site / "reference" / "spec" / "index.html").read_text()
    assert "<!-- spec-fields -->" not in page
    models = spec_reference.spec_models()
    assert {"PhaseSpec", "PhaseLimits", "MessagingPolicy", "ActionSpec", "RolesSpec", "GameSpec"} <= {
        m.__name__ for m in models
    }
    for model in models:
        section = page.split(f'id="{model.__name__.lower()}"', 1)[1].split("<h3", 1)[0]
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no Field description"
            assert f"<code>{name}</code>" in section and html.escape(field.description, quote=False).split("`")[0] in (
                section
            ), f"{model.__name__}.{name}"
    for choice in spec_reference.spec_choices():
        section = page.split(f'id="{choice.__name__.lower()}"', 1)[1].split("<h3", 1)[0]
        docs = spec_reference.member_docs(choice)
        for member in choice:
            assert docs.get(member.name), f"{choice.__name__}.{member.name} has no docstring"
            assert f"<code>{member.value}</code>" in section


def test_the_api_reference_renders_the_docstrings(site: Path) -> None:
    page = (site / "reference" / "base_game" / "index.html").read_text()
    assert "Abstract base of all negotiation games" in page
    assert "bargaining_position" in page


def test_the_site_fetches_no_fonts_from_elsewhere(site: Path) -> None:
    """The theme's web fonts are off (`font: false`): the site reads as it is, offline."""
    fetched = [
        str(path.relative_to(site))
        for path in site.rglob("*")
        if path.suffix in {".html", ".css", ".js"} and re.search(r"fonts\.(googleapis|gstatic)\.com", path.read_text())
    ]
    assert fetched == []


def test_pages_link_nowhere_outside_the_repository() -> None:
    outside = re.compile(r"https?://(?!127\.0\.0\.1|localhost)[^\s)\"'>`]+")
    found = {str(page.relative_to(DOCS)): outside.findall(page.read_text()) for page in DOCS.rglob("*.md")}
    assert {page: links for page, links in found.items() if links} == {}


SPEED_CLAIM = re.compile(r"\d(\.\d+)?\s?[x×]\s(faster|slower)|µs|\bper second\b|\bKB per match")
"""A measured speed in prose: measured figures belong to the scripts under benchmarks/, which print
them against a baseline measured in the same run, not to docstrings and comments that go stale."""


def test_no_source_states_a_measured_speed() -> None:
    sources = [ROOT / "negotiation_platform", ROOT / "plugins", ROOT / "transports"]
    found = {
        f"{path.relative_to(ROOT)}:{number}": line.strip()
        for folder in sources
        for path in folder.rglob("*.py")
        if "tests" not in path.parts and "build" not in path.parts
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if SPEED_CLAIM.search(line)
    }
    assert found == {}


def guide_files(tmp_path: Path) -> Path:
    """The files of the game author's guide, assembled from its titled code blocks (in page order)."""
    blocks = re.findall(r'```\w+ title="([^"]+)"\n(.*?)```', (DOCS / "game-authors-guide.md").read_text(), re.S)
    files: dict[str, str] = {}
    for title, code in blocks:
        files[title] = files.get(title, "") + code
    for title, code in files.items():
        (tmp_path / title).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / title).write_text(code)
    (tmp_path / "negotiation_ultimatum" / "__init__.py").write_text("")
    return tmp_path


@pytest.fixture
def guide_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(guide_files(tmp_path)))
    for name in [m for m in sys.modules if m.startswith("negotiation_ultimatum")]:
        monkeypatch.delitem(sys.modules, name)
    return importlib.import_module("negotiation_ultimatum.plugin")


def test_the_guide_builds_a_game_that_plays_and_draws_its_board(guide_plugin: Any) -> None:
    registry = Registry()
    registry.register(guide_plugin, name="ultimatum", source="negotiation-ultimatum")
    assert registry.problems == [] and "ultimatum" in registry.games()
    agents = [ConcessionAgent(seed=1, name="ann"), ConcessionAgent(seed=2, name="bob")]
    result = asyncio.run(play_match(Arena(registry), "ultimatum", agents, seed=0))
    assert result["status"] == "finished" and sum(result["payoffs"].values()) > 0
    board = registry.render_board("ultimatum", {"round": 1, "pie": 10, "keep": 6}, [])
    assert board is not None and "keeps 6" in board


def test_the_guide_kernel_runs_batched(guide_plugin: Any) -> None:
    jax = pytest.importorskip("jax")
    from negotiation_platform.kernels import kernel_for, rollout
    from negotiation_platform.kernels.rollout import reset_batch

    registry = Registry()
    registry.register(guide_plugin, name="ultimatum")
    env, params = kernel_for(registry, "ultimatum")
    _, state = reset_batch(env, jax.random.key(0), params, 64)
    _, rewards, episodes = rollout(env, params, jax.random.key(1), state, 10)
    assert int(episodes) == 64 * 5 and float(rewards.sum()) > 0


def test_the_guide_kernel_passes_check_kernel(guide_plugin: Any, tmp_path: Path) -> None:
    """The guide's own kernel test, run as the author runs it (with the plugin registered as if installed)."""
    pytest.importorskip("jax")
    registry = Registry()
    registry.register(guide_plugin, name="ultimatum")
    spec = importlib.util.spec_from_file_location("test_ultimatum_kernel", tmp_path / "tests/test_ultimatum_kernel.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with patch("negotiation_platform.testing.kernel_check.Registry", return_value=registry):
        module.test_the_kernel_plays_as_the_game()


def test_the_guide_game_passes_the_game_author_kit(guide_plugin: Any) -> None:
    testing = pytest.importorskip("negotiation_platform.testing")
    game = importlib.import_module("negotiation_ultimatum.game")
    testing.check_game(game.UltimatumGame, seeds=range(5))
