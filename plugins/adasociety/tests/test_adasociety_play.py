"""AdaSociety through everything the core offers: registry, agents, CLI, replay, MCP, the hard preset."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
import uvicorn
from mcp import Client

from negotiation_a2a.agent_server import build_agent_app
from negotiation_a2a.client import RemoteA2aAgent
from negotiation_adasociety import HARD, AdaSocietyGame, AdaSocietyHardGame
from negotiation_adasociety.encoding import action_count, decode, encode
from negotiation_adasociety.gatherer import GathererAgent
from negotiation_adasociety.plugin import adasociety_kernel
from negotiation_mcp.client import McpArena, stdio_server_parameters
from negotiation_platform.agents import RandomAgent, play_match
from negotiation_platform.agents.driver import SeatHandle, run_seat
from negotiation_platform.arena import Arena
from negotiation_platform.engine.match import Match
from negotiation_platform.registry import Registry

CORE = Path(__file__).resolve().parents[3] / "negotiation_platform"


def turn_for(match: Match, player: str) -> dict[str, Any]:
    """The parts of the arena's turn state a scripted agent reads."""
    return {
        "view": match.game.get_player_view(player),
        "allowed_actions": [
            {"name": a.name, "payload_schema": match.game.action_payload_schema(player, a)}
            for a in match.allowed_actions(player)
        ],
    }


def play_out(match: Match, agents: dict[str, Any]) -> None:
    """Every seat decides from its turn state and submits; a refused decision fails the test."""
    while not match.finished:
        for player in list(match.acting()):
            decision = agents[player].decide(turn_for(match, player))
            match.submit(player, decision.action, decision.payload)


def test_the_plugin_is_found_through_its_entry_point() -> None:
    registry = Registry()
    assert registry.game("adasociety").cls is AdaSocietyGame
    assert registry.game("adasociety_hard").cls is AdaSocietyHardGame
    assert registry.game("adasociety").source == "negotiation-platform-adasociety"
    assert "gatherer" in registry.agents()
    assert registry.kernels()["adasociety"] is adasociety_kernel


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_agents_only_ever_take_legal_actions(seed: int) -> None:
    players = ["a", "b", "c", "d"]
    match = Match(AdaSocietyGame, players, seed=seed)
    play_out(match, {p: RandomAgent(seed=seed * 10 + i) for i, p in enumerate(players)})
    assert match.result is not None and match.result.total_rounds == 120


def test_the_hard_preset_has_the_original_numbers_and_plays_to_the_end() -> None:
    config = AdaSocietyHardGame.Config()
    assert (config.map_size, config.num_players, config.max_length, config.negotiation_steps) == (15, 8, 240, 41)
    resources = {r.name: r for r in config.resources}
    assert resources["coal"].requirements == {"hammer": 1} and resources["iron"].requirements == {"torch": 1}
    assert [r.name for r in config.recipes] == ["hammer_craft", "torch_craft"]
    assert action_count(config) == 37
    players = [f"p{i}" for i in range(8)]
    match = Match(AdaSocietyHardGame, players, seed=4)
    play_out(match, {p: RandomAgent(seed=i) for i, p in enumerate(players)})
    assert match.result is not None and match.result.total_rounds == 240
    assert AdaSocietyHardGame.spec.id == "adasociety_hard" and HARD["map_size"] == 15


def test_coal_is_hidden_and_unpickable_without_a_hammer() -> None:
    players = [f"p{i}" for i in range(8)]
    match = Match(AdaSocietyHardGame, players, seed=4)
    game = match.game
    assert isinstance(game, AdaSocietyHardGame)
    coal = game.rules.index["coal"]
    miner = 4
    game.world.piles[game.world.position[miner]][coal] = 3
    assert not game.world.sees_pile(miner, coal)
    assert game.world.pick_error(miner, coal) == "pick: no coal on your cell"
    game.world.inventory[miner][game.rules.index["hammer"]] = 1
    assert game.world.pick_error(miner, coal) is None


def test_the_action_encoding_round_trips() -> None:
    config = AdaSocietyGame.Config()
    players = ["a", "b", "c", "d"]
    assert action_count(config) == 27
    for index in range(27):
        kind, payload = decode(config, players, index)
        assert encode(config, players, kind, payload) == index
    assert decode(config, players, 14) == ("request_match", {"player": "c"})
    assert decode(config, players, 26) == ("propose", {"share": 0.9})


def test_payload_schemas_offer_only_what_is_legal_now() -> None:
    match = Match(AdaSocietyGame, ["a", "b", "c", "d"], seed=2)
    game = match.game
    assert isinstance(game, AdaSocietyGame)
    request = game.spec.phases[0].action("request_match")
    assert request is not None
    assert game.action_payload_schema("a", request)["properties"]["player"]["enum"] == ["b", "c", "d"]


def test_gatherers_form_groups_and_deliver_hammers() -> None:
    players = ["c0", "c1", "m2", "m3"]
    match = Match(AdaSocietyGame, players, seed=1)
    play_out(match, {p: GathererAgent(seed=i) for i, p in enumerate(players)})
    result = match.result
    assert result is not None and result.game_data["agreement"]
    delivered = sum(result.game_data["inventories"][m]["hammer"] for m in ("m2", "m3"))
    assert delivered >= 5
    assert sum(result.final_scores.values()) == pytest.approx(
        sum(10 * result.game_data["inventories"][m]["hammer"] for m in ("m2", "m3"))
        + sum(sum(result.game_data["inventories"][c].values()) for c in ("c0", "c1"))
        + 4 * sum(result.game_data["inventories"][c]["hammer"] for c in ("c0", "c1"))
    ), "what everyone earned is what the inventories are worth"


def test_the_result_carries_the_social_graph_for_networkx() -> None:
    players = ["c0", "c1", "m2", "m3"]
    match = Match(AdaSocietyGame, players, seed=1)
    play_out(match, {p: GathererAgent(seed=i) for i, p in enumerate(players)})
    assert match.result is not None
    graph = nx.node_link_graph(match.result.game_data["social_graph"], edges="edges")
    groups = [n for n, kind in graph.nodes(data="kind") if kind == "group"]
    assert groups
    for group in groups:
        assert sum(share for _, _, share in graph.out_edges(group, data="share")) == pytest.approx(1.0)
    members = {m for g in groups for m in graph.successors(g)}
    assert members <= set(players)


def test_replaying_the_events_rebuilds_the_same_match() -> None:
    players = ["a", "b", "c", "d"]
    match = Match(AdaSocietyGame, players, seed=9)
    play_out(match, {p: RandomAgent(seed=i) for i, p in enumerate(players)})
    again = Match.replay(AdaSocietyGame, players, match.events, seed=9)
    assert again.result == match.result
    assert again.game.kernel_arrays() == match.game.kernel_arrays()


def test_a_view_shows_only_the_own_inventory() -> None:
    match = Match(AdaSocietyHardGame, [f"p{i}" for i in range(8)], seed=1)
    view = match.game.get_player_view("p0")
    assert "inventory" not in json.dumps(view["visible_players"]) and "inventory" not in json.dumps(view["players"])
    window = view["window"]
    assert len(window) == 5 and all(len(row.split()) == 5 for row in window), "fov 2 on the hard map"
    assert window[2].split()[2] == "@"
    assert len(view["observation"]["grid_observation"]) == 2 + 2 * 6


def test_rules_text_says_when_each_phase_runs() -> None:
    rules = AdaSocietyGame.spec_for(None).model_dump_json()
    assert '"last_round":21' in rules
    text = subprocess.run(
        [sys.executable, "-m", "negotiation_platform.cli.main", "rules", "adasociety"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Runs only from round 1 to round 21" in text and "Runs only from round 22 to the last round" in text


def test_play_json_is_deterministic_and_the_core_never_imports_networkx() -> None:
    command = [sys.executable, "-m", "negotiation_platform.cli.main", "play", "adasociety", "--seed", "1", "--json"]
    first, second = (subprocess.run(command, capture_output=True, text=True, check=True).stdout for _ in range(2))
    assert first == second and json.loads(first)["game"] == "adasociety"
    assert not [p for p in CORE.rglob("*.py") if "networkx" in p.read_text()]
    probe = (
        "import sys, negotiation_platform.cli.main, negotiation_platform.arena, negotiation_platform.engine.match;"
        "print('networkx' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "False"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_an_mcp_client_plays_a_whole_match_against_three_gatherers(anyio_backend: str) -> None:
    async with Client(stdio_server_parameters()) as client:
        api = McpArena(client)
        seat = await api.start_game("adasociety", seed=1, name="me", opponents=["gatherer"] * 3)
        handle = SeatHandle(GathererAgent(name="me"), seat["agent_id"], seat["token"])
        await run_seat(api, seat["match_id"], handle, wait_seconds=5)
        result = await api.get_result(seat["match_id"])
    assert result["status"] == "finished" and result["rounds"] == 120
    assert len(result["payoffs"]) == 4 and seat["agent_id"] in result["payoffs"]
    assert sum(result["payoffs"].values()) > 0, "hammers were crafted and handed over"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_remote_a2a_seat_plays_like_the_same_agent_in_process(anyio_backend: str) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    app = build_agent_app(GathererAgent(name="far"), base)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.02)
        seats = [RemoteA2aAgent(target=base, name="far"), *(GathererAgent(name=f"g{i}") for i in range(3))]
        remote = await asyncio.wait_for(play_match(Arena(), "adasociety", seats, seed=2), timeout=120)
    finally:
        server.should_exit = True
        await task
    local = [GathererAgent(name="far"), *(GathererAgent(name=f"g{i}") for i in range(3))]
    direct = await play_match(Arena(), "adasociety", local, seed=2)
    assert not [e for e in remote["events"] if e["kind"] == "timeout"]
    assert remote["payoffs"] == pytest.approx(direct["payoffs"])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_compat_flag_zeroes_the_proposal_field_like_the_original() -> None:
    def bargain(config: dict[str, Any]) -> Match:
        match = Match(AdaSocietyGame, ["c0", "c1", "m2", "m3"], config=config, seed=3)
        pairs = {"c0": "m2", "m2": "c0", "c1": "m3", "m3": "c1"}
        for player, other in pairs.items():
            match.submit(player, "request_match", {"player": other})
        match.submit("m2", "propose", {"share": 0.7})  # step 1 is odd: the higher ids open
        match.submit("m3", "propose", {"share": 0.5})
        match.submit("c0", "stay", {})
        match.submit("c1", "stay", {})
        return match

    intended = bargain({}).game.observation("c0")["proposal"]
    assert intended == pytest.approx([0.3, 0.0, 0.7, 0.0]), "m2 claims .7, c0 would get .3"
    assert bargain({"zero_proposal_observation": True}).game.observation("c0")["proposal"] == [0.0] * 4
