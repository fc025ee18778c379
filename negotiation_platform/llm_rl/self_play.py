"""Advantage Alignment (`train-llm --algo ad-align`): REINFORCE over `TextEnv` with per-round credit, in torch.

TRL's `GRPOTrainer` scores a completion with one scalar and computes its own group advantage, so it cannot weight
each round's reply by its own credit. This loop does: every step plays `group_size` rollouts of one seed (the
step's index), the learner seats' replies sampled from the model (`opponents=["self"]`: both seats are the learner,
self-play) and any other seat played by an agent. Each seat's per-round rewards become discounted returns, the
leave-one-out baseline among the rollouts of the seed gives its advantage, and Advantage Alignment's credit
`ad_align_credit(A_self, A_other)` (the co-player's advantage on the same rollout) weights the summed token
log-probabilities of that seat's reply in that round. AdamW takes one step per group.

Every reply is one move: the environment plays the phase's default move for an unusable reply at once
(`max_retries=0`), so every reply the model wrote shaped the match. torch, transformers and peft are imported
inside the functions: the package imports without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, JsonValue

from negotiation_platform.agents.catalog import make_agent
from negotiation_platform.agents.seating import SeatedBy
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.llm_rl.advantages import ad_align_credit, discounted_returns, rloo_advantages
from negotiation_platform.llm_rl.grammar import Grammar
from negotiation_platform.llm_rl.seat_agents import AgentSeat
from negotiation_platform.llm_rl.text_env import TextEnv
from negotiation_platform.llm_rl.tiny_model import prompt_ids
from negotiation_platform.llm_rl.train import CurvePoint, lora_config
from negotiation_platform.registry import Registry

if TYPE_CHECKING:
    import torch

SELF = "self"
"""The opponent spec for a seat played by the learner itself."""


class SeatReply(BaseModel):
    """One reply a learner seat sampled: the tokens it read and wrote, and the round it was written in (from 1)."""

    model_config = ConfigDict(frozen=True)

    seat: str
    round: int
    prompt_ids: list[int]
    reply_ids: list[int]


class Rollout(BaseModel):
    """One match played for training: its seed (its group), each seat's reward per round, the learners' replies."""

    model_config = ConfigDict(frozen=True)

    seed: int
    rewards: dict[str, list[float]]
    replies: list[SeatReply]


def seat_specs(
    game: str, opponents: Sequence[str], registry: Registry, config: dict[str, JsonValue] | None
) -> list[str]:
    """Who plays each seat of a two-seat `game` for ad-align: `self` (the learner) for the first, then `opponents`
    (one spec; `self` for self-play). Refused (NegotiationError) before any model is loaded."""
    seats = TextEnv(game, config=config, registry=registry).seats
    if len(seats) != 2:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"ad-align shapes one co-player: it trains two-seat games, and {game} seats {len(seats)}.",
        )
    if len(opponents) != 1:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"{game} has one other seat: name one opponent (or 'self'), not {len(opponents)}.",
        )
    if opponents[0] != SELF:
        make_agent(registry, opponents[0], seed=0, by=SeatedBy.OPERATOR)
    return [SELF, opponents[0]]


def seat_credits(rollouts: Sequence[Rollout], beta: float, gamma: float) -> dict[str, np.ndarray]:
    """Each seat's Advantage Alignment credit, [rollouts, rounds]: discounted returns of its per-round rewards, the
    leave-one-out advantage among rollouts of the same seed, and `ad_align_credit` with the other seat's advantage.
    Rollouts that ended early are padded with rounds of reward 0 (they hold no reply, so no weight)."""
    seats = list(rollouts[0].rewards)
    rounds = max(
        max(len(values) for rollout in rollouts for values in rollout.rewards.values()),
        max((reply.round for rollout in rollouts for reply in rollout.replies), default=1),
    )
    groups = [rollout.seed for rollout in rollouts]
    advantages = {}
    for seat in seats:
        rewards = np.zeros((len(rollouts), rounds))
        for row, rollout in enumerate(rollouts):
            rewards[row, : len(rollout.rewards[seat])] = rollout.rewards[seat]
        advantages[seat] = rloo_advantages(discounted_returns(rewards, gamma), groups)
    (first, second) = seats
    return {
        first: ad_align_credit(advantages[first], advantages[second], beta, gamma),
        second: ad_align_credit(advantages[second], advantages[first], beta, gamma),
    }


def reply_weights(rollouts: Sequence[Rollout], beta: float, gamma: float) -> list[list[float]]:
    """The weight of every reply of every rollout in the loss: its seat's credit for the round it was written in."""
    credits = seat_credits(rollouts, beta, gamma)
    return [
        [float(credits[reply.seat][row, reply.round - 1]) for reply in rollout.replies]
        for row, rollout in enumerate(rollouts)
    ]


class Policy:
    """The model being trained, writing replies: sampled at temperature 1 from a seeded `torch.Generator`."""

    def __init__(self, model: Any, tokenizer: Any, device: str, max_new_tokens: int, seed: int) -> None:
        import torch

        from negotiation_platform.llm_rl.hf_agent import HFAgentOptions, stop_tokens

        self.model, self.tokenizer, self.device = model, tokenizer, device
        self.options = HFAgentOptions(max_new_tokens=max_new_tokens, temperature=1.0, max_replies=1, max_refusals=0)
        self.stops = stop_tokens(model, tokenizer)
        self.generator = torch.Generator().manual_seed(seed)

    def reply(self, env: TextEnv, seat: str) -> SeatReply:
        """`seat`'s reply to its prompt now, stepped into `env`."""
        from negotiation_platform.llm_rl.hf_agent import decode

        ids = prompt_ids(self.tokenizer, env.prompt(seat)).to(self.device)
        self.model.eval()
        tokens = decode(self.model, ids, self.stops, self.options, self.generator)
        played = SeatReply(seat=seat, round=env.match.round, prompt_ids=ids[0].tolist(), reply_ids=tokens)
        env.step(seat, self.tokenizer.decode(tokens, skip_special_tokens=True))
        return played


def play_rollout(env: TextEnv, policy: Policy, specs: Sequence[str], seed: int, registry: Registry) -> Rollout:
    """One match of `env` from `seed`: seats whose spec is `self` reply by `policy`, the others by their agents."""
    env.reset(seed=seed)
    agents = {
        seat: AgentSeat(registry, spec, seat, seed=seed * 1000 + index)
        for index, (seat, spec) in enumerate(zip(env.seats, specs, strict=True))
        if spec != SELF
    }
    replies: list[SeatReply] = []
    while not env.done:
        for seat in env.to_move():
            if seat not in env.to_move():  # a simultaneous phase that settled without it
                continue
            if seat in agents:
                agents[seat].play(env)
            else:
                replies.append(policy.reply(env, seat))
    rewards = {seat: [row[seat] for row in env.round_rewards] for seat in env.seats}
    return Rollout(seed=seed, rewards=rewards, replies=replies)


def reinforce_step(
    policy: Policy, optimizer: torch.optim.Optimizer, rollouts: Sequence[Rollout], weights: list[list[float]]
) -> None:
    """One AdamW step on −Σ weight·log π(reply | prompt), averaged over the replies (gradients clipped to norm 1)."""
    import torch

    model = policy.model
    model.train()
    optimizer.zero_grad()
    written = [
        (reply, weight)
        for rollout, row in zip(rollouts, weights, strict=True)
        for reply, weight in zip(rollout.replies, row, strict=True)
        if reply.reply_ids
    ]
    autocast = policy.device.startswith("cuda") and torch.cuda.is_bf16_supported()
    for reply, weight in written:
        if weight == 0.0:
            continue
        ids = torch.tensor([reply.prompt_ids + reply.reply_ids], device=policy.device)
        with torch.autocast(policy.device.split(":")[0], dtype=torch.bfloat16, enabled=autocast):
            logits = model(input_ids=ids).logits[0, len(reply.prompt_ids) - 1 : -1].float()
        target = ids[0, len(reply.prompt_ids) :]
        loss: Any = -weight * torch.log_softmax(logits, dim=-1).gather(1, target[:, None]).sum() / len(written)
        loss.backward()
    torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
    optimizer.step()


def train_ad_align(
    game: str,
    source: Path,
    out: Path,
    *,
    specs: Sequence[str],
    lora: bool,
    group_size: int,
    steps: int,
    seed: int,
    max_new_tokens: int,
    learning_rate: float,
    beta: float,
    gamma: float,
    save_every: int,
    config: dict[str, JsonValue] | None,
    registry: Registry,
    grammar: Grammar = "json",
) -> tuple[Any, Any, list[CurvePoint], str]:
    """Train `source`'s model by Advantage Alignment for `steps` groups, with `checkpoint-<step>/` in `out` every
    `save_every` steps (0: none), the replies read in `grammar`. Returns the trained model, its tokenizer, each
    step's mean reward and the device."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
    model: Any = AutoModelForCausalLM.from_pretrained(source, local_files_only=True)
    model = model.to(device)
    if lora:
        from peft import get_peft_model

        model = get_peft_model(model, lora_config())
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=learning_rate)
    policy = Policy(model, tokenizer, device, max_new_tokens, seed)
    env = TextEnv(game, config=config, registry=registry, grammar=grammar, max_retries=0)
    learners = [seat for seat, spec in zip(env.seats, specs, strict=True) if spec == SELF]
    curve: list[CurvePoint] = []
    for step in range(1, steps + 1):
        rollouts = [play_rollout(env, policy, specs, step - 1, registry) for _ in range(group_size)]
        reinforce_step(policy, optimizer, rollouts, reply_weights(rollouts, beta, gamma))
        payoffs = [sum(rollout.rewards[seat]) for rollout in rollouts for seat in learners]
        curve.append(CurvePoint(step=step, mean_reward=float(np.mean(payoffs))))
        if save_every and step % save_every == 0:
            model.save_pretrained(out / f"checkpoint-{step}")
            tokenizer.save_pretrained(out / f"checkpoint-{step}")
    return model, tokenizer, curve, torch.cuda.get_device_name() if device == "cuda" else "cpu"
