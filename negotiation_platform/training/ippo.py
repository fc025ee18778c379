"""Independent PPO with one policy shared by every seat, PureJaxRL style: environment, network and
update all run inside one jitted `lax.scan` over updates.

Every seat of every match is an actor (a batch of `num_agents × num_envs`); each update collects
`num_steps` env-steps from `num_envs` matches through the JaxMARL-compatible environment
(`kernels.marl`, which resets finished matches itself), computes GAE advantages and takes
`epochs × minibatches` clipped-PPO steps with optax. Illegal codes are masked out of the policy.
The same rollout code measures the uniformly random policy, so the two returns compare like for like.

Given a device mesh, the matches (and each minibatch's actors) are split over its devices and the
parameters replicated; the program is otherwise the same, so each loss is still the mean over the
whole minibatch and XLA turns its gradient into the data-parallel all-reduce: 1 device and N devices
compute the same numbers up to the order of float sums.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, NamedTuple

import jax
import jax.numpy as jnp
import optax
from flax.typing import VariableDict
from jax.sharding import Mesh

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.kernels.env import ParamsT, StateT
from negotiation_platform.kernels.marl import MarlEnv
from negotiation_platform.kernels.sharding import spread
from negotiation_platform.training.network import MASKED, ActorCritic, entropy, forward, log_probs

Chooser = Callable[[jax.Array, jax.Array, jax.Array], jax.Array]
"""`choose(key, obs [A, E, D], avail [A, E, n]) -> codes [A, E]`."""


@dataclass(frozen=True)
class TrainConfig:
    total_steps: int = 200_000
    """Env-steps (match steps, all seats together) over the whole run."""
    num_envs: int = 64
    num_steps: int = 16
    """Env-steps each match takes per update."""
    epochs: int = 4
    minibatches: int = 4
    lr: float = 3e-3
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (64, 64)
    reward_scale: float = 0.0
    """Rewards are divided by this while learning (returns are reported unscaled); 0: the random
    policy's mean return (at least 1), so returns are about ±1 whatever the game's units."""
    team_reward: float = 0.0
    """Weight of the seats' mean reward in each seat's training reward (0: its own, 1: the team's); the
    per-seat mean the table reports is the team's, so 1 trains on exactly that."""
    shaping: float = 0.0
    """Weight of potential-based shaping, γ·Φ(s') − Φ(s) with the kernel's `shaping_potential` (0: off)."""

    @property
    def num_updates(self) -> int:
        return max(1, self.total_steps // (self.num_envs * self.num_steps))

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.num_steps


class Transition(NamedTuple):
    obs: jax.Array
    avail: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    done: jax.Array


class Rollout(NamedTuple, Generic[StateT]):
    """What a scan over env-steps carries: the matches, each seat's running return, the totals of the
    episodes that ended (Σ of per-seat means, count)."""

    state: StateT
    obs: jax.Array
    running: jax.Array
    ended_sum: jax.Array
    ended_count: jax.Array


Optimizing = tuple[VariableDict, optax.OptState]
"""(network params, optimizer state): what the PPO epochs carry."""


class Learning(NamedTuple, Generic[StateT]):
    """What the scan over updates carries."""

    params: VariableDict
    opt_state: optax.OptState
    rollout: Rollout[StateT]


def stack(env: MarlEnv[StateT, ParamsT], values: dict[str, jax.Array]) -> jax.Array:
    """[A, E, ...] from JaxMARL's per-agent dict of [E, ...] arrays."""
    return jnp.stack([values[agent] for agent in env.agents])


def placed(rollout: Rollout[StateT], mesh: Mesh | None) -> Rollout[StateT]:
    """The rollout's matches split over `mesh`: the state's leading axis, and the second axis of the
    observations and running returns (seats come first)."""
    state, obs, running = spread(rollout.state, mesh), spread(rollout.obs, mesh, 1), spread(rollout.running, mesh, 1)
    return Rollout(state, obs, running, rollout.ended_sum, rollout.ended_count)


def start(env: MarlEnv[StateT, ParamsT], key: jax.Array, num_envs: int, mesh: Mesh | None = None) -> Rollout[StateT]:
    obs, state = jax.vmap(env.reset)(spread(jax.random.split(key, num_envs), mesh))
    zero = jnp.float32(0.0)
    return placed(Rollout(state, stack(env, obs), jnp.zeros((env.num_agents, num_envs)), zero, zero), mesh)


def avail_of(env: MarlEnv[StateT, ParamsT], state: StateT) -> jax.Array:
    return jnp.swapaxes(jax.vmap(env.stacked_avail_actions)(state), 0, 1)


def env_step(
    env: MarlEnv[StateT, ParamsT], rollout: Rollout[StateT], codes: jax.Array, key: jax.Array
) -> tuple[Rollout[StateT], jax.Array, jax.Array]:
    """Play `codes` [A, E] in every match; (next rollout, rewards [A, E], done [E])."""
    num_envs = codes.shape[1]
    actions = {agent: codes[i] for i, agent in enumerate(env.agents)}
    obs, state, rewards, dones, _ = jax.vmap(env.step)(jax.random.split(key, num_envs), rollout.state, actions)
    reward, done = stack(env, rewards), dones["__all__"]
    running = rollout.running + reward
    ended = jnp.where(done, running.mean(axis=0), 0.0).sum()
    following = Rollout(
        state,
        stack(env, obs),
        jnp.where(done[None, :], 0.0, running),
        rollout.ended_sum + ended,
        rollout.ended_count + done.sum(),
    )
    return following, reward, done


def random_chooser(key: jax.Array, obs: jax.Array, avail: jax.Array) -> jax.Array:
    return jax.random.categorical(key, jnp.where(avail, 0.0, MASKED), axis=-1)


def policy_chooser(network: ActorCritic, params: VariableDict) -> Chooser:
    def choose(key: jax.Array, obs: jax.Array, avail: jax.Array) -> jax.Array:
        logits, _ = forward(network, params, obs, avail)
        return jax.random.categorical(key, logits, axis=-1)

    return choose


def mean_return(
    env: MarlEnv[StateT, ParamsT], choose: Chooser, key: jax.Array, num_envs: int, steps: int, mesh: Mesh | None = None
) -> jax.Array:
    """Mean per-seat return of the episodes that end within `steps` env-steps of `num_envs` matches."""

    def body(rollout: Rollout[StateT], key: jax.Array) -> tuple[Rollout[StateT], None]:
        rollout = placed(rollout, mesh)
        choose_key, step_key = jax.random.split(key)
        codes = choose(choose_key, rollout.obs, avail_of(env, rollout.state))
        return env_step(env, rollout, codes, step_key)[0], None

    start_key, run_key = jax.random.split(key)
    final, _ = jax.lax.scan(body, start(env, start_key, num_envs, mesh), jax.random.split(run_key, steps))
    return final.ended_sum / jnp.maximum(final.ended_count, 1.0)


def teamed(reward: jax.Array, weight: float) -> jax.Array:
    """Each seat's reward [A, E] mixed with the seats' mean by `weight`."""
    return reward if weight == 0 else (1 - weight) * reward + weight * reward.mean(axis=0, keepdims=True)


Shaper = Callable[[StateT, StateT, jax.Array, jax.Array], jax.Array]
"""`shape(state, next_state, reward [A, E], done [A, E]) -> training reward [A, E]`."""


def shaping(env: MarlEnv[StateT, ParamsT], config: TrainConfig) -> Shaper[StateT]:
    """The reward plus `config.shaping` × (γ·Φ(s') − Φ(s)), Φ(s') = 0 where the match ended, so the
    optimal policy is the game's own; without shaping, the reward as it is."""
    if config.shaping == 0:
        return lambda state, following, reward, done: reward
    potential_of = getattr(env.kernel, "shaping_potential", None)
    if potential_of is None:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"{env.name}'s kernel has no shaping_potential: train it without shaping."
        )

    def potential(state: StateT) -> jax.Array:
        return jnp.swapaxes(jax.vmap(potential_of, in_axes=(0, None))(state, env.params), 0, 1)

    def shape(state: StateT, following: StateT, reward: jax.Array, done: jax.Array) -> jax.Array:
        bonus = config.gamma * (1.0 - done) * potential(following) - potential(state)
        return reward + config.shaping * bonus

    return shape


def make_train(
    env: MarlEnv[StateT, ParamsT], config: TrainConfig, mesh: Mesh | None = None
) -> tuple[ActorCritic, Callable[[jax.Array], tuple[VariableDict, jax.Array]]]:
    """(network, train): `train(key)` returns (trained params, mean episode return per update); with
    `mesh`, the matches and minibatches are split over its devices."""
    network = ActorCritic(env.action_space(env.agents[0]).n, tuple(config.hidden))
    optimizer = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.lr, eps=1e-5))
    actors = env.num_agents * config.num_envs
    scale = config.reward_scale if config.reward_scale > 0 else 1.0
    shaped = shaping(env, config)

    def collect(
        carry: tuple[VariableDict, Rollout[StateT]], key: jax.Array
    ) -> tuple[tuple[VariableDict, Rollout[StateT]], Transition]:
        params, rollout = carry[0], placed(carry[1], mesh)
        choose_key, step_key = jax.random.split(key)
        avail = avail_of(env, rollout.state)
        logits, value = forward(network, params, rollout.obs, avail)
        codes = jax.random.categorical(choose_key, logits, axis=-1)
        log_prob = jnp.take_along_axis(log_probs(logits), codes[..., None], axis=-1)[..., 0]
        following, reward, done = env_step(env, rollout, codes, step_key)
        done = jnp.broadcast_to(done[None, :], reward.shape)
        learned = shaped(rollout.state, following.state, teamed(reward, config.team_reward), done)
        step = Transition(rollout.obs, avail, codes, log_prob, value, learned / scale, done)
        return (params, following), step

    def advantages(batch: Transition, last_value: jax.Array) -> tuple[jax.Array, jax.Array]:
        def back(carry: tuple[jax.Array, jax.Array], step: Transition) -> tuple[tuple[jax.Array, jax.Array], jax.Array]:
            gae, next_value = carry
            live = 1.0 - step.done
            delta = step.reward + config.gamma * next_value * live - step.value
            gae = delta + config.gamma * config.gae_lambda * live * gae
            return (gae, step.value), gae

        _, gaes = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value), batch, reverse=True)
        return gaes, gaes + batch.value

    def loss(params: VariableDict, batch: Transition, gae: jax.Array, target: jax.Array) -> jax.Array:
        logits, value = forward(network, params, batch.obs, batch.avail)
        log_prob = jnp.take_along_axis(log_probs(logits), batch.action[..., None], axis=-1)[..., 0]
        clipped_value = batch.value + jnp.clip(value - batch.value, -config.clip, config.clip)
        value_loss = 0.5 * jnp.maximum(jnp.square(value - target), jnp.square(clipped_value - target)).mean()
        ratio = jnp.exp(log_prob - batch.log_prob)
        gae = (gae - gae.mean()) / (gae.std() + 1e-8)
        actor_loss = -jnp.minimum(ratio * gae, jnp.clip(ratio, 1 - config.clip, 1 + config.clip) * gae).mean()
        total: jax.Array = actor_loss + config.vf_coef * value_loss - config.ent_coef * entropy(logits).mean()
        return total

    def update(carry: Learning[StateT], key: jax.Array) -> tuple[Learning[StateT], jax.Array]:
        params, opt_state, rollout = carry
        collect_key, shuffle_key = jax.random.split(key)
        before = rollout
        (_, rollout), batch = jax.lax.scan(collect, (params, rollout), jax.random.split(collect_key, config.num_steps))
        _, last_value = forward(network, params, rollout.obs, avail_of(env, rollout.state))
        gae, target = advantages(batch, last_value)
        flat = jax.tree.map(lambda x: x.reshape((config.num_steps, actors, *x.shape[3:])), (batch, gae, target))

        def epoch(carry: Optimizing, key: jax.Array) -> tuple[Optimizing, None]:
            order = jax.random.permutation(key, actors)
            shuffled = jax.tree.map(lambda x: jnp.take(x, order, axis=1), flat)
            minibatches = jax.tree.map(
                lambda x: jnp.swapaxes(x.reshape((x.shape[0], config.minibatches, -1, *x.shape[2:])), 0, 1), shuffled
            )

            def minibatch(carry: Optimizing, part: tuple[Transition, jax.Array, jax.Array]) -> tuple[Optimizing, None]:
                params, opt_state = carry
                grads = jax.grad(loss)(params, *spread(part, mesh, 1))  # each device: its actors' share
                changes, opt_state = optimizer.update(grads, opt_state, params)
                return (optax.apply_updates(params, changes), opt_state), None

            return jax.lax.scan(minibatch, carry, spread(minibatches, mesh, 2))[0], None

        (params, opt_state), _ = jax.lax.scan(epoch, (params, opt_state), jax.random.split(shuffle_key, config.epochs))
        count = rollout.ended_count - before.ended_count
        curve = jnp.where(count > 0, (rollout.ended_sum - before.ended_sum) / jnp.maximum(count, 1.0), jnp.nan)
        return Learning(params, opt_state, rollout), curve

    def train(key: jax.Array) -> tuple[VariableDict, jax.Array]:
        init_key, env_key, run_key = jax.random.split(key, 3)
        rollout = start(env, env_key, config.num_envs, mesh)
        params = network.init(init_key, rollout.obs, avail_of(env, rollout.state))
        carry = Learning(params, optimizer.init(params), rollout)
        final, curve = jax.lax.scan(update, carry, jax.random.split(run_key, config.num_updates))
        return final.params, curve

    return network, train
