"""Kernels are registered as typed `KernelFactory` functions; "module:Class" import paths still work for
one release, deprecated; `kernels.make` loads only the games entry-point group."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from negotiation_platform.games.split_100 import Split100Game
from negotiation_platform.registry import Registry, hookimpl
from negotiation_platform.registry.kernel_factory import ImportPathKernel


class OldStylePlugin:
    """A third-party plugin that still registers its kernels as import paths, and one broken offer."""

    @hookimpl
    def register_games(self) -> list[type[Any]]:
        return [Split100Game]

    @hookimpl
    def register_kernels(self) -> dict[str, object]:
        return {"split_100": "negotiation_platform.kernels.split_100:Split100Env", "ghost": 42}


def test_an_import_path_registration_is_a_deprecated_kernel_factory() -> None:
    registry = Registry(entry_points=False)
    registry.register(OldStylePlugin(), name="old")
    with pytest.warns(DeprecationWarning, match="import path .* is deprecated"):
        kernels = registry.kernels()
    assert kernels == {"split_100": ImportPathKernel("negotiation_platform.kernels.split_100:Split100Env")}
    assert any("'ghost' is not a KernelFactory" in problem.reason for problem in registry.problems)
    pytest.importorskip("jax")
    from negotiation_platform.kernels import kernel_for

    with pytest.warns(DeprecationWarning):
        env, params = kernel_for(registry, "split_100", {"rounds": 3})
    assert env.game_id == "split_100" and int(params.rounds) == 3


def test_make_loads_only_the_games_entry_point_group() -> None:
    """Kernels come with their games: `make` imports no transport and no agents plugin (MCP, A2A, ...)."""
    pytest.importorskip("jax")
    code = (
        "import importlib.metadata as md, json, sys\n"
        "from negotiation_platform.kernels import marl\n"
        "marl.make('split_100')\n"
        "games = {ep.module for ep in md.entry_points(group='negotiation_platform.games')}\n"
        "others = {ep.module for g in ('negotiation_platform.agents', 'negotiation_platform.transports')\n"
        "          for ep in md.entry_points(group=g)} - games\n"
        "print(json.dumps(sorted(m for m in [*others, 'mcp', 'a2a'] if m in sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
