"""The JAX kernel against the engine, step by step: same map, same actions, same collision draws; the
accelerator formulation also against the CPU one, array for array."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from negotiation_adasociety import AdaSocietyGame, AdaSocietyHardGame
from negotiation_adasociety.accelerator import AcceleratorAdaSocietyEnv
from negotiation_adasociety.encoding import decode, encode
from negotiation_adasociety.kernels import AdaSocietyEnv
from negotiation_adasociety.world import Draws as EngineDraws
from negotiation_platform.engine.match import Match
from tests.kernel_jit import compiled

WEIGHTS = {"accept": 6.0, "pick": 4.0, "produce": 4.0, "dump": 2.0, "end": 0.5}
"""A random policy that bargains, accepts and handles items often, so episodes exercise every rule."""

FORMULATIONS = pytest.mark.parametrize("kernel", [AdaSocietyEnv, AcceleratorAdaSocietyEnv], ids=["cpu", "accelerator"])
"""Both formulations of the kernel, each checked against the engine (the accelerator one also against the CPU one)."""


class Twin:
    """An engine match and its kernel twin, started from the same draws."""

    def __init__(
        self,
        game_cls: type[AdaSocietyGame],
        players: list[str],
        seed: int,
        *,
        config: dict[str, Any] | None = None,
        player_cells: list[int] | None = None,
        kernel: type[AdaSocietyEnv] = AdaSocietyEnv,
    ) -> None:
        self.match = Match(game_cls, players, config=config, seed=seed)
        game = self.match.game
        assert isinstance(game, AdaSocietyGame)
        if player_cells is not None:
            game.use_draws(EngineDraws(**{**game.initial_draws, "player_cells": tuple(player_cells)}))
        self.game, self.players = game, players
        self.env, self.params = kernel.from_config(game.settings)
        self.state = self.env.init_state(self.params, self.env.engine_draws(self.match))
        # compiled once per config, for every twin and Hypothesis example
        self.transition = compiled(self.env, "transition")
        self.legal_mask = compiled(self.env, "legal_mask")
        self.observations = compiled(self.env, "observe")
        self.beside_cpu = kernel is not AdaSocietyEnv  # then the CPU formulation is stepped alongside
        self.cpu = AdaSocietyEnv.from_config(game.settings)[0]
        self.cpu_state = self.cpu.init_state(self.params, self.cpu.engine_draws(self.match))

    def step(self, actions: dict[str, tuple[str, dict[str, Any]]]) -> None:
        """Both sides take the same actions; then every array and every reward must agree."""
        config = self.game.settings
        masks = np.asarray(self.legal_mask(self.state, self.params))
        for i, player in enumerate(self.players):
            mask = masks[i]
            assert mask.tolist() == self.game.legal_mask(player), f"legal mask of {player} at {self.game.step}"
        indices = [encode(config, self.players, *actions[p]) for p in self.players]
        for player in self.players:
            self.match.submit(player, *actions[player])
        priority = self.env.engine_step_draws(self.match, self.game.step - 1)
        out = self.transition(self.state, jnp.array(indices, jnp.int32), priority, self.params)
        self.state = out.state
        assert int(out.info["illegal"]) == 0
        np.testing.assert_allclose(np.asarray(out.rewards), self.game.last_rewards, atol=1e-4)
        self.assert_same_state()
        if self.beside_cpu:
            cpu = compiled(self.cpu, "transition")(self.cpu_state, jnp.array(indices, jnp.int32), priority, self.params)
            self.cpu_state = cpu.state
            assert np.asarray(out.rewards).tolist() == np.asarray(cpu.rewards).tolist()
            for name, value in self.state._asdict().items():
                assert np.asarray(value).tolist() == np.asarray(getattr(cpu.state, name)).tolist(), name

    def assert_same_state(self) -> None:
        engine, kernel = self.game.kernel_arrays(), self.state
        assert int(kernel.time) == engine["time"]
        for name in ("position", "inventory", "piles", "partner", "parity", "group"):
            np.testing.assert_array_equal(np.asarray(getattr(kernel, name)), engine[name], err_msg=name)
        for name in ("proposal", "share"):
            np.testing.assert_allclose(np.asarray(getattr(kernel, name)), engine[name], atol=1e-5, err_msg=name)

    def assert_same_observations(self) -> None:
        """As a policy reads them (`network_observation`): the engine's, and the CPU formulation's exactly."""
        observations = self.env.network_observation(self.observations(self.state, self.params), self.params)
        if self.beside_cpu:
            cpu = compiled(self.cpu, "observe")(self.cpu_state, self.params)
            assert sorted(observations) == sorted(cpu)
            for name, value in cpu.items():
                assert observations[name].dtype == value.dtype, name
                assert np.asarray(observations[name]).tolist() == np.asarray(value).tolist(), name
        for i, player in enumerate(self.players):
            engine = self.game.observation(player)
            for name, value in engine.items():
                np.testing.assert_allclose(np.asarray(observations[name][i]), value, atol=1e-5, err_msg=name)

    def random_actions(self, rng: random.Random) -> dict[str, tuple[str, dict[str, Any]]]:
        chosen = {}
        for player in self.players:
            legal = self.game.legal_actions(player)
            action = rng.choices(legal, [WEIGHTS.get(a["type"], 1.0) for a in legal])[0]
            chosen[player] = (action["type"], {k: v for k, v in action.items() if k != "type"})
        return chosen


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_random_episodes_agree_step_by_step(seed: int) -> None:
    """The CPU formulation against the engine (the accelerator one against the CPU one, many matches in
    one program: `test_adasociety_accelerator`)."""
    twin = Twin(AdaSocietyGame, ["c0", "c1", "m2", "m3"], seed)
    rng = random.Random(seed)
    twin.assert_same_observations()
    while not twin.match.finished:
        twin.step(twin.random_actions(rng))
        if twin.game.step % 20 == 1:
            twin.assert_same_observations()
    assert bool(twin.state.done)
    np.testing.assert_allclose(np.asarray(twin.state.totals), twin.game.totals, atol=1e-3)


def test_the_hard_preset_agrees_too() -> None:
    twin = Twin(AdaSocietyHardGame, [f"p{i}" for i in range(8)], seed=11)
    rng = random.Random(11)
    while not twin.match.finished:
        twin.step(twin.random_actions(rng))
    twin.assert_same_observations()


@FORMULATIONS
def test_same_step_accepts_compound_identically(kernel: type[AdaSocietyEnv]) -> None:
    """The note's worked example on both sides: group {c0 .7, m3 .3}; then c0 accepts m2's claim .2 while c1
    accepts m3's claim .9 in one step → c0 .494, m3 .212, m2 .196, c1 .098."""
    twin = Twin(AdaSocietyGame, ["c0", "c1", "m2", "m3"], seed=1, kernel=kernel)

    def request(player: str) -> tuple[str, dict[str, Any]]:
        return ("request_match", {"player": player})

    stay: tuple[str, dict[str, Any]] = ("stay", {})
    script = [
        {"c0": request("m3"), "m3": request("c0"), "c1": request("c0"), "m2": request("c0")},
        {"c0": stay, "m3": ("propose", {"share": 0.3}), "c1": request("m2"), "m2": request("c1")},
        {"c0": ("accept", {}), "m3": stay, "c1": ("propose", {"share": 0.5}), "m2": stay},
        {"c0": stay, "m3": stay, "c1": stay, "m2": ("end", {})},
        {"c0": request("m2"), "m2": request("c0"), "c1": request("m3"), "m3": request("c1")},
        {"c0": stay, "c1": stay, "m2": ("propose", {"share": 0.2}), "m3": ("propose", {"share": 0.9})},
        {"c0": ("accept", {}), "c1": ("accept", {}), "m2": stay, "m3": stay},
    ]
    for actions in script:
        twin.step(actions)
    assert np.asarray(twin.state.share) == pytest.approx([0.494, 0.098, 0.196, 0.212], abs=5e-4)
    assert len(set(np.asarray(twin.state.group).tolist())) == 1


@FORMULATIONS
def test_collisions_and_swaps_resolve_alike(kernel: type[AdaSocietyEnv]) -> None:
    """Under several priority draws: two movers contest one cell, two players swap, then a chain pushes into a
    player who stays."""
    stay: tuple[str, dict[str, Any]] = ("stay", {})
    right, left = ("move", {"direction": "right"}), ("move", {"direction": "left"})
    for seed in range(6):
        # c0 (0,0) → (0,1) ← c1 (0,2); m2 (3,3) ⇄ m3 (3,4)
        twin = Twin(
            AdaSocietyGame,
            ["c0", "c1", "m2", "m3"],
            seed,
            config={"negotiation_steps": 0},
            player_cells=[0, 2, 24, 25],
            kernel=kernel,
        )
        twin.step({"c0": right, "c1": left, "m2": right, "m3": left})
        positions = twin.game.kernel_arrays()["position"]
        assert sorted(positions[:2]) in ([0, 1], [1, 2]) and positions[2:] == [25, 24]
        twin.step({"c0": right, "c1": right, "m2": stay, "m3": stay})


def test_an_illegal_index_acts_as_stay_and_is_counted() -> None:
    env, params = AdaSocietyEnv.from_config(AdaSocietyGame.Config())
    _, state = env.reset(jax.random.key(0), params)
    pick_wood = 6
    out = env.step_env(jax.random.key(1), state, jnp.full((4,), pick_wood, jnp.int32), params)
    assert int(out.info["illegal"]) == 4
    assert out.state.position.tolist() == state.position.tolist() and int(out.state.time) == 1


def test_a_batch_of_episodes_runs_under_jit_and_vmap() -> None:
    env, params = AdaSocietyEnv.from_config(AdaSocietyGame.Config())
    batch = 64
    _, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.key(0), batch), params)
    assert len({tuple(p) for p in np.asarray(state.position).tolist()}) > 1, "each match draws its own map"

    @jax.jit
    def episode(state: Any, key: jax.Array) -> tuple[Any, jax.Array]:
        def body(carry: tuple[Any, jax.Array], _: None) -> tuple[tuple[Any, jax.Array], jax.Array]:
            state, key = carry
            key, act, move = jax.random.split(key, 3)
            actions = jax.vmap(env.sample_actions, in_axes=(0, 0, None))(jax.random.split(act, batch), state, params)
            out = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(jax.random.split(move, batch), state, actions, params)
            return (out.state, key), out.rewards

        (state, _), rewards = jax.lax.scan(body, (state, key), None, length=120)
        return state, rewards

    final, rewards = episode(state, jax.random.key(1))
    assert bool(final.done.all()) and int(final.time.max()) == 120
    assert bool(jnp.isfinite(rewards).all())
    np.testing.assert_allclose(np.asarray(rewards.sum(axis=0)), np.asarray(final.totals), atol=1e-3)


def test_the_encoding_matches_the_kernel_layout() -> None:
    env, _ = AdaSocietyEnv.from_config(AdaSocietyGame.Config())
    config, players = AdaSocietyGame.Config(), ["a", "b", "c", "d"]
    assert env.num_actions == 27
    assert decode(config, players, env.accept_at) == ("accept", {})
    assert decode(config, players, env.propose_at) == ("propose", {"share": 0.1})


@pytest.mark.parametrize("game", ["adasociety", "adasociety_hard"])
def test_simulate_runs_both_games(game: str) -> None:
    command = [sys.executable, "-m", "negotiation_platform.cli.main", "simulate", game, "--batch", "8"]
    out = subprocess.run([*command, "--steps", "300", "--json"], capture_output=True, text=True, check=True).stdout
    report = json.loads(out)
    assert report["env_steps"] == 2400 and report["episodes_finished"] >= 8
    assert report["formulation"] == "cpu"  # JAX's backend picks: the tests run on a CPU


@FORMULATIONS
def test_a_group_touched_then_merged_away_merges_alike_in_the_kernel(kernel: type[AdaSocietyEnv]) -> None:
    """Groups x = {1, 3} (id 0) and y = {2, 4} (id 1); in one step 0 accepts 1's claim .5 and 2 accepts 3's
    claim .5: 0 joins x, then x moves into y. Expected, by hand: 0 .4, 1 .1, 2 .2, 3 .1, 4 .2, all in group 1."""
    jobs = [
        {"name": "carpenter", "fov": 3, "caps": {"wood": 1}, "values": {}, "count": 3},
        {"name": "miner", "fov": 3, "caps": {"hammer": 1}, "values": {}, "count": 2},
    ]
    env, params = kernel.from_config(AdaSocietyGame.Config(jobs=jobs))
    _, state = env.reset(jax.random.key(0), params)
    state = state._replace(
        time=jnp.int32(4),
        partner=jnp.array([1, 0, 3, 2, -1], jnp.int32),
        parity=jnp.array([0, 1, 0, 1, -1], jnp.int32),
        proposal=jnp.array([0.0, 0.5, 0.0, 0.5, 0.0], jnp.float32),
        group=jnp.array([-1, 0, 1, 0, 1], jnp.int32),
        share=jnp.array([0.0, 0.5, 0.5, 0.5, 0.5], jnp.float32),
        next_group=jnp.int32(2),
    )
    stay, accept = 4, env.accept_at
    out = env.transition(state, jnp.array([accept, stay, accept, stay, stay], jnp.int32), jnp.arange(5), params)
    assert int(out.info["illegal"]) == 0
    assert out.state.group.tolist() == [1, 1, 1, 1, 1]
    np.testing.assert_allclose(np.asarray(out.state.share), [0.4, 0.1, 0.2, 0.1, 0.2], atol=1e-6)
