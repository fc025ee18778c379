"""Games are discovered through entry points of installed distributions; broken plugins are reported."""

from __future__ import annotations

import importlib
import textwrap
import uuid
from pathlib import Path

import pytest

from negotiation_platform.registry import Registry

GAME_MODULE = """
from negotiation_platform.games.split_100 import Split100Game
from negotiation_platform.registry import hookimpl
from negotiation_platform.spec import GameSpec


class {cls}(Split100Game):
    @classmethod
    def build_spec(cls, config):
        spec = super().build_spec(config)
        return spec.model_copy(update={{"id": "{game_id}", "title": "{title}"}})


@hookimpl
def register_games():
    return [{cls}]
"""

BAD_SPEC_MODULE = """
from negotiation_platform.games.split_100 import Split100Game
from negotiation_platform.registry import hookimpl
from negotiation_platform.spec import GameSpec, OutcomeSpec


class BadSpecGame(Split100Game):
    @classmethod
    def build_spec(cls, config):
        return GameSpec(id="bad_spec", title="x", summary="x", phases=(), outcome=OutcomeSpec(description="x"))


@hookimpl
def register_games():
    return [BadSpecGame]
"""


def make_distribution(root: Path, dist: str, module: str, source: str) -> str:
    """Write a throwaway installed distribution: a dist-info folder and a module on sys.path."""
    (root / f"{module}.py").write_text(source)
    info = root / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        textwrap.dedent(f"""\
            [negotiation_platform.games]
            {module} = {module}
            """)
    )
    return module


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    return tmp_path


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def test_builtin_games_come_through_entry_points() -> None:
    registry = Registry()
    games = registry.games()
    assert {"split_100", "auction"} <= set(games)
    assert games["split_100"].source == "negotiation-platform"
    assert Registry(entry_points=False).games() == {}


def test_third_party_distribution_is_discovered(site: Path) -> None:
    module = make_distribution(
        site, "acme-games", unique("acme"), GAME_MODULE.format(cls="AcmeGame", game_id="acme_split", title="Acme")
    )
    registry = Registry()
    entry = registry.games()["acme_split"]
    assert entry.source == "acme-games" and entry.plugin == module
    assert entry.summary()["title"] == "Acme"
    assert registry.problems == []


def test_broken_plugins_are_reported_and_others_still_load(site: Path) -> None:
    good = make_distribution(
        site, "good-games", unique("good"), GAME_MODULE.format(cls="GoodGame", game_id="good_game", title="Good")
    )
    broken = make_distribution(site, "broken-games", unique("broken"), "import not_a_real_module_xyz\n")
    bad_spec = make_distribution(site, "badspec-games", unique("badspec"), BAD_SPEC_MODULE)
    dup = make_distribution(
        site, "dup-games", unique("dup"), GAME_MODULE.format(cls="Dup", game_id="split_100", title="Dup")
    )
    registry = Registry()
    games = registry.games()
    assert "good_game" in games and games["split_100"].source == "negotiation-platform"
    problems = {p.plugin: p for p in registry.problems}
    assert set(problems) == {broken, bad_spec, dup}
    assert "not_a_real_module_xyz" in problems[broken].reason and problems[broken].source == "broken-games"
    assert "invalid spec" in problems[bad_spec].reason
    assert "duplicate game id 'split_100'" in problems[dup].reason and "builtin_games" in problems[dup].reason
    assert good not in problems


def test_registry_can_be_embedded_without_entry_points() -> None:
    from negotiation_platform.registry import builtin_games as plugin

    registry = Registry(entry_points=False)
    registry.register(plugin, name="mine")
    assert {"split_100", "auction", "company_car"} <= set(registry.games())
    assert registry.games()["auction"].source is None
