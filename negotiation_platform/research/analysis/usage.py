"""What LLM seats used, cost and forfeited, per agent, and why matches failed: for reports and notebooks.

Reads the `usage` (per seat: calls, cache hits, failed calls, tokens, seconds, `cost_usd` when the
tournament had a price table) and `forfeits` (per seat) that tournament rows of matches with LLM
seats carry; rows without them (scripted matches) count for nothing here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from negotiation_platform.agents.llm_usage import Usage, add_usage
from negotiation_platform.research.rows import FailureGroup, FailureRow, MatchRow


def usage_by_agent(rows: Sequence[MatchRow]) -> dict[str, Usage]:
    """Per agent spec that used a model: seats played, forfeited moves, and its usage summed over them;
    `cost_usd` is None when some seat had no price. Under "total", all of them together."""
    table: dict[str, Usage] = {}
    for row in rows:
        seats = row.get("usage") or []
        for seat, usage in enumerate(seats):
            if usage is None:
                continue
            spec = row["agents"][seat]
            entry = add_usage(table.get(spec, {"seats": 0, "forfeits": 0}), usage)
            entry["seats"] = (entry.get("seats") or 0) + 1
            entry["forfeits"] = (entry.get("forfeits") or 0) + (row.get("forfeits") or [0] * len(seats))[seat]
            table[spec] = entry
    if table:
        total: Usage = {}
        for entry in table.values():
            total = add_usage(total, entry)
        table["total"] = total
    return table


def failure_summary(failures: Sequence[FailureRow]) -> list[FailureGroup]:
    """failures.jsonl's rows grouped by reason, most frequent first: [{error, count, keys}]."""
    keys: dict[str, list[str]] = {}
    for failure in failures:
        keys.setdefault(failure["error"], []).append(failure["key"])
    counts = Counter({error: len(matched) for error, matched in keys.items()})
    return [{"error": error, "count": count, "keys": keys[error]} for error, count in counts.most_common()]
