"""Writes a new game package from the templates in `templates/` (rendered with `string.Template`).

The package is complete from the start: a spec with a pydantic payload, private views, prompts, a
bargaining position, a plugin module registered through the `negotiation_platform.games` entry
point, tests that use `check_game`, and a README; its own tests pass as soon as it is installed.
"""

from __future__ import annotations

import keyword
import re
import sys
from importlib.resources import files
from pathlib import Path
from string import Template

GAME_NAME = re.compile(r"^[a-z][a-z0-9_]{0,59}$")
LAYOUT = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "package_init.py.tmpl": "{name}/__init__.py",
    "game.py.tmpl": "{name}/game.py",
    "plugin.py.tmpl": "{name}/plugin.py",
    "test_game.py.tmpl": "tests/test_{name}.py",
}
"""Each template and where it goes in the new project."""


class ScaffoldRefused(ValueError):
    """The name or the place cannot hold a new game; the message says why, in one line."""


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a game id and a Python package name at once, or None."""
    if not GAME_NAME.match(name):
        return (
            f"{name!r} is not a valid game name: use a lowercase Python identifier of at most 60 characters "
            "(a-z, 0-9, _; starting with a letter), e.g. 'my_game'"
        )
    if keyword.iskeyword(name) or name in sys.stdlib_module_names or name.startswith("negotiation_platform"):
        return f"{name!r} would shadow a Python keyword or module; pick another name"
    return None


def scaffold_game(name: str, parent: Path) -> Path:
    """Write the package for game `name` into `parent / name`; returns that directory."""
    problem = name_problem(name)
    if problem:
        raise ScaffoldRefused(problem)
    root = parent / name
    if root.exists():
        raise ScaffoldRefused(f"{root} already exists; choose another --dir or name")
    words = name.split("_")
    camel = "".join(w.capitalize() for w in words if w)
    values = {
        "name": name,
        "class_name": camel if camel.endswith("Game") else camel + "Game",
        "title": " ".join(words).strip().capitalize(),
        "dist_name": name.replace("_", "-"),
    }
    templates = files("negotiation_platform.kit") / "templates"
    for template, target in LAYOUT.items():
        path = root / target.format(name=name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(Template(templates.joinpath(template).read_text()).substitute(values))
    return root
