"""A trained AdaSociety policy sees at an engine table what it saw in training, and its moves mean the same there.

An engine match and its kernel twin (same map, same collision draws) are played with actions drawn
from the rebuilt observations' legal masks: at every step each seat's observation rebuilt from its
turn state equals the kernel's own, every legal index maps to a move the engine takes (and encodes
back to that index), and the moves played lead both to the same next state (`Twin.step` checks it).
"""

from __future__ import annotations

import random

import jax
import numpy as np
from test_adasociety_kernel import FORMULATIONS, Twin

from negotiation_adasociety import AdaSocietyGame
from negotiation_adasociety.encoding import encode
from negotiation_adasociety.kernels import AdaSocietyEnv
from negotiation_platform.kernels.marl import MarlEnv
from negotiation_platform.kernels.table_features import table_features
from tests.table_turns import seat_turn

JOBS = [
    {
        "name": "carpenter",
        "fov": 3,
        "caps": {"wood": 100, "stone": 100, "hammer": 1},
        "values": {"wood": 1, "stone": 1, "hammer": 5},
        "count": 2,
    },
    {"name": "miner", "fov": 1, "caps": {"hammer": 100}, "values": {"hammer": 10}, "count": 2},
]
"""The default jobs, but the miners see less: their window is padded into the kernel's wider one."""


@FORMULATIONS
def test_table_observations_and_moves_are_the_kernels(kernel: type[AdaSocietyEnv]) -> None:
    """On either formulation: the accelerator's compact observation, spread as training spreads it, is
    what the table rebuilds."""
    count, config = 4, {"max_length": 40, "negotiation_steps": 14, "jobs": JOBS}
    players = [f"p{i}" for i in range(count)]
    twin = Twin(AdaSocietyGame, players, seed=5, config=config, kernel=kernel)
    env, rng, settings = twin.env, random.Random(5), twin.game.settings

    def own_of(state: object) -> dict[str, jax.Array]:
        return env.network_observation(env.observe(state, twin.params), twin.params)

    fields: list[str] = []  # the kernel's field order (a jit's result sorts them), seen while tracing
    jax.eval_shape(lambda state: fields.extend(own_of(state)), twin.state)
    marl = MarlEnv(env, twin.params)
    vectors_of = jax.jit(lambda state: marl.features(env.observe(state, twin.params)))  # as training reads it
    own_at = jax.jit(own_of)
    while not twin.match.finished:
        own, vectors = own_at(twin.state), vectors_of(twin.state)
        actions = {}
        for seat, player in enumerate(players):
            turn = seat_turn(twin.match, player)
            seen = env.table_observation(turn)
            assert list(seen) == fields
            np.testing.assert_allclose(table_features(seen), np.asarray(vectors[seat]), atol=1e-6, err_msg=player)
            for name, value in seen.items():
                assert value.dtype == own[name].dtype, name
                np.testing.assert_allclose(value, np.asarray(own[name][seat]), atol=1e-6, err_msg=f"{name} {player}")
            legal = np.flatnonzero(seen["legal_action_mask"]).tolist()
            for code in legal:
                name, payload = env.table_action(np.int32(code), turn)
                assert twin.game.action_error(player, {"type": name, **payload}) is None
                assert encode(settings, players, name, payload) == code
            actions[player] = env.table_action(np.int32(rng.choice(legal)), turn)
        twin.step(actions)
    assert bool(twin.state.done)
