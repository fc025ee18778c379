"""The accelerator formulation of the AdaSociety kernel: how it is chosen, that its compiled step has no
`while` loop, what one match holds, that random matches play as on the CPU formulation step for step,
and `simulate --formulation`. (`test_adasociety_kernel`'s scripted matches check both formulations
against the engine too.)"""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from test_adasociety_kernel import WEIGHTS

from negotiation_adasociety import AdaSocietyGame
from negotiation_adasociety.accelerator import AcceleratorAdaSocietyEnv
from negotiation_adasociety.encoding import decode
from negotiation_adasociety.kernels import AdaSocietyEnv, State
from negotiation_platform.cli.main import main
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.kernels import make
from negotiation_platform.kernels.footprint import (
    OBSERVATION_TARGET,
    STATE_TARGET,
    match_bytes,
    step_loops,
    while_loops,
)
from negotiation_platform.kernels.marl import MarlEnv
from negotiation_platform.kernels.split_100 import Split100Env
from negotiation_platform.testing import check_kernel


def test_the_backend_chooses_the_formulation_unless_one_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    assert type(make("adasociety")[0]) is AdaSocietyEnv  # the tests run on a CPU
    assert type(make("adasociety", formulation="accelerator")[0]) is AcceleratorAdaSocietyEnv
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    hard, _ = make("adasociety_hard")
    assert type(hard) is AcceleratorAdaSocietyEnv and hard.num_agents == 8
    assert type(make("adasociety", formulation="cpu")[0]) is AdaSocietyEnv
    assert type(make("split_100", formulation="accelerator")[0]) is Split100Env  # one formulation serves both


def test_an_unknown_formulation_is_refused_by_name() -> None:
    with pytest.raises(NegotiationError) as refused:
        make("adasociety", formulation="gpu")
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert "'gpu'" in str(refused.value) and "['cpu', 'accelerator']" in str(refused.value)


def test_the_loop_counter_counts_compiled_while_loops() -> None:
    def count_up(limit: jax.Array) -> jax.Array:
        counted: jax.Array = jax.lax.while_loop(lambda i: i < limit, lambda i: i + 1, jnp.int32(0))
        return counted

    assert while_loops(jax.jit(count_up).lower(jnp.int32(3)).compile()) == 1
    assert while_loops(jax.jit(lambda x: x + 1).lower(jnp.int32(3)).compile()) == 0


def test_the_accelerator_step_compiles_without_a_while_loop() -> None:
    env, params = make("adasociety", formulation="accelerator")
    assert step_loops(env, params) == 0


@pytest.mark.parametrize("game", ["adasociety", "adasociety_hard"])
def test_a_match_holds_compact_state_and_observations(game: str) -> None:
    cpu_state, cpu_observation = match_bytes(*make(game, formulation="cpu"))
    state, observation = match_bytes(*make(game, formulation="accelerator"))
    assert state < cpu_state and observation < cpu_observation
    if game == "adasociety":  # int8 throughout: no count of the default rules passes 127
        assert (cpu_state, cpu_observation) == (953, 4252)
        assert state <= STATE_TARGET and observation <= OBSERVATION_TARGET
        assert (state, observation) == (275, 1328)


def test_the_compact_observation_spreads_into_the_cpu_ones_features() -> None:
    """What a match holds is smaller, but a policy reads the same vector on either formulation (so one
    trained on a GPU plays at a CPU table), and the accelerator's holds no field twice."""
    cpu, params = make("adasociety", formulation="cpu")
    accelerator, _ = make("adasociety", formulation="accelerator")
    seen, cpu_seen = accelerator.reset(jax.random.key(4), params)[0], cpu.reset(jax.random.key(4), params)[0]
    assert "action_mask" not in seen and seen["grid_observation"].shape == (4, 5, 7, 7)
    assert seen["grid_observation"].dtype == jnp.int8 and cpu_seen["grid_observation"].shape == (4, 8, 7, 7)
    spread = accelerator.network_observation(seen, params)
    assert {name: (v.dtype, v.shape) for name, v in spread.items()} == {
        name: (v.dtype, v.shape) for name, v in cpu_seen.items()
    }
    assert all(bool((spread[name] == value).all()) for name, value in cpu_seen.items())
    features = [MarlEnv(env, params).get_obs(env.reset(jax.random.key(4), params)[1]) for env in (cpu, accelerator)]
    assert all(bool((features[0][agent] == features[1][agent]).all()) for agent in features[0])


MATCHES = 16
"""Matches of weighted random play the formulations are compared over, side by side."""


def test_random_matches_agree_with_the_cpu_formulation_step_by_step() -> None:
    """From each formulation's own draws of one key, under the same actions (legal ones drawn as
    `test_adasociety_kernel`'s engine episodes draw them: bargaining, accepting and handling items
    often) and the same collision priorities, every step of `MATCHES` whole matches, in one program:
    states, rewards, legal masks and observations (as a policy reads them) are the CPU formulation's,
    which the engine's episodes check."""
    config = AdaSocietyGame.Config()
    cpu, params = AdaSocietyEnv.from_config(config)
    envs = (AcceleratorAdaSocietyEnv.from_config(config)[0], cpu)
    kinds = [decode(config, [f"p{i}" for i in range(cpu.num_agents)], index)[0] for index in range(cpu.num_actions)]
    weights = jnp.log(jnp.array([WEIGHTS.get(kind, 1.0) for kind in kinds], jnp.float32))

    def seen(env: AdaSocietyEnv, state: State) -> tuple[object, ...]:
        observation = env.network_observation(env.observe(state, params), params)
        return state, env.legal_mask(state, params), observation

    def step(states: list[State], key: jax.Array) -> tuple[list[State], list[object]]:
        pick, order = jax.random.split(key)
        legal = cpu.legal_mask(states[1], params)
        actions = jax.random.categorical(pick, jnp.where(legal, weights, -jnp.inf)).astype(jnp.int32)
        priority = jax.random.permutation(order, cpu.num_agents)
        moved = [env.transition(state, actions, priority, params) for env, state in zip(envs, states, strict=True)]
        return [m.state for m in moved], [(m.rewards, *seen(env, m.state)) for env, m in zip(envs, moved, strict=True)]

    def match(key: jax.Array) -> list[object]:
        draw, play = jax.random.split(key)
        starts = [env.init_state(params, env.draws(draw, params)) for env in envs]
        _, steps = jax.lax.scan(step, starts, jax.random.split(play, cpu.max_length))
        return [(seen(env, start), side) for env, start, side in zip(envs, starts, steps, strict=True)]

    fast, slow = jax.jit(jax.vmap(match))(jax.random.split(jax.random.key(38), MATCHES))
    for ours, theirs in zip(jax.tree.leaves(fast), jax.tree.leaves(slow), strict=True):
        assert ours.shape == theirs.shape and np.array_equal(np.asarray(ours).astype(theirs.dtype), np.asarray(theirs))
    final = slow[1][1]  # the states after each step
    assert bool(final.done[:, -1].all()) and int((final.group[:, -1] >= 0).sum()) > MATCHES, "groups formed"


def test_a_whole_match_replays_the_engine_on_the_accelerator_formulation() -> None:
    check_kernel(AdaSocietyGame, seeds=[3], kernel=AcceleratorAdaSocietyEnv)


def test_simulate_runs_the_formulation_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    command = ["simulate", "adasociety", "--formulation", "accelerator", "--batch", "2", "--steps", "2"]
    assert main([*command, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["formulation"] == "accelerator" and report["env_steps"] == 4


def test_simulate_refuses_a_formulation_where_the_kernel_has_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "split_100", "--formulation", "cpu", "--json"]) == 2
    refused = json.loads(capsys.readouterr().err)["error"]
    assert refused["code"] == "invalid_argument" and "'split_100'" in refused["message"]
    assert refused["details"]["games_with_formulations"] == ["adasociety", "adasociety_hard"]
    assert main(["simulate", "adasociety", "--formulation", "gpu"]) == 2
    said = capsys.readouterr().err
    assert "invalid choice: 'gpu'" in said and "Traceback" not in said
