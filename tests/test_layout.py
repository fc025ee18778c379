"""The layout: docs/architecture.md, the import-linter layers contract and the tree say the same thing.

The page lists the layers bottom up; `.importlinter` lists them top down for `lint-imports`; every
top-level package of `negotiation_platform` is in both, and every package they name exists. The old
paths of moved modules are deprecated aliases: each warns once and offers its new home's objects.
"""

from __future__ import annotations

import configparser
import importlib
import re
import sys
from pathlib import Path

import pytest

import negotiation_platform

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(negotiation_platform.__file__).parent
PAGE = ROOT / "docs" / "architecture.md"
CONTRACT = ROOT / ".importlinter"
ALIAS_MARK = "# deprecated-shim"
LAYER_LINE = re.compile(r"^\d+\. (\*\*\w+\*\*(?: \| \*\*\w+\*\*)*) — ", re.M)
MOVED_ROW = re.compile(r"^\| `negotiation_platform\.([\w.]+)` \| `negotiation_platform\.([\w.]+)` \|$", re.M)


def is_alias(path: Path) -> bool:
    return ALIAS_MARK in path.read_text(encoding="utf-8")


def page_layers() -> list[set[str]]:
    """The page's layers, bottom up, each a set of sibling package names."""
    return [set(re.findall(r"\*\*(\w+)\*\*", line)) for line in LAYER_LINE.findall(PAGE.read_text(encoding="utf-8"))]


def contract_layers() -> list[set[str]]:
    """The contract's layers, bottom up (the file lists them top down), without the package prefix."""
    config = configparser.ConfigParser()
    config.read(CONTRACT, encoding="utf-8")
    lines = [line.strip() for line in config["importlinter:contract:layers"]["layers"].splitlines() if line.strip()]
    return [{name.strip().removeprefix("negotiation_platform.") for name in line.split("|")} for line in lines][::-1]


def top_level_packages() -> set[str]:
    return {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists() and not is_alias(p / "__init__.py")}


def aliases() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if is_alias(path):
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def test_the_page_lists_the_contracts_layers_in_its_order() -> None:
    assert len(page_layers()) > 10
    assert page_layers() == contract_layers()


def test_every_top_level_package_is_a_layer_and_every_layer_a_package() -> None:
    named = set().union(*page_layers())
    assert named == top_level_packages(), (named - top_level_packages(), top_level_packages() - named)


def test_the_top_level_holds_only_errors_and_deprecated_aliases() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py") if not is_alias(p)}
    assert modules == {"__init__", "errors"}


def test_the_moved_table_lists_every_alias_and_its_new_home() -> None:
    rows = dict(MOVED_ROW.findall(PAGE.read_text(encoding="utf-8")))
    found = {name.removeprefix("negotiation_platform."): path for name, path in aliases().items()}
    assert set(rows) == set(found)
    for old, new in rows.items():
        assert f"`negotiation_platform.{new}`; this alias" in found[old].read_text(encoding="utf-8"), old


@pytest.mark.parametrize("name", sorted(aliases()))
def test_a_deprecated_alias_warns_and_offers_its_new_homes_objects(name: str) -> None:
    sys.modules.pop(name, None)
    with pytest.warns(DeprecationWarning, match=rf"^{re.escape(name)} moved to negotiation_platform\.") as warned:
        alias = importlib.import_module(name)
    new = str(warned[0].message).split(" moved to ")[1].split(":")[0]
    home = importlib.import_module(new)
    for exported in getattr(alias, "__all__", []):
        assert getattr(alias, exported) is getattr(home, exported)


def test_the_layers_contract_holds() -> None:
    """What `tox -e lint` runs; here too where import-linter is installed (the dev extra brings it)."""
    pytest.importorskip("importlinter")
    from importlinter.cli import lint_imports  # type: ignore[import-not-found, unused-ignore]

    assert lint_imports(config_filename=str(CONTRACT)) == 0
