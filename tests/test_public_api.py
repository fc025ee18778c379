"""The public API: every name importable from `negotiation_platform`, lazily, and visible to type checkers."""

from __future__ import annotations

import ast
import importlib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import negotiation_platform

ROOT = Path(__file__).resolve().parent.parent
CONSUMER = ROOT / "tests" / "data" / "consumer.py"
TRANSPORT_CONSUMER = ROOT / "tests" / "data" / "transport_consumer.py"
DISTRIBUTIONS = {
    ".": "negotiation_platform",
    "plugins/coin_games": "negotiation_coin_games",
    "plugins/adasociety": "negotiation_adasociety",
    "transports/mcp": "negotiation_mcp",
    "transports/a2a": "negotiation_a2a",
    "transports/openenv": "negotiation_openenv",
    "integrations/verifiers": "negotiation_verifiers",
}
SHARED_CACHE = ("--cache-dir", str(ROOT / ".mypy_cache" / "outside-the-checkout"))
"""One cache for the mypy runs outside the checkout (a fresh cache re-checks every module they import), apart
from the checkout's: pyproject.toml's per-module options differ, and a shared cache would re-check those modules
each time the other configuration ran."""


def run_python(*args: str, timeout: float = 120, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}  # only what the install provides
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env)


@pytest.mark.parametrize("name", negotiation_platform.__all__)
def test_every_public_name_is_the_object_of_its_home_module(name: str) -> None:
    home = negotiation_platform._HOME_OF[name]
    assert getattr(negotiation_platform, name) is getattr(importlib.import_module(home), name)
    assert name in dir(negotiation_platform)


def test_all_lists_exactly_the_lazily_loaded_names_and_nothing_else_resolves() -> None:
    assert sorted(negotiation_platform.__all__) == sorted(negotiation_platform._HOME_OF)
    with pytest.raises(AttributeError, match="no attribute 'Arenaa'"):
        _ = negotiation_platform.Arenaa  # type: ignore[attr-defined]


def test_type_checkers_see_the_same_names_from_the_same_modules() -> None:
    """The `if TYPE_CHECKING:` imports (what mypy reads) match the run-time table name for name."""
    tree = ast.parse(Path(negotiation_platform.__file__).read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    seen = {
        alias.name: node.module
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module != "typing"
        for alias in node.names
    }
    assert seen == negotiation_platform._HOME_OF


def test_importing_the_package_loads_none_of_its_modules() -> None:
    done = run_python(
        "-c",
        "import sys, negotiation_platform\n"
        "print(sorted(m for m in sys.modules if m.startswith(('negotiation_platform.', 'pydantic', 'pluggy'))))\n"
        "negotiation_platform.Arena\n"
        "print('negotiation_platform.arena' in sys.modules, 'jax' in sys.modules, 'mcp' in sys.modules)",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "True False False"]


def test_a_consumer_type_checks_under_mypy_strict_and_runs(tmp_path: Path) -> None:
    """Checked outside the checkout and without MYPYPATH: mypy finds the package through the README's
    editable install alone (a path entry, not setuptools' import hook, which type checkers cannot see)."""
    script = tmp_path / "consumer.py"
    shutil.copy(CONSUMER, script)
    checked = run_python("-m", "mypy", "--strict", *SHARED_CACHE, str(script), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = run_python(str(script), cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    arena_line, engine_line = ran.stdout.splitlines()
    assert arena_line.startswith("arena: finished after ") and "'half': 50.0" in arena_line
    assert engine_line == "engine: payoffs {'ann': 6.0, 'bob': 4.0}, terms {'ann': 6, 'bob': 4}"


def test_the_transports_and_plugins_type_check_like_the_core(tmp_path: Path) -> None:
    """The README installs the transports and plugins editable too: mypy must see them (and what they
    return) from outside the checkout, with no MYPYPATH, as it sees the core."""
    script = tmp_path / "transport_consumer.py"
    shutil.copy(TRANSPORT_CONSUMER, script)
    checked = run_python("-m", "mypy", "--strict", *SHARED_CACHE, str(script), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_mypy_reads_the_real_types_not_any(tmp_path: Path) -> None:
    misuse = tmp_path / "misuse.py"
    misuse.write_text("from negotiation_platform import Registry\nn: int = Registry().games()\n")
    checked = run_python("-m", "mypy", "--strict", str(misuse), timeout=300)
    assert checked.returncode == 1
    assert 'expression has type "dict[str, GameEntry]", variable has type "int"' in checked.stdout


def test_mypy_reads_what_a_kernel_is(tmp_path: Path) -> None:
    misuse = tmp_path / "kernel.py"
    misuse.write_text('from negotiation_platform.kernels import make\nenv, params = make("split_100")\nn: int = env\n')
    checked = run_python("-m", "mypy", "--strict", *SHARED_CACHE, str(misuse), timeout=300, cwd=tmp_path)
    assert checked.returncode == 1
    assert 'expression has type "Env[Any, Any]", variable has type "int"' in checked.stdout


def test_mypy_checks_a_bargaining_position_key_by_key(tmp_path: Path) -> None:
    misuse = tmp_path / "position.py"
    misuse.write_text(
        "from negotiation_platform import BargainingPosition\n"
        'p: BargainingPosition = {"action": "offer", "feild": "price", "best": "high"}\n'
    )
    checked = run_python("-m", "mypy", "--strict", *SHARED_CACHE, str(misuse), timeout=300, cwd=tmp_path)
    assert checked.returncode == 1
    assert 'Extra key "feild" for TypedDict "BargainingPosition"' in checked.stdout
    assert 'TypedDict item "best" has type "float"' in checked.stdout


@pytest.mark.parametrize(("folder", "package"), DISTRIBUTIONS.items())
def test_every_distribution_ships_its_py_typed_marker(folder: str, package: str) -> None:
    project = tomllib.loads((ROOT / folder / "pyproject.toml").read_text())
    assert "py.typed" in project["tool"]["setuptools"]["package-data"][package]
    assert (ROOT / folder / package / "py.typed").is_file()
