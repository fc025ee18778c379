"""The coin games: scaling, draws, payoffs, alternation, budgets and privacy."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
import time
from importlib.metadata import distribution
from typing import Any

import pytest

from negotiation_coin_games import CoinsClassic, DealOrNoDeal, NoPress, TrustAndSplit, proportional_allocation
from negotiation_coin_games.deal_table import deal_table, value_vectors
from negotiation_platform.agents.payloads import sample_payload
from negotiation_platform.arena import Arena
from negotiation_platform.engine import Match
from negotiation_platform.errors import ErrorCode, NegotiationError

COIN_GAMES = {"coins_classic", "trust_and_split", "deal_or_no_deal", "no_press"}


def new(game: type, seed: int = 0, **config: Any) -> Match:
    return Match(game, ["a", "b"], config=config, seed=seed)


def finish_talk(m: Match) -> None:
    while m.phase == "talk":
        m.submit(m.acting()[0], "pass")


def split(m: Match, claims: dict[str, dict[str, int]]) -> None:
    finish_talk(m)
    for player, claim in claims.items():
        m.submit(player, "split", claim)


class TestScaling:
    @pytest.mark.parametrize(
        ("claims", "expected"),
        [
            ({"a": 4, "b": 6}, {"a": 4, "b": 6}),  # exact fit
            ({"a": 3, "b": 2}, {"a": 3, "b": 2}),  # under-claim: 5 coins are lost
            ({"a": 10, "b": 10}, {"a": 5, "b": 5}),
            ({"a": 7, "b": 8}, {"a": 10 * 7 / 15, "b": 10 * 8 / 15}),  # fractional
            ({"a": 0, "b": 0}, {"a": 0, "b": 0}),
        ],
    )
    def test_proportional_allocation(self, claims: dict[str, int], expected: dict[str, float]) -> None:
        assert proportional_allocation(10, claims) == pytest.approx(expected)

    def test_rewards_use_scaled_allocations_and_own_values(self) -> None:
        m = new(CoinsClassic, seed=5)
        values = {p: m.game.round_data["values"][p]["coins"] for p in m.players}
        split(m, {"a": {"coins": 9}, "b": {"coins": 6}})
        rewards = m.game.game_data["rounds"][0]["rewards"]
        assert rewards == pytest.approx({"a": 10 * 9 / 15 * values["a"], "b": 10 * 6 / 15 * values["b"]})


class TestDealOrNoDeal:
    @pytest.mark.parametrize("seed", range(40))
    def test_stock_and_value_invariants(self, seed: int) -> None:
        m = new(DealOrNoDeal, seed=seed, rounds=3)
        for r in range(3):
            data = m.game.round_data
            stock, values = data["stock"], data["values"]
            assert 5 <= sum(stock.values()) <= 7 and all(1 <= n <= 4 for n in stock.values())
            for p in m.players:
                assert sum(stock[i] * values[p][i] for i in stock) == 10
            assert all(values["a"][i] or values["b"][i] for i in stock)  # every item valued by someone
            assert any(values["a"][i] and values["b"][i] for i in stock)  # some item valued by both
            if r < 2:
                split(m, {"a": dict.fromkeys(stock, 0), "b": dict.fromkeys(stock, 0)})

    def test_value_vectors_enumerates_exact_totals(self) -> None:
        vectors = value_vectors((2, 3, 1), 10)
        assert (2, 1, 3) in vectors and all(2 * x + 3 * y + z == 10 for x, y, z in vectors)

    def test_exact_match_pays_and_anything_else_pays_nothing(self) -> None:
        m = new(DealOrNoDeal, seed=1, rounds=2)
        stock, values = m.game.round_data["stock"], m.game.round_data["values"]
        mine = {i: stock[i] // 2 for i in stock}
        theirs = {i: stock[i] - mine[i] for i in stock}
        split(m, {"a": mine, "b": theirs})
        first = m.game.game_data["rounds"][0]
        assert first["deal"] is True
        assert first["rewards"]["a"] == sum(mine[i] * values["a"][i] for i in stock)
        assert first["rewards"]["b"] == sum(theirs[i] * values["b"][i] for i in stock)
        stock2 = m.game.round_data["stock"]
        short = {i: 0 for i in stock2}
        split(m, {"a": short, "b": {i: stock2[i] - (1 if i == "books" else 0) for i in stock2}})  # one book unclaimed
        second = m.game.game_data["rounds"][1]
        assert second["deal"] is False and second["rewards"] == {"a": 0, "b": 0}

    def test_claim_above_stock_is_refused(self) -> None:
        m = new(DealOrNoDeal, seed=2)
        finish_talk(m)
        stock = m.game.round_data["stock"]
        item = next(i for i in stock if stock[i] < 4)
        with pytest.raises(NegotiationError) as info:
            m.submit("a", "split", {**dict.fromkeys(stock, 0), item: stock[item] + 1})
        assert info.value.code is ErrorCode.INVALID_ACTION and "more than the stock" in info.value.message


class TestDealConfigFeasibility:
    """Defect 1 of issue 11: a config from which no round can be drawn hung the server's loop."""

    @pytest.mark.parametrize(
        "config",
        [
            {"value_total": 1},  # no two value vectors can value every item and share one
            {"value_total": 2},
            {"value_total": 1_000_000},
            {"max_count": 1_000_000, "max_total": 1_000_000_000},
            {"value_total": 5_000},  # within bounds, but too many rounds to enumerate
            {"items": ["a", "b", "c", "d", "e", "f"], "max_total": 40},
            {"min_count": 0},
            {"items": ["books", "books", "hats"]},
        ],
    )
    @pytest.mark.anyio
    async def test_infeasible_or_huge_configs_are_refused_fast(self, config: dict[str, Any]) -> None:
        started = time.perf_counter()
        with pytest.raises(NegotiationError) as info:
            await Arena().start_game("deal_or_no_deal", config=config)
        assert info.value.code is ErrorCode.INVALID_CONFIG and "deal_or_no_deal" in info.value.message
        assert time.perf_counter() - started < 2.0

    def test_the_reason_says_what_to_change(self) -> None:
        with pytest.raises(ValueError, match=r"no round can be drawn.*raise value_total"):
            deal_table(3, 1, 4, 5, 7, 1)

    def test_a_repeated_bad_config_is_refused_from_the_cache(self) -> None:
        with pytest.raises(ValueError):
            deal_table(3, 1, 4, 5, 7, 9_999)
        started = time.perf_counter()
        with pytest.raises(ValueError):
            deal_table(3, 1, 4, 5, 7, 9_999)
        assert time.perf_counter() - started < 0.01

    @pytest.mark.parametrize("config", [{"value_total": 3}, {"value_total": 20}, {"max_count": 10, "max_total": 30}])
    def test_feasible_edge_configs_draw_valid_rounds(self, config: dict[str, Any]) -> None:
        m = new(DealOrNoDeal, seed=3, rounds=2, **config)
        settings = m.game.settings
        for _ in range(2):
            stock, values = m.game.round_data["stock"], m.game.round_data["values"]
            assert settings.min_total <= sum(stock.values()) <= settings.max_total
            for p in m.players:
                assert sum(stock[i] * values[p][i] for i in stock) == settings.value_total
            split(m, {"a": dict.fromkeys(stock, 0), "b": dict.fromkeys(stock, 0)})

    def test_draws_cover_every_admissible_stock(self) -> None:
        table = DealOrNoDeal.Config().table()
        seen = set()
        for seed in range(60):
            m = new(DealOrNoDeal, seed=seed, rounds=1)
            seen.add(tuple(m.game.round_data["stock"].values()))
        assert seen <= {counts for counts, _ in table} and len(seen) > len(table) // 2

    def test_cli_refuses_an_infeasible_config_in_one_line(self) -> None:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "negotiation_platform.cli.main",
                *("play", "deal_or_no_deal", "--config", '{"value_total": 1}', "--json"),
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode != 0 and done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1
        assert json.loads(done.stderr)["error"]["code"] == "invalid_config"


class TestDealClaimSchema:
    """Defect 10 of issue 11: agents sampled claims up to max_count, above a small stock, until they gave up."""

    @pytest.mark.anyio
    @pytest.mark.parametrize("seed", range(1, 6))
    async def test_each_seat_sees_claims_bounded_by_the_rounds_stock(self, seed: int) -> None:
        arena = Arena()
        a = await arena.start_game("deal_or_no_deal", seed=seed, config={"messages_per_round": 0})
        await arena.join_game(a["match_id"])
        state = await arena.get_turn_state(a["match_id"], a["token"])
        stock = state["view"]["stock"]
        schema = next(x for x in state["allowed_actions"] if x["name"] == "split")["payload_schema"]
        assert {item: prop["maximum"] for item, prop in schema["properties"].items()} == stock
        static = DealOrNoDeal.spec.phases[-1].actions[0].model_dump()["payload"]
        assert {prop["maximum"] for prop in static["properties"].values()} == {4}  # the spec itself is unchanged

    @pytest.mark.parametrize("seed", range(1, 31))
    def test_random_claims_from_the_seat_schema_are_always_legal(self, seed: int) -> None:
        m = new(DealOrNoDeal, seed=seed)
        finish_talk(m)
        rng = random.Random(seed)
        split_action = m.spec.phase("split").actions[0]
        for player in m.players:
            payload = sample_payload(m.game.action_payload_schema(player, split_action), rng)
            assert m.game.explain_invalid_action(player, {"type": "split", **payload}) is None


class TestTrustAndSplit:
    @pytest.mark.parametrize("seed", range(20))
    def test_hands_differ_and_decide_values(self, seed: int) -> None:
        m = new(TrustAndSplit, seed=seed)
        data = m.game.round_data
        hands, values = data["hands"], data["values"]
        assert hands["a"] != hands["b"]
        beats = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
        winner = "a" if beats[hands["a"]] == hands["b"] else "b"
        loser = "b" if winner == "a" else "a"
        assert (values[winner]["coins"], values[loser]["coins"]) == (10, 1)
        assert m.game.get_player_view("a")["your_hand"] == hands["a"]

    def test_random_hands_are_drawn_directly_and_cover_every_ordered_pair(self) -> None:
        seen = set()
        for seed in range(40):
            hands = new(TrustAndSplit, seed=seed).game.round_data["hands"]
            seen.add((hands["a"], hands["b"]))
        assert len(seen) == 6 and all(a != b for a, b in seen)

    def test_alternating_hands_make_the_starter_win(self) -> None:
        m = new(TrustAndSplit, seed=4, hands="alternating", rounds=4)
        for _ in range(4):
            data = m.game.round_data
            assert data["winner"] == data["starter"]
            split(m, {"a": {"coins": 5}, "b": {"coins": 5}})


class TestNoPress:
    def test_public_values_follow_the_starting_agent(self) -> None:
        m = new(NoPress, seed=3, rounds=4)
        assert [p.name for p in m.spec.phases] == ["split"]
        for _ in range(4):
            data = m.game.round_data
            starter = data["starter"]
            other = "b" if starter == "a" else "a"
            assert data["values"] == {starter: {"coins": 1}, other: {"coins": 10}}
            assert m.game.get_player_view(other)["all_values"] == data["values"]
            with pytest.raises(NegotiationError) as info:
                m.send_message("a", "hello")
            assert info.value.code is ErrorCode.PHASE_CLOSED
            split(m, {"a": {"coins": 5}, "b": {"coins": 5}})
        with pytest.raises(Exception, match="less than or equal to 0"):
            NoPress.spec_for({"messages_per_round": 1})


class TestProtocol:
    @pytest.mark.parametrize("game", [CoinsClassic, TrustAndSplit, DealOrNoDeal])
    def test_starting_agent_is_drawn_once_then_alternates(self, game: type) -> None:
        firsts = set()
        for seed in range(12):
            m = new(game, seed=seed, rounds=4)
            starters = []
            for _ in range(4):
                starters.append(m.acting()[0])
                assert starters[-1] == m.game.round_data["starter"]
                stock = m.game.round_data["stock"]
                split(m, {"a": dict.fromkeys(stock, 0), "b": dict.fromkeys(stock, 0)})
            assert starters[0] != starters[1] and starters[0] == starters[2] and starters[1] == starters[3]
            firsts.add(starters[0])
        assert firsts == {"a", "b"}

    def test_message_quota_and_length(self) -> None:
        m = new(CoinsClassic, seed=0, messages_per_round=2, max_message_length=20)
        first = m.acting()[0]
        second = "b" if first == "a" else "a"
        with pytest.raises(NegotiationError) as info:
            m.send_message(first, "x" * 21)
        assert info.value.code is ErrorCode.MESSAGE_TOO_LONG
        m.send_message(first, "one")
        with pytest.raises(NegotiationError) as info:
            m.send_message(first, "out of turn")
        assert info.value.code is ErrorCode.NOT_YOUR_TURN
        m.send_message(second, "two")
        m.send_message(first, "three")
        m.send_message(second, "four")
        assert m.phase == "split"  # each used its quota of 2
        with pytest.raises(NegotiationError) as info:
            m.send_message(first, "five")
        assert info.value.code is ErrorCode.PHASE_CLOSED

    def test_match_sums_rounds(self) -> None:
        m = new(NoPress, seed=1, rounds=3)
        for _ in range(3):
            split(m, {"a": {"coins": 4}, "b": {"coins": 6}})
        rounds = m.game.game_data["rounds"]
        assert m.result is not None
        assert m.result.final_scores["a"] == pytest.approx(sum(r["rewards"]["a"] for r in rounds))
        assert m.result.total_rounds == 3


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("game_id", ["coins_classic", "trust_and_split", "deal_or_no_deal"])
async def test_no_private_value_reaches_the_other_agents_turn_state(game_id: str) -> None:
    arena = Arena()
    config = {"value_low": 100_000, "value_high": 999_999} if game_id == "coins_classic" else None
    a = await arena.start_game(game_id, config=config, seed=7, name="a")
    b = await arena.join_game(a["match_id"], name="b")
    live = arena.held(a["match_id"])
    assert live is not None
    match = live.match
    assert match is not None
    for seat, me, other in ((a, "a", "b"), (b, "b", "a")):
        state = await arena.get_turn_state(a["match_id"], seat["token"])
        text = json.dumps(state)
        data = match.game.round_data
        assert "values" not in state["view"] and "hands" not in state["view"]
        if game_id == "coins_classic":
            assert str(data["values"][other]["coins"]) not in text
            assert str(data["values"][me]["coins"]) in text
        if game_id == "trust_and_split":
            assert state["view"]["your_hand"] == data["hands"][me]
            assert f'"{other}": "{data["hands"][other]}"' not in text and '"winner"' not in text
        if game_id == "deal_or_no_deal":
            assert state["view"]["your_values"] == data["values"][me]
            assert json.dumps(data["values"][other]) not in text or data["values"][other] == data["values"][me]
        for event in state["events"]:
            assert "values" not in json.dumps(event["data"])


def test_the_distribution_declares_its_games_through_the_entry_point() -> None:
    dist = distribution("negotiation-platform-coin-games")
    eps = [ep for ep in dist.entry_points if ep.group == "negotiation_platform.games"]
    assert [(ep.name, ep.value) for ep in eps] == [("coin_games", "negotiation_coin_games.plugin")]
    core = distribution("negotiation-platform")
    assert all("coin" not in ep.value for ep in core.entry_points)


LIST_GAMES = textwrap.dedent(
    """
    import importlib.metadata, json, sys
    hidden = set(sys.argv[1:])
    installed = importlib.metadata.distributions
    # Stand in for an environment where the named distributions are not installed.
    importlib.metadata.distributions = lambda **kw: (
        d for d in installed(**kw) if d.metadata["Name"] not in hidden
    )
    from negotiation_platform.registry import Registry
    print(json.dumps(sorted(Registry().games())))
    """
)


@pytest.mark.parametrize(("hidden", "present"), [((), True), (("negotiation-platform-coin-games",), False)])
def test_core_lists_coin_games_only_with_the_distribution(hidden: tuple[str, ...], present: bool) -> None:
    done = subprocess.run([sys.executable, "-c", LIST_GAMES, *hidden], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    games = set(json.loads(done.stdout))
    assert "split_100" in games
    assert (games >= COIN_GAMES) is present
    assert (COIN_GAMES & games == set()) is (not present)


def test_cli_play_trust_and_split() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "negotiation_platform.cli.main", "play", "trust_and_split", "--seed", "3", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {"game", "seed", "agreement", "payoffs", "rounds", "events"} <= set(result)
    assert result["game"] == "trust_and_split" and result["rounds"] == 10
