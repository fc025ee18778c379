"""What LLM seats used and cost: totals of a transcript's calls, and a price table that turns tokens into USD.

A transcript entry (see `LLMAgent.transcript`) carries `usage` ({prompt_tokens, completion_tokens,
cached_tokens}), `seconds` and `cache_hit`; an entry whose `reply` is None is a call that failed.
An entry may stand for several calls (`requests`, as an agent that keeps one entry per turn
says). Replies from the response cache cost nothing and are counted apart (`cache_hits`).

A price table maps a model to USD per million tokens, as JSON or TOML:
`{"gpt-4o-mini": {"input": 0.15, "output": 0.6, "cached": 0.075}}` (`cached`, the price of a prompt's
cached tokens, defaults to `input`).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from negotiation_platform.errors import ErrorCode, NegotiationError

TOKENS = ("prompt_tokens", "completion_tokens", "cached_tokens")
Prices = dict[str, dict[str, float]]


Usage = dict[str, float | None]
"""Counts, tokens and seconds by name (ints where they count), and `cost_usd` (None: not priced)."""


def usage_totals(transcript: Sequence[Mapping[str, object]]) -> Usage:
    """Calls paid, calls answered from the cache, failed calls, tokens of the paid calls, and their seconds."""
    counts = {"calls": 0, "cache_hits": 0, "failed_calls": 0, **dict.fromkeys(TOKENS, 0)}
    seconds = 0.0
    for entry in transcript:
        if "reply" in entry and entry["reply"] is None:
            counts["failed_calls"] += 1
        elif entry.get("cache_hit"):
            counts["cache_hits"] += 1
        else:
            counts["calls"] += int(_number(entry.get("requests", 1)))
            usage = entry.get("usage")
            for name in TOKENS:
                counts[name] += int(_number(usage.get(name, 0))) if isinstance(usage, dict) else 0
            seconds += float(_number(entry.get("seconds")))
    return {**counts, "seconds": round(seconds, 6)}


def add_usage(into: Mapping[str, float | None], more: Mapping[str, float | None]) -> Usage:
    """`into` plus `more`, key by key (a cost only where both, or `into` alone, have one)."""
    summed = dict(into)
    for key, value in more.items():
        if key == "cost_usd":
            cost = into.get(key, 0.0)
            summed[key] = None if value is None or cost is None else cost + value
        elif isinstance(value, int | float):
            summed[key] = (summed.get(key) or 0) + value
    seconds = summed.get("seconds")
    if seconds is not None:
        summed["seconds"] = round(seconds, 6)
    return summed


def cost_usd(prices: Prices, model: str, totals: Mapping[str, float | None]) -> float | None:
    """What `totals`' tokens cost at `model`'s prices (None when the table does not price the model)."""
    price = prices.get(model)
    if price is None:
        return None
    cached = totals.get("cached_tokens") or 0
    spent = (
        ((totals.get("prompt_tokens") or 0) - cached) * price["input"]
        + cached * price.get("cached", price["input"])
        + (totals.get("completion_tokens") or 0) * price["output"]
    )
    return round(float(spent) / 1_000_000, 8)


def _number(value: object) -> float:
    """A transcript entry's count or seconds (0 where it has none)."""
    return value if isinstance(value, int | float) else 0


def load_prices(path: str | Path) -> Prices:
    """A price table from a .json or .toml file; a malformed one is refused with what is wrong."""
    source = Path(path)
    try:
        text = source.read_text()
        raw = tomllib.loads(text) if source.suffix == ".toml" else json.loads(text)
    except (OSError, ValueError) as exc:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"cannot read the price table {source}: {exc}") from None
    prices: Prices = {}
    for model, price in raw.items() if isinstance(raw, dict) else [("(table)", raw)]:
        fields = set(price) if isinstance(price, dict) else set()
        numbers = isinstance(price, dict) and all(isinstance(v, int | float) and v >= 0 for v in price.values())
        if not {"input", "output"} <= fields or not fields <= {"input", "output", "cached"} or not numbers:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT,
                f"price table {source}: {model!r} needs non-negative input and output (and optionally cached) "
                "prices in USD per million tokens.",
            )
        prices[model] = {key: float(value) for key, value in price.items()}
    return prices
