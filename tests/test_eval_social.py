"""`eval-social` and the greedy and cooperative agents: the paper's social evaluation on scripted agents."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from negotiation_platform.cli.main import main
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry
from negotiation_platform.research.social_evaluation import evaluate_social, interval
from negotiation_platform.research.tournament import MatchPlan, play_plan

SCRIPTED = ["greedy", "cooperative", "concession", "random"]


def eval_social(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "negotiation_platform.cli.main", "eval-social", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def pair(report: dict[str, Any], a: str, b: str) -> dict[str, Any]:
    return next(p for p in report["pairs"] if p["agents"] == [a, b])


def agent(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in report["agents"] if s["agent"] == name)


def intervals(value: Any) -> list[dict[str, Any]]:
    """Every interval in a report, found by shape."""
    if isinstance(value, dict):
        found = [value] if {"mean", "low", "high", "n"} <= set(value) else []
        return found + [i for inner in value.values() for i in intervals(inner)]
    if isinstance(value, list):
        return [i for inner in value for i in intervals(inner)]
    return []


@pytest.mark.parametrize(
    ("game", "greedy_pair", "cooperative_pair", "pot"),
    [("trust_and_split", 550.0, 1000.0, 1000.0), ("split_100", 0.0, 100.0, 100.0)],
)
def test_eval_social_cli_scores_the_round_robin(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    game: str,
    greedy_pair: float,
    cooperative_pair: float,
    pot: float,
) -> None:
    args = (game, "--agents", *SCRIPTED, "--matches", "3", "--seed", "5", "--json")
    assert main(["eval-social", *args, "--out", str(tmp_path)]) == 0  # in this process: the subprocess is below
    printed = capsys.readouterr().out
    report = json.loads(printed)
    assert report["max_collective_payoff"] == pot
    assert {tuple(p["agents"]) for p in report["pairs"]} == {(a, b) for a in SCRIPTED for b in SCRIPTED}
    assert all(p["self_play"] == (p["agents"][0] == p["agents"][1]) for p in report["pairs"])
    # Greedy against itself: in trust_and_split both claim all 10 coins and get 5 each (50 + 5 a round);
    # in split_100 neither ever accepts. Two cooperative agents give every round's coins to the winner
    # of the hands (told by their messages), or split the pot 50/50 at once.
    assert pair(report, "greedy", "greedy")["collective"]["mean"] == greedy_pair
    assert pair(report, "cooperative", "cooperative")["collective"]["mean"] == cooperative_pair
    assert agent(report, "cooperative")["self_play_efficiency"]["mean"] == 1.0
    assert (
        agent(report, "greedy")["self_play_collective"]["mean"]
        < agent(report, "cooperative")["self_play_collective"]["mean"]
    )
    # Against greedy, cooperative gets at most what greedy gets from it: robustness is measured, not assumed.
    cooperative_vs_greedy = agent(report, "cooperative")["vs_greedy"]
    assert cooperative_vs_greedy["n"] == 6  # 3 matches in each seat
    assert cooperative_vs_greedy["mean"] <= pair(report, "greedy", "cooperative")["payoffs"][0]["mean"]
    for found in intervals(report):
        assert found["low"] <= found["mean"] <= found["high"]
    for p in report["pairs"]:
        assert p["collective"]["n"] == 3
        assert p["efficiency"]["mean"] == pytest.approx(p["collective"]["mean"] / pot)
    assert json.loads((tmp_path / "social.json").read_text()) == report
    assert len((tmp_path / "matches.jsonl").read_text().splitlines()) == 16 * 3
    if game == "split_100":  # `report` on the folder adds the social tables (once: figures take time)
        pytest.importorskip("matplotlib")
        from negotiation_platform.research.report import write_report

        write_report(tmp_path)
        page = (tmp_path / "report.md").read_text()
        assert "## Social evaluation of split_100: agents" in page
        assert "| cooperative | cooperative | 50.00 [50.00, 50.00] | 50.00 [50.00, 50.00] | 100.00" in page
    if game == "trust_and_split":  # the one with chance in it (hands, random's draws): same seed, same report,
        again = eval_social(*args)  # from the command as a user runs it, in another process
        assert again.returncode == 0, again.stderr
        assert again.stdout == printed


def test_the_bootstrap_seed_moves_the_intervals_not_the_means() -> None:
    registry = Registry()
    first = evaluate_social("trust_and_split", ["random"], matches=4, registry=registry).model_dump()
    other = evaluate_social("trust_and_split", ["random"], matches=4, seed=1, registry=registry).model_dump()
    assert [i["mean"] for i in intervals(first)] == [i["mean"] for i in intervals(other)]
    assert [(i["low"], i["high"]) for i in intervals(first)] != [(i["low"], i["high"]) for i in intervals(other)]


def test_eval_social_refusals_are_one_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    def refused(*args: str) -> dict[str, Any]:
        assert main(["eval-social", *args, "--json"]) == 2
        error: dict[str, Any] = json.loads(capsys.readouterr().err)["error"]
        return error

    assert refused("no_such_game", "--agents", "greedy")["code"] == "unknown_game"
    assert refused("split_100", "--agents", "greedy", "--matches", "0")["code"] == "invalid_argument"
    assert "nobody" in refused("split_100", "--agents", "nobody")["message"]


def test_no_press_welfare_and_its_undetermined_maximum_elsewhere() -> None:
    registry = Registry()
    report = evaluate_social("no_press", ["cooperative"], matches=2, registry=registry)
    # Public values 1 and 10: cooperative gives all 10 coins to the agent valuing them at 10, every round.
    assert report.max_collective_payoff == 10 * 10 * 10
    scores = {s.agent: s for s in report.agents}
    assert scores["cooperative"].self_play_efficiency is not None
    assert scores["cooperative"].self_play_efficiency.mean == 1.0
    # Greedy against itself: both claim 10, each gets 5 coins: 5·1 + 5·10 a round.
    assert scores["greedy"].self_play_collective.mean == 550.0
    # Against cooperative, greedy's claim of all 10 coins halves the rounds where cooperative values them at 10
    # (5 coins each: greedy 5·1, cooperative 5·10) and takes the rounds where cooperative leaves them (10·10).
    greedy_first = next(p for p in report.pairs if p.agents == ("greedy", "cooperative"))
    assert [p.mean for p in greedy_first.payoffs] == [5 * 5 + 5 * 100, 5 * 50]
    dond = evaluate_social("deal_or_no_deal", ["cooperative"], matches=2, registry=registry)
    assert dond.max_collective_payoff is None
    assert all(p.efficiency is None for p in dond.pairs)


def play(game: str, agents: tuple[str, str], seed: int) -> dict[str, Any]:
    return asyncio.run(play_plan(MatchPlan(game, agents, seed), Registry()))


def test_deal_or_no_deal_cooperative_agents_fill_the_stock_greedy_ones_never_deal() -> None:
    for seed in range(3):
        together = play("deal_or_no_deal", ("cooperative", "cooperative"), seed)
        rounds = together["terms"]["allocations"]
        # A round pays only when the claims add up exactly to the stock: every round must have paid something.
        assert all(any(sum(items.values()) > 0 for items in r["allocations"].values()) for r in rounds)
        assert play("deal_or_no_deal", ("greedy", "greedy"), seed)["payoffs"] == [0.0, 0.0]


def test_split_100_greedy_claims_the_pot_and_cooperative_accepts_only_fair_offers() -> None:
    # greedy never accepts less than everything, cooperative never offers more than half: no deal.
    assert play("split_100", ("greedy", "cooperative"), 0)["payoffs"] == [0.0, 0.0]
    # concession's demands fall toward 0 over the rounds: cooperative takes the first at least half.
    row = play("split_100", ("concession", "cooperative"), 0)
    assert row["agreement"] and row["payoffs"][1] >= 50


def test_interval_is_seeded_and_exact_for_constant_samples() -> None:
    constant = interval([3.0, 3.0, 3.0], np.random.default_rng(0))
    assert (constant.low, constant.mean, constant.high, constant.n) == (3.0, 3.0, 3.0, 3)
    values = [0.0, 1.0, 5.0, 2.0, 9.0]
    first, second = interval(values, np.random.default_rng(4)), interval(values, np.random.default_rng(4))
    assert first == second
    assert first.mean == 3.4 and 0.0 <= first.low < 3.4 < first.high <= 9.0
    with pytest.raises(NegotiationError) as refused:
        interval([], np.random.default_rng(0))
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
