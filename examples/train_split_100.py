"""Train a negotiator on the split_100 kernel with pure JAX + optax (REINFORCE with a baseline).

The learner holds seat 0 of `split_100` (alternating offers over 100 dollars, discount 0.9 per
round) against a scripted seat 1 that accepts any offer leaving it at least 35 and otherwise asks
to keep 65. A linear softmax policy over the 103 action codes, masked by the kernel's
`legal_action_mask`, is trained on whole batches of matches rolled out with `lax.scan`. The
learning curve is printed beside two baselines measured the same way: the uniformly random
policy and the scripted "ask for half, accept half" negotiator.

    python examples/train_split_100.py [--iterations 300] [--batch 512] [--json]

Needs the `jax` extra and optax (`pip install optax`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import jax
import jax.numpy as jnp
import optax

from negotiation_platform.kernels import make

ACCEPT = 101
OPPONENT_FLOOR, OPPONENT_ASK = 35, 65

env, params = make("split_100", discount=0.9)
HORIZON = 2 * int(params.rounds)


def opponent(obs: dict[str, jax.Array]) -> jax.Array:
    """Seat 1: accept when seat 0's standing offer leaves it at least the floor, else ask for its share."""
    features = obs["features"][1]
    offer_to_me = 100 - features[4] * 100  # seat 0 keeps features[4]·100 of the standing offer
    can_accept = obs["legal_action_mask"][1, ACCEPT] & (offer_to_me >= OPPONENT_FLOOR)
    return jnp.where(can_accept, ACCEPT, OPPONENT_ASK)


def logits(weights: dict[str, jax.Array], obs: dict[str, jax.Array]) -> jax.Array:
    raw = obs["features"][0] @ weights["w"] + weights["b"]
    return jnp.where(obs["legal_action_mask"][0], raw, -1e9)


def episode(weights: dict[str, jax.Array], key: jax.Array, learner: Any) -> tuple[jax.Array, jax.Array]:
    """(seat 0's return, Σ log π(a) of its moves) for one match; `learner(key, weights, obs)` picks seat 0's code."""
    obs, state = env.reset(key, params)

    def body(carry: tuple[Any, Any, jax.Array, jax.Array], key: jax.Array) -> tuple[Any, None]:
        obs, state, total, log_prob = carry
        mine = learner(key, weights, obs)
        actions = jnp.stack([mine, opponent(obs)]).astype(jnp.int32)
        moving = (env.current_player(state) == 0) & ~state.done
        log_prob = log_prob + jnp.where(moving, jax.nn.log_softmax(logits(weights, obs))[mine], 0.0)
        step = env.step_env(key, state, actions, params)
        return (step.obs, step.state, total + step.rewards[0], log_prob), None

    keys = jax.random.split(key, HORIZON)
    (_, _, total, log_prob), _ = jax.lax.scan(body, (obs, state, jnp.float32(0), jnp.float32(0)), keys)
    return total, log_prob


def sampled(key: jax.Array, weights: dict[str, jax.Array], obs: dict[str, jax.Array]) -> jax.Array:
    return jax.random.categorical(key, logits(weights, obs))


def uniform(key: jax.Array, weights: dict[str, jax.Array], obs: dict[str, jax.Array]) -> jax.Array:
    return jax.random.categorical(key, jnp.where(obs["legal_action_mask"][0], 0.0, -1e9))


def half(key: jax.Array, weights: dict[str, jax.Array], obs: dict[str, jax.Array]) -> jax.Array:
    """Ask for half; accept an offer that leaves at least half."""
    offer_to_me = 100 - obs["features"][0, 4] * 100
    return jnp.where(obs["legal_action_mask"][0, ACCEPT] & (offer_to_me >= 50), ACCEPT, 50)


def mean_return(learner: Any, weights: dict[str, jax.Array], key: jax.Array, batch: int) -> float:
    totals, _ = jax.vmap(episode, in_axes=(None, 0, None))(weights, jax.random.split(key, batch), learner)
    return float(totals.mean())


def train(iterations: int, batch: int, seed: int, learning_rate: float) -> dict[str, Any]:
    key = jax.random.key(seed)
    weights = {"w": jnp.zeros((5, env.num_actions)), "b": jnp.zeros(env.num_actions)}
    optimiser = optax.adam(learning_rate)
    opt_state = optimiser.init(weights)

    def loss(weights: dict[str, jax.Array], key: jax.Array) -> tuple[jax.Array, jax.Array]:
        totals, log_probs = jax.vmap(episode, in_axes=(None, 0, None))(weights, jax.random.split(key, batch), sampled)
        advantage = jax.lax.stop_gradient(totals - totals.mean())
        return -(advantage * log_probs).mean(), totals.mean()

    @jax.jit
    def update(weights: Any, opt_state: Any, key: jax.Array) -> tuple[Any, Any, jax.Array]:
        (_, average), grads = jax.value_and_grad(loss, has_aux=True)(weights, key)
        updates, opt_state = optimiser.update(grads, opt_state)
        return optax.apply_updates(weights, updates), opt_state, average

    curve = []
    for _ in range(iterations):
        key, step_key = jax.random.split(key)
        weights, opt_state, average = update(weights, opt_state, step_key)
        curve.append(float(average))
    key, eval_key = jax.random.split(key)
    return {
        "curve": curve,
        "trained": mean_return(sampled, weights, eval_key, 4096),
        "random": mean_return(uniform, weights, eval_key, 4096),
        "ask_half": mean_return(half, weights, eval_key, 4096),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--learning-rate", type=float, default=0.05)
    parser.add_argument("--json", action="store_true", help="print the curve and baselines as JSON")
    args = parser.parse_args()
    report = train(args.iterations, args.batch, args.seed, args.learning_rate)
    if args.json:
        print(json.dumps(report))
        return
    every = max(1, args.iterations // 15)
    for iteration in range(0, args.iterations, every):
        print(f"iteration {iteration:>4}: mean return {report['curve'][iteration]:6.2f}")
    trained, random_, half_ = report["trained"], report["random"], report["ask_half"]
    print(f"trained policy {trained:6.2f} | random {random_:6.2f} | ask-half {half_:6.2f}")


if __name__ == "__main__":
    main()
