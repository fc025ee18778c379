"""Where a match's randomness and logical time come from: generators seeded from the match's seed,
made only when something draws, and the event-numbered timestamps of a game's history."""

from __future__ import annotations

import random

from negotiation_platform.spec import FirstMover, GameSpec, StartRule, TurnOrder

SHARED_TIMES = 4096
TIMES = tuple(map(float, range(SHARED_TIMES)))
"""Entry i is float(i): the logical times of events below `SHARED_TIMES`, one object per value for all
matches (a finished match keeps one per action in its game's `actions_history`, and a float is 24
bytes)."""


def logical_time(seq: int) -> float:
    """`float(seq)`, shared from `TIMES` when it is there."""
    return TIMES[seq] if seq < SHARED_TIMES else float(seq)


class GameRngMaker:
    """Makes the game's generator when the game first draws (a `partial` of `game_rng`, in a third of
    the memory a finished match would keep)."""

    __slots__ = ("seed",)

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __call__(self) -> random.Random:
        return game_rng(self.seed)


def game_rng(seed: int) -> random.Random:
    """The game's generator of a match seeded `seed`: seeded from the first 64 bits of the match's."""
    return random.Random(random.Random(seed).getrandbits(64))


def orders_rng(seed: int) -> random.Random:
    """The match's generator for drawn turn orders: the one the game's seed was taken from, past that draw."""
    rng = random.Random(seed)
    rng.getrandbits(64)
    return rng


def draws_orders(spec: GameSpec) -> bool:
    """Whether some phase's turn order is drawn from the match's generator."""
    return any(
        p.turn_order is TurnOrder.ALTERNATING and (p.start is StartRule.SHUFFLED or p.first_mover is FirstMover.SEEDED)
        for p in spec.phases
    )
