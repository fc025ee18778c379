"""`check_kernel`: a game's JAX kernel against the game itself, move for move (needs the jax extra).

The engine plays each seed with random legal moves chosen in the kernel's own terms: a seat's legal
codes come from the kernel's `table_observation` of its turn state, a random one is turned into the
engine's move by `table_action`, and the engine must accept it. Once the match is over (some draws,
such as who opens a round, are made only as it goes), the kernel starts from the engine's draws
(`engine_draws`) and replays the same actions; before each step every seat's observation (as a policy
reads it, `network_observation`), legal mask included, must be what `table_observation` saw, and after
it `done` must say what the engine said; at the end the kernel's summed rewards must be the engine's
payoffs, and stepping the finished match must change nothing. JAX is imported only when a check runs.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import JsonValue

from negotiation_platform.engine import Match
from negotiation_platform.errors import NegotiationError
from negotiation_platform.games.base_game import BaseGame, GameConfig
from negotiation_platform.registry import Registry

if TYPE_CHECKING:  # JAX is imported only when a check runs
    import jax
    from jax.stages import Wrapped

DEFAULT_SEEDS = range(5)
DEFAULT_MAX_STEPS = 5_000
TOLERANCE = 1e-6
"""Relative (and absolute) tolerance of float comparisons: a kernel computes in float32, the engine in
float64, so a kernel keeps its payoffs and features to float32's relative precision (no cancellation)."""

HOOKS = ("table_observation", "table_action", "engine_draws")
UNMODELLED = "check_kernel: a turn the kernel does not model (free talk)"


class KernelCheckError(AssertionError):
    """A kernel disagreed with its game; `check` names what, `seed` the match, `step` the kernel step."""

    def __init__(self, check: str, game_id: str, detail: str, seed: int | None = None, step: int | None = None) -> None:
        where = game_id if seed is None else f"{game_id}, seed {seed}" + ("" if step is None else f", step {step}")
        super().__init__(f"check_kernel [{check}] failed for {where}: {detail}")
        self.check, self.game_id, self.seed, self.step = check, game_id, seed, step


def seat_turn(match: Match, player: str) -> dict[str, JsonValue]:
    """The parts of a seat's turn state (as the arena builds it) that `table_observation` reads."""
    return {
        "game_id": match.game.spec.id,
        "agent_id": player,
        "players": list(match.players),
        "your_turn": player in match.acting(),
        "view": match.game.get_player_view(player),
    }


@dataclass
class _Step:
    """One kernel step as the engine played it."""

    observations: list[dict[str, np.ndarray]]
    actions: np.ndarray
    finished: bool


@dataclass
class _Kernel:
    """A kernel under check, with its jitted pieces (compiled once for every seed)."""

    env: Any
    params: Any
    game_id: str
    call: str
    """How to check one seed again: `check_kernel(...)` with everything but the seeds."""
    observe: Wrapped
    replay: Wrapped
    legal_codes: Wrapped
    decode: Wrapped

    def fail(self, check: str, detail: str, seed: int, step: int) -> KernelCheckError:
        again = f" (reproduce: {self.call.replace('SEEDS', f'seeds=[{seed}]')})"
        return KernelCheckError(check, self.game_id, detail + again, seed, step)


def check_kernel(
    game_cls: type[BaseGame[GameConfig]],
    seeds: Iterable[int] = DEFAULT_SEEDS,
    config: Mapping[str, object] | GameConfig | None = None,
    *,
    kernel: Any = None,
    registry: Registry | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> None:
    """Differential test of `game_cls`'s kernel against the game on every seed (see the module docstring).

    `kernel` is the kernel class (anything with `from_config`); by default the one registered for the
    game through `register_kernels`. The kernel needs `table_observation(turn)`, `table_action(action,
    turn)` and `engine_draws(match)`; a kernel whose steps draw at random also `engine_step_draws(match,
    index)` and `replay_step(state, actions, draws, params)`. Raises `KernelCheckError` (an
    AssertionError) naming the check (`hooks`, `engine_refused`, `observation`, `done`, `payoffs`,
    `frozen`), the seed and the kernel step, with both sides' values and the call that repeats it.
    """
    import jax

    from negotiation_platform.kernels.action_codes import codes_for
    from negotiation_platform.kernels.discovery import kernel_for

    parsed = game_cls.parse_config(config)
    game_id = game_cls.spec_for(parsed).id
    if kernel is None:
        env, params = kernel_for(registry or Registry(), game_id, parsed.model_dump())
    else:
        env, params = kernel.from_config(parsed)
    missing = [hook for hook in HOOKS if not hasattr(env, hook)]
    if missing:
        raise KernelCheckError("hooks", game_id, f"the kernel has no {', '.join(missing)}: define them to check it")
    codes = codes_for(env.action_space(params))
    overrides = parsed.model_dump(exclude_defaults=True)
    call = f"check_kernel({game_cls.__name__}, SEEDS" + (f", config={overrides!r}" if overrides else "")
    checked = _Kernel(
        env,
        params,
        game_id,
        call + (f", kernel={kernel.__name__})" if kernel is not None else ")"),
        observe=jax.jit(lambda state: env.network_observation(env.observe(state, params), params)),
        replay=jax.jit(lambda state, actions, draws: _replay_step(env, state, actions, draws, params)),
        legal_codes=jax.jit(lambda legal: codes.mask(legal, params)),
        decode=jax.jit(lambda code: codes.decode(code, params)),
    )
    for seed in seeds:
        match = Match(game_cls, [f"p{i}" for i in range(env.num_agents)], config=parsed, seed=seed)
        _replay(checked, match, seed, _play(checked, match, seed, max_steps))


def _play(kernel: _Kernel, match: Match, seed: int, limit: int) -> list[_Step]:
    """Play the match with random legal kernel actions turned into engine moves; the steps as played."""
    rng, steps = random.Random(seed), list[_Step]()
    while not match.finished and len(steps) < limit:
        acting = match.acting()
        turns = [seat_turn(match, player) for player in match.players]
        observations = [kernel.env.table_observation(turn) for turn in turns]
        if any(observations[match.players.index(p)] is None for p in acting):
            for player in acting:
                match.play_default(player, UNMODELLED)
            continue
        masks = np.stack([o["legal_action_mask"] for o in observations if o])  # every seat in one call
        legal = iter(np.asarray(kernel.legal_codes(masks)))
        picked = []
        for observation in observations:
            choices = np.flatnonzero(next(legal)) if observation else ()
            picked.append(rng.choice(list(choices)) if len(choices) else 0)
        rows = list(np.asarray(kernel.decode(np.array(picked, np.int32))))
        for player in acting:
            seat = match.players.index(player)
            name, payload = kernel.env.table_action(rows[seat], turns[seat])
            try:
                match.submit(player, name, payload)
            except NegotiationError as refused:
                detail = f"{player}'s legal kernel action {rows[seat].tolist()}, played as {name} {payload}: {refused}"
                raise kernel.fail("engine_refused", detail, seed, len(steps)) from None
        steps.append(_Step([dict(o or {}) for o in observations], np.stack(rows), match.finished))
    return steps


def _replay(kernel: _Kernel, match: Match, seed: int, steps: list[_Step]) -> None:
    """The kernel from the engine's draws through the same actions, compared step by step."""
    import jax

    env = kernel.env
    state = env.init_state(kernel.params, env.engine_draws(match))
    totals = np.zeros(env.num_agents)
    for index, played in enumerate(steps):
        seen = jax.device_get(kernel.observe(state))  # one transfer; indexing device arrays dispatches per field
        for seat, observation in enumerate(played.observations):
            for field, engine_value in observation.items():
                kernel_value = np.asarray(seen[field][seat])
                if not np.allclose(kernel_value, engine_value, rtol=TOLERANCE, atol=TOLERANCE):
                    detail = (
                        f"seat {seat} ({match.players[seat]}), observation field {field!r}: kernel "
                        f"{kernel_value.tolist()}, engine {np.asarray(engine_value).tolist()}"
                    )
                    raise kernel.fail("observation", detail, seed, index)
        out = kernel.replay(state, played.actions, _step_draws(env, match, index))
        state, totals = out.state, totals + np.asarray(out.rewards, np.float64)
        if bool(out.done) != played.finished:
            detail = (
                f"after actions {played.actions.tolist()} the kernel's done is {bool(out.done)}, "
                f"the engine's match finished is {played.finished}"
            )
            raise kernel.fail("done", detail, seed, index)
    if not match.finished:
        raise kernel.fail("done", f"the match did not end within {len(steps)} kernel steps", seed, len(steps))
    assert match.result is not None
    engine = np.array([match.result.final_scores[player] for player in match.players])
    if not np.allclose(totals, engine, rtol=TOLERANCE, atol=TOLERANCE):
        detail = f"summed rewards per seat: kernel {totals.tolist()}, engine payoffs {engine.tolist()}"
        raise kernel.fail("payoffs", detail, seed, len(steps))
    if steps:
        after = kernel.replay(state, steps[-1].actions, _step_draws(env, match, len(steps) - 1))
        unchanged = all(np.array_equal(a, b) for a, b in zip(_leaves(after.state), _leaves(state), strict=True))
        if not unchanged or np.any(np.asarray(after.rewards) != 0):
            detail = f"stepping the finished match changed its state or paid {np.asarray(after.rewards).tolist()}"
            raise kernel.fail("frozen", detail, seed, len(steps))


def _step_draws(env: Any, match: Match, index: int) -> object:
    return env.engine_step_draws(match, index) if hasattr(env, "engine_step_draws") else None


def _replay_step(env: Any, state: object, actions: jax.Array, draws: object, params: object) -> Any:
    """The kernel's step with the engine's draws of that step (`replay_step`), else `step_env` itself."""
    import jax

    if hasattr(env, "replay_step"):
        return env.replay_step(state, actions, draws, params)
    return env.step_env(jax.random.key(0), state, actions, params)


def _leaves(tree: object) -> list[np.ndarray]:
    import jax

    return [np.asarray(leaf) for leaf in jax.tree.leaves(tree)]
