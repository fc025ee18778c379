"""Finished matches as rows for analysis: JSON Lines or Parquet, one row per match.

A row holds `match_id, game_id, config, seed, players, agents, agreement, terms, payoffs, winner,
rounds, created_at, started_at, finished_at, duration_seconds` (and `events`, the whole log with
visibility, when asked). `players` are the agent ids in seat order, `agents` who played each seat:
the server-side agent (`concession`, `a2a:URL`) or the name its client gave. Only finished matches are
exported: a running match's seed is still secret.

    pandas.read_json("results.jsonl", lines=True)      polars.read_parquet("results.parquet")

Parquet needs pyarrow (the `export` extra); there, `config`, `terms` and `events` are JSON text
columns and `payoffs` is a map from agent id to payoff.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from negotiation_platform.store.records import MatchQuery, MatchRecord

if TYPE_CHECKING:
    from negotiation_platform.store.sql import SqlStore

FORMATS = (".jsonl", ".parquet")


def match_row(record: MatchRecord) -> dict[str, object]:
    result = record.result or {}
    started, finished = record.started_at, record.finished_at
    return {
        "match_id": record.match_id,
        "game_id": record.game_id,
        "config": record.config,
        "seed": record.seed,
        "players": record.players,
        "agents": [s.agent for s in record.seats],
        "agreement": result.get("agreement"),
        "terms": result.get("terms"),
        "payoffs": result.get("payoffs"),
        "winner": result.get("winner"),
        "rounds": result.get("rounds"),
        "created_at": record.created_at,
        "started_at": started,
        "finished_at": finished,
        "duration_seconds": None if started is None or finished is None else finished - started,
    }


def rows(store: SqlStore, game_id: str | None = None, *, events: bool = False) -> Iterator[dict[str, object]]:
    """One row per finished match, newest first (with its event log when `events`)."""
    for record in store.iter_matches(MatchQuery(status="finished", game_id=game_id, limit=500)):
        row = match_row(record)
        if events:
            row["events"] = [e.to_dict() for e in store.events(record.match_id)]
        yield row


def write(path: Path, found: Iterable[Mapping[str, object]]) -> int:
    """Write rows to `path` (.jsonl or .parquet); returns how many."""
    if path.suffix == ".parquet":
        return _write_parquet(path, list(found))
    if path.suffix != ".jsonl":
        raise ValueError(f"--out must end in {' or '.join(FORMATS)}, got {path.name!r}")
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for row in found:
            out.write(json.dumps(row, separators=(",", ":")) + "\n")
            count += 1
    return count


def _write_parquet(path: Path, found: Sequence[Mapping[str, object]]) -> int:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ValueError(
            "Parquet export needs pyarrow: pip install 'negotiation-platform[export]' (or export to .jsonl)"
        ) from None
    columns: dict[str, pa.DataType] = {
        "match_id": pa.string(),
        "game_id": pa.string(),
        "config": pa.string(),
        "seed": pa.string(),  # any integer fits: a reproducible seed may exceed 64 bits
        "players": pa.list_(pa.string()),
        "agents": pa.list_(pa.string()),
        "agreement": pa.bool_(),
        "terms": pa.string(),
        "payoffs": pa.map_(pa.string(), pa.float64()),
        "winner": pa.string(),
        "rounds": pa.int64(),
        "created_at": pa.float64(),
        "started_at": pa.float64(),
        "finished_at": pa.float64(),
        "duration_seconds": pa.float64(),
    }
    if found and "events" in found[0]:
        columns["events"] = pa.string()
    table = pa.table(
        {name: pa.array([_cell(name, row[name]) for row in found], type=kind) for name, kind in columns.items()}
    )
    pq.write_table(table, path)
    return len(found)


def _cell(column: str, value: object) -> object:
    """A row's value as its Parquet column holds it."""
    if column in ("config", "terms", "events"):
        return json.dumps(value)
    if column == "seed":
        return str(value)
    if column == "payoffs":
        return list(value.items()) if isinstance(value, Mapping) else None
    return value
