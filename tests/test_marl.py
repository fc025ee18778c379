"""Kernels as JaxMARL environments: the MultiAgentEnv interface, auto-reset, legal masks, and JaxMARL's
own LogWrapper and its IPPO baseline's way of driving an environment (with the real `jaxmarl`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from negotiation_platform.errors import NegotiationError  # noqa: E402
from negotiation_platform.kernels import kernel_games, marl  # noqa: E402
from negotiation_platform.registry import Registry  # noqa: E402

GAMES = sorted(kernel_games(Registry()))


def random_actions(env: marl.MarlEnv, key: jax.Array, state: object) -> dict[str, jax.Array]:
    avail = env.get_avail_actions(state)
    keys = jax.random.split(key, env.num_agents)
    logits = {agent: jnp.where(avail[agent], 0.0, -1e9) for agent in env.agents}
    return {agent: jax.random.categorical(k, logits[agent]) for agent, k in zip(env.agents, keys, strict=True)}


@pytest.mark.parametrize("game_id", GAMES)
def test_every_kernel_game_is_a_multi_agent_env(game_id: str) -> None:
    """Shapes, dtypes and dict keys, traced without compiling (the values are tested on the games below)."""
    env = marl.make(game_id)
    assert env.agents == [f"agent_{i}" for i in range(env.num_agents)] and env.num_agents >= 2
    obs, state = jax.eval_shape(env.reset, jax.random.key(0))
    avail = jax.eval_shape(env.get_avail_actions, state)
    actions = {agent: jnp.int32(0) for agent in env.agents}
    after, _, rewards, dones, infos = jax.eval_shape(env.step, jax.random.key(1), state, actions)
    for agent in env.agents:
        assert obs[agent].shape == after[agent].shape == (env.observation_space(agent).shape,)
        assert obs[agent].dtype == jnp.float32
        assert avail[agent].shape == (env.action_space(agent).n,) and avail[agent].dtype == jnp.bool_
        assert rewards[agent].shape == dones[agent].shape == ()
    assert set(dones) == {*env.agents, "__all__"}
    assert all(leaf.shape == (env.num_agents,) for leaf in infos.values())


def test_a_finished_match_restarts_inside_step() -> None:
    env = marl.make("trust_and_split", rounds=3)
    _, state = env.reset(jax.random.key(0))
    step = jax.jit(env.step)
    key = jax.random.key(5)
    for turn in range(3):
        key, act_key, step_key = jax.random.split(key, 3)
        obs, state, rewards, dones, _ = step(step_key, state, random_actions(env, act_key, state))
        assert bool(dones["__all__"]) == (turn == 2)
    fresh_obs, fresh_state = env.reset(jax.random.split(step_key)[1])
    assert all(np.array_equal(a, b) for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(fresh_state), strict=True))
    assert all(np.array_equal(obs[agent], fresh_obs[agent]) for agent in env.agents)
    assert sum(float(r) for r in rewards.values()) > 0, "the last round still pays, before the reset"


def test_flat_codes_are_legal_exactly_when_the_kernel_says_so() -> None:
    env = marl.make("deal_or_no_deal")
    _, state = env.reset(jax.random.key(3))
    legal = np.asarray(env.kernel.observe(state, env.params)["legal_action_mask"])  # [agents, items, claims]
    avail = env.get_avail_actions(state)
    for seat, agent in enumerate(env.agents):
        claims = np.asarray(env.codes.decode(jnp.arange(env.action_space(agent).n), env.params))
        expected = legal[seat][np.arange(claims.shape[1]), claims].all(axis=1)
        assert np.array_equal(np.asarray(avail[agent]), expected) and 0 < expected.sum() < expected.size


def test_company_car_prices_become_offer_codes() -> None:
    env = marl.make("company_car", price_levels=11)
    assert env.action_space("agent_0").n == 13
    decoded = np.asarray(env.codes.decode(jnp.array([0, 10, 11, 12]), env.params))
    assert decoded.tolist() == [[0, 1_000_000], [0, 10_000_000], [1, 10_000_000], [2, 10_000_000]]


def test_unknown_game_is_refused() -> None:
    with pytest.raises(NegotiationError) as refused:
        marl.make("no_such_game")
    assert refused.value.code == "unknown_game"


@pytest.mark.parametrize("wrapper", ["LogWrapper", "MPELogWrapper"])
def test_jaxmarl_log_wrapper_and_ippo_baseline_drive_it(wrapper: str) -> None:
    """JaxMARL's LogWrapper (ippo_ff_hanabi's) and MPELogWrapper (ippo_ff_mpe's, which scales the logged
    returns by the number of agents), driven the way those baselines drive an env: agents batched as
    actors (batchify/unbatchify over `env.agents`), every info leaf reshaped to [actors], legal masks
    from `get_legal_moves` of the wrapped state, sizes from `observation_space(...).shape` (an int:
    the Hanabi baseline builds `zeros((1, envs, shape))`) and `action_space(...).n`."""
    pytest.importorskip("jaxmarl")
    from jaxmarl.wrappers import baselines

    num_envs, rounds = 8, 3
    env = getattr(baselines, wrapper)(marl.make("trust_and_split", rounds=rounds))
    actors = env.num_agents * num_envs
    obs_size, num_actions = env.observation_space(env.agents[0]).shape, env.action_space(env.agents[0]).n
    assert jnp.zeros((1, num_envs, obs_size)).shape == (1, num_envs, obs_size)

    def batchify(values: dict[str, jax.Array]) -> jax.Array:
        return jnp.stack([values[a] for a in env.agents]).reshape((actors, -1))

    def unbatchify(values: jax.Array) -> dict[str, jax.Array]:
        values = values.reshape((env.num_agents, num_envs))
        return {a: values[i] for i, a in enumerate(env.agents)}

    def env_step(carry: tuple[object, dict[str, jax.Array], jax.Array], _: None) -> tuple[object, dict[str, jax.Array]]:
        state, obs, key = carry
        key, act_key, step_key = jax.random.split(key, 3)
        avail = batchify(jax.vmap(env.get_legal_moves)(state.env_state))
        assert batchify(obs).shape == (actors, obs_size) and avail.shape == (actors, num_actions)
        action = jax.random.categorical(act_key, jnp.where(avail, 0.0, -1e9))
        step_keys = jax.random.split(step_key, num_envs)
        obs, state, reward, done, info = jax.vmap(env.step)(step_keys, state, unbatchify(action))
        info = jax.tree.map(lambda x: x.reshape((actors,)), info)
        return (state, obs, key), {**info, "reward": batchify(reward)[:, 0], "done": batchify(done)[:, 0]}

    obs, state = jax.vmap(env.reset)(jax.random.split(jax.random.key(0), num_envs))
    _, trace = jax.jit(lambda c: jax.lax.scan(env_step, c, None, 2 * rounds))((state, obs, jax.random.key(1)))
    ended = np.asarray(trace["returned_episode"])
    assert ended[rounds - 1].all() and not ended[: rounds - 1].any()
    first_episode = np.asarray(trace["reward"])[:rounds].sum(axis=0)
    # info leaves are [envs, agents] per env, flattened env-major by the baseline's reshape
    returned = np.asarray(trace["returned_episode_returns"])[rounds - 1].reshape(num_envs, env.num_agents)
    scale = env.num_agents if wrapper == "MPELogWrapper" else 1
    np.testing.assert_allclose(returned.T.reshape(-1), scale * first_episode, rtol=1e-5)
    assert np.asarray(trace["returned_episode_lengths"])[rounds - 1].tolist() == [rounds] * actors


def test_with_jaxmarl_installed_it_is_a_jaxmarl_multi_agent_env_with_hanabis_legal_moves() -> None:
    pytest.importorskip("jaxmarl")
    from jaxmarl.environments.multi_agent_env import MultiAgentEnv

    env = marl.make("deal_or_no_deal")
    assert isinstance(env, MultiAgentEnv) and isinstance(env.observation_space("agent_0").shape, int)
    _, state = env.reset(jax.random.key(3))
    legal, avail = env.get_legal_moves(state), env.get_avail_actions(state)
    assert all(np.array_equal(legal[agent], avail[agent]) for agent in env.agents)
    assert not all(np.asarray(legal[agent]).all() for agent in env.agents), "some codes are masked"


LIGHT_BASE = """
import sys
sys.modules["jaxmarl"] = None  # as if jaxmarl were not installed
import jax
from negotiation_platform.kernels import marl
env = marl.make("split_100", rounds=2)
obs, state = env.reset(jax.random.key(0))
actions = {a: jax.numpy.int32(0) for a in env.agents}
obs, state, rewards, dones, infos = env.step(jax.random.key(1), state, actions)
print(type(env).__mro__[1].__name__, env.observation_space("agent_0").shape == obs["agent_0"].shape[0])
"""


def test_without_jaxmarl_the_light_base_offers_the_same_interface() -> None:
    done = subprocess.run([sys.executable, "-c", LIGHT_BASE], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["LightMultiAgentEnv", "True"]


KEEPS_STREAMS = """
import io, sys
out, err = io.StringIO(), io.StringIO()
sys.stdout, sys.stderr = out, err
import negotiation_platform.kernels.marl
kept = sys.stdout is out and sys.stderr is err
sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
print(kept, repr(out.getvalue()))
"""


def test_importing_the_jaxmarl_base_leaves_the_callers_streams_and_prints_nothing() -> None:
    """jaxmarl's import sets sys.stdout/stderr to the process's own: a caller's capture (pytest's, a
    notebook's) must survive our import of it, and nothing of its chatter reaches stdout."""
    pytest.importorskip("jaxmarl")
    done = subprocess.run([sys.executable, "-c", KEEPS_STREAMS], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "True ''\n"
