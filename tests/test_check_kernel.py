"""`check_kernel` passes on every installed kernel that can sit at a table, and names what a broken one gets wrong."""

from __future__ import annotations

from typing import Any

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from negotiation_platform.games import Split100Game  # noqa: E402
from negotiation_platform.kernels import kernel_for, kernel_games  # noqa: E402
from negotiation_platform.kernels.base import Moved  # noqa: E402
from negotiation_platform.kernels.split_100 import Split100Env, State  # noqa: E402
from negotiation_platform.registry import Registry  # noqa: E402
from negotiation_platform.testing import KernelCheckError, check_kernel  # noqa: E402

REGISTRY = Registry()


@pytest.mark.parametrize("game_id", sorted(kernel_games(REGISTRY)))
def test_every_installed_kernel_agrees_with_its_game(game_id: str) -> None:
    env, _ = kernel_for(REGISTRY, game_id)
    if not hasattr(env, "table_observation"):
        pytest.skip(f"{game_id}'s kernel cannot sit at a table yet (no table_observation): nothing to compare with")
    check_kernel(REGISTRY.game(game_id).cls, seeds=range(3))


def test_the_fixture_is_check_kernel(check_kernel: Any) -> None:
    check_kernel(Split100Game, seeds=[0], config={"rounds": 2})


class OverpaysSeatZero(Split100Env):
    """Pays seat 0 one dollar more than the game does."""

    def payoffs(self, state: State, params: Any) -> jax.Array:
        return super().payoffs(state, params) + jnp.array([1.0, 0.0])


class AcceptsWithoutAnOffer(Split100Env):
    """Ignores that accepting needs a standing offer from the other seat: its mask allows it, and an
    accept with nothing to accept ends the match in an agreement on 0 for seat 0."""

    def action_mask(self, state: State) -> jax.Array:
        return super().action_mask(state).at[:, self.total + 1].set(self.current_player(state) == jnp.arange(2))

    def move(self, key: jax.Array, state: State, actions: jax.Array, params: Any) -> Moved:
        moved = super().move(key, state, actions, params)
        accept = actions[self.current_player(state)] == self.total + 1
        return Moved(moved.state._replace(done=moved.state.done | accept, agreed=moved.state.agreed | accept))


class EndsARoundEarly(Split100Env):
    def move(self, key: jax.Array, state: State, actions: jax.Array, params: Any) -> Moved:
        moved = super().move(key, state, actions, params)
        return Moved(moved.state._replace(done=moved.state.done | (moved.state.turn >= 2 * params.rounds - 2)))


class NeverFreezes(Split100Env):
    def freeze(self, state: State, moved: State) -> State:
        return moved


@pytest.mark.parametrize(
    ("kernel", "check", "says"),
    [
        (OverpaysSeatZero, "payoffs", "summed rewards per seat: kernel"),
        (AcceptsWithoutAnOffer, "observation", "observation field 'legal_action_mask'"),
        (EndsARoundEarly, "done", "the kernel's done is True, the engine's match finished is False"),
        (NeverFreezes, "frozen", "stepping the finished match changed"),
    ],
)
def test_a_broken_kernel_fails_with_the_step_the_field_and_both_values(kernel: Any, check: str, says: str) -> None:
    with pytest.raises(KernelCheckError) as failed:
        check_kernel(Split100Game, seeds=range(10), config={"rounds": 3}, kernel=kernel)
    message = str(failed.value)
    assert failed.value.check == check and f"[{check}]" in message and says in message, message
    assert f"seed {failed.value.seed}, step {failed.value.step}" in message
    seeds = f"seeds=[{failed.value.seed}]"
    assert (
        f"reproduce: check_kernel(Split100Game, {seeds}, config={{'rounds': 3}}, kernel={kernel.__name__})" in message
    )


def test_a_table_observation_that_allows_what_the_game_refuses_is_caught_by_the_engine() -> None:
    class AlsoAtTheTable(AcceptsWithoutAnOffer):
        def table_observation(self, turn: dict[str, Any]) -> dict[str, Any]:
            rows = super().table_observation(turn)
            rows["legal_action_mask"][self.total + 1] = bool(turn["your_turn"])
            return rows

    with pytest.raises(KernelCheckError) as failed:
        check_kernel(Split100Game, seeds=range(20), config={"rounds": 3}, kernel=AlsoAtTheTable)
    assert failed.value.check == "engine_refused" and "as accept" in str(failed.value), str(failed.value)


def test_a_kernel_without_the_hooks_is_told_what_to_define() -> None:
    with pytest.raises(KernelCheckError, match=r"\[hooks\].*no engine_draws"):
        check_kernel(Split100Game, seeds=[0], kernel=type("Bare", (Split100Env,), {"engine_draws": property()}))
