"""Warnings rather than silence: plugin modules without hooks, negotiators without a bargaining position."""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path
from typing import Any

import pytest

from negotiation_platform.agents.batna_aware import BatnaAwareAgent
from negotiation_platform.agents.concession import ConcessionAgent, NoBargainingPositionWarning
from negotiation_platform.registry import PluginWarning, Registry
from negotiation_platform.registry.registry import GAMES_GROUP


def install_plugin(root: Path, monkeypatch: pytest.MonkeyPatch, module: str, source: str) -> None:
    """A distribution on sys.path whose games entry point names `module`."""
    (root / f"{module}.py").write_text(source)
    info = root / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{GAMES_GROUP}]\n{module}_ep = {module}\n")
    monkeypatch.syspath_prepend(str(root))
    importlib.invalidate_caches()


def test_hook_functions_without_hookimpl_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_plugin(tmp_path, monkeypatch, "kit_unmarked", "def register_games():\n    return []\n")
    with pytest.warns(PluginWarning) as caught:
        Registry(groups=[GAMES_GROUP])
    message = str(caught[0].message)
    assert "kit_unmarked_ep = 'kit_unmarked'" in message and "register_games lack @hookimpl" in message
    assert "from negotiation_platform.registry import hookimpl" in message


def test_a_module_with_no_hooks_at_all_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_plugin(tmp_path, monkeypatch, "kit_empty", "GAMES = []\n")
    with pytest.warns(PluginWarning, match="kit_empty_ep = 'kit_empty' in group 'negotiation_platform.games' has no"):
        Registry(groups=[GAMES_GROUP])


def test_the_shipped_plugins_load_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", PluginWarning)
        Registry()


def bargaining_turn(position: dict[str, Any] | None) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"mine": {"type": "integer", "minimum": 0, "maximum": 100}}}
    return {
        "game_id": "haggle",
        "round": 1,
        "rounds": 4,
        "allowed_actions": [
            {"name": "propose", "payload_schema": schema},
            {"name": "accept", "payload_schema": {"type": "object", "properties": {}}},
        ],
        "bargaining": position,
    }


@pytest.mark.parametrize("agent", [ConcessionAgent(seed=1), BatnaAwareAgent(seed=1)])
def test_negotiators_warn_once_without_a_position(agent: Any) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent.decide(bargaining_turn(None))
        agent.decide(bargaining_turn(None))
    ours = [w for w in caught if issubclass(w.category, NoBargainingPositionWarning)]
    assert len(ours) == 1
    assert (
        f"agent {agent.name!r} plays 'haggle', which offers ['accept', 'propose'] but no bargaining_position()"
        in str(ours[0].message)
    )


def test_negotiators_with_a_position_do_not_warn() -> None:
    position = {"action": "propose", "field": "mine", "best": 100, "reservation": 0, "accept_action": "accept"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoBargainingPositionWarning)
        decision = ConcessionAgent(seed=1).decide(bargaining_turn(position))
    assert decision.action == "propose" and decision.payload["mine"] > 50
