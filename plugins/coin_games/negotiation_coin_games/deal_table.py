"""Every admissible deal-or-no-deal round of a config, enumerated once within a fixed work budget.

A round is a stock (counts per item within the count and total bounds) and a pair of private value
vectors, one per agent, each worth exactly `value_total` for the whole stock, such that every item
is valued by someone and some item by both. Rounds are drawn uniformly from this table (a stock,
then a pair), so a draw never loops; a config whose table is empty or too large to enumerate is
refused when it is parsed, with a message that says which numbers to change.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from functools import lru_cache

MAX_WORK = 250_000
"""Steps allowed to build one config's table (stocks and value vectors examined, pairs produced):
a fraction of a second, so parsing a config can never stall a server."""

Vector = tuple[int, ...]
DealTable = tuple[tuple[Vector, tuple[tuple[Vector, Vector], ...]], ...]


class _Budget:
    """Counts work steps and refuses the config once they exceed `MAX_WORK`."""

    def __init__(self) -> None:
        self.used = 0

    def spend(self, steps: int = 1) -> None:
        self.used += steps
        if self.used > MAX_WORK:
            raise ValueError(
                "this config admits too many possible rounds to draw from; "
                "use a smaller value_total, fewer items or narrower count bounds"
            )


def value_vectors(counts: Vector, total: int, budget: _Budget | None = None) -> list[Vector]:
    """All non-negative integer values with Σ count × value = total (counts are positive)."""
    return list(_vectors(counts, total, budget or _Budget()))


def _vectors(counts: Vector, total: int, budget: _Budget) -> Iterator[Vector]:
    head, rest = counts[0], counts[1:]
    budget.spend()
    if not rest:
        if total % head == 0:
            yield (total // head,)
        return
    for value in range(total // head + 1):
        for tail in _vectors(rest, total - head * value, budget):
            yield (value, *tail)


def admissible_pairs(options: list[Vector], budget: _Budget) -> tuple[tuple[Vector, Vector], ...]:
    """The (a, b) pairs, in order, in which every item is valued by someone and some item by both.

    Vectors are grouped by which items they value, so only group pairs are tested; the budget is
    spent on the pairs produced.
    """
    if not options:
        return ()
    full = (1 << len(options[0])) - 1
    masks = [sum(1 << i for i, x in enumerate(v) if x) for v in options]
    groups: dict[int, list[int]] = {}
    for index, mask in enumerate(masks):
        groups.setdefault(mask, []).append(index)
    pairs: list[tuple[Vector, Vector]] = []
    for i, a in enumerate(options):
        partners = sorted(
            j for mask, members in groups.items() if masks[i] | mask == full and masks[i] & mask for j in members
        )
        budget.spend(len(partners) + 1)
        pairs.extend((a, options[j]) for j in partners)
    return tuple(pairs)


def deal_table(
    items: int, min_count: int, max_count: int, min_total: int, max_total: int, value_total: int
) -> DealTable:
    """The admissible rounds as (stock, pairs) rows, in a fixed order; raises ValueError if none or too many."""
    table = _table_or_reason(items, min_count, max_count, min_total, max_total, value_total)
    if isinstance(table, str):
        raise ValueError(table)
    return table


@lru_cache(maxsize=16)
def _table_or_reason(
    items: int, min_count: int, max_count: int, min_total: int, max_total: int, value_total: int
) -> DealTable | str:
    """The table, or why there is none; refusals are cached too, so a repeated bad config costs nothing."""
    try:
        return _build(items, min_count, max_count, min_total, max_total, value_total)
    except ValueError as exc:
        return str(exc)


def _build(items: int, min_count: int, max_count: int, min_total: int, max_total: int, value_total: int) -> DealTable:
    budget = _Budget()
    budget.spend((max_count - min_count + 1) ** items)
    rows = []
    for counts in itertools.product(range(min_count, max_count + 1), repeat=items):
        if not min_total <= sum(counts) <= max_total:
            continue
        pairs = admissible_pairs(value_vectors(counts, value_total, budget), budget)
        if pairs:
            rows.append((counts, pairs))
    if not rows:
        raise ValueError(
            f"no round can be drawn: no stock with counts {min_count}..{max_count} and total {min_total}..{max_total} "
            f"admits two value vectors worth exactly {value_total} that value every item and share one; "
            "raise value_total or change the count bounds"
        )
    return tuple(rows)
