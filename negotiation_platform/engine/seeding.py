"""Where a match's randomness and logical time come from: generators seeded from the match's seed,
made only when something draws, and the event-numbered timestamps of a game's history."""

from __future__ import annotations

import random

from negotiation_platform.spec import FirstMover, GameSpec, StartRule, TurnOrder

_SHARED_TIMES = 4096
_times: tuple[float, ...] = ()


def logical_time(seq: int) -> float:
    """`float(seq)`, one object per value for all matches (the first `_SHARED_TIMES`): a finished match
    keeps one per action in its game's `actions_history`, and a float is 24 bytes.

    The table grows by replacing it with a longer one, never in place, so matches in other threads
    only ever read a complete table in which entry i is float(i)."""
    global _times
    times = _times
    if seq >= len(times):
        if seq >= _SHARED_TIMES:
            return float(seq)
        times = _times = times + tuple(map(float, range(len(times), min(2 * seq + 1, _SHARED_TIMES))))
    return times[seq]


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
