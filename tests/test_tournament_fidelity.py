"""A tournament's match with seed S is the match `negotiation-platform play GAME --seed S` plays, for every game."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from rich.console import Console

from negotiation_platform.cli.main import build_parser, cmd_play, seat_specs
from negotiation_platform.registry import Registry
from negotiation_platform.research.tournament import MatchPlan, play_recorded

REGISTRY = Registry()
SEED = 3
SHORT = {"rounds": 3, "max_length": 12, "negotiation_steps": 4}
"""Short matches, where a game's config has these fields (a few rounds still take every agent past its first move)."""


def short_config(game: str) -> dict[str, Any]:
    fields = REGISTRY.game(game).cls.Config.model_fields
    return {name: value for name, value in SHORT.items() if name in fields}


@pytest.mark.parametrize("game", sorted(REGISTRY.games()))
def test_a_tournament_seed_plays_the_match_play_plays(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    config = short_config(game)
    argv = ["play", game, "--seed", str(SEED), "--json", "--config", json.dumps(config)]
    args = build_parser(REGISTRY).parse_args(argv)  # play's default agents, whatever they are
    assert cmd_play(args, REGISTRY, Console()) == 0
    played = json.loads(capsys.readouterr().out)
    seats = len(played["players"])
    plan = MatchPlan(game, tuple(seat_specs(args.agents, seats)), SEED, config)
    result, _ = asyncio.run(play_recorded(plan, REGISTRY))
    ours = json.loads(json.dumps(result, sort_keys=True))  # as play's --json prints it
    assert ours["players"] == played["players"]
    assert ours["events"] == played["events"]
    assert ours["payoffs"] == played["payoffs"]
    assert (ours["terms"], ours["rounds"]) == (played["terms"], played["rounds"])
