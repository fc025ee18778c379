"""What `get_result` and `list_matches` answer, built from match records (stored or in memory), or for a
match held here, from the match itself."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from negotiation_platform.arena.live import LiveMatch
from negotiation_platform.engine.match import Match
from negotiation_platform.store.records import MatchQuery, MatchRecord, cursor_of, parse_cursor


def result_fields(match: Match) -> dict[str, Any]:
    """What a finished match's record and `get_result` tell of its outcome."""
    result = match.result
    assert result is not None
    return {
        "agreement": result.game_data["agreement"],
        "terms": result.game_data["terms"],
        "payoffs": result.final_scores,
        "winner": result.winner,
        "rounds": result.total_rounds,
        "result": result.to_dict(),
    }


def result_of(record: MatchRecord) -> dict[str, Any]:
    """`get_result`'s answer: the status, and once finished the seed used and the outcome."""
    if record.status != "finished" or record.result is None:
        return {"match_id": record.match_id, "game_id": record.game_id, "status": record.status, "result": None}
    outcome = record.result
    nested = outcome.get("result")
    if isinstance(nested, dict) and nested.get("game_id") == record.match_id:
        # Stored before results named their game (the engine gave games the match id): read as now.
        outcome = {**outcome, "result": {**nested, "game_id": record.game_id}}
    return {
        "match_id": record.match_id,
        "game_id": record.game_id,
        "status": record.status,
        "seed": record.seed,
        "config": record.config,
        "players": {s.agent_id: s.name for s in record.seats},
        **outcome,
    }


def live_result(live: LiveMatch) -> dict[str, Any]:
    """`result_of` a match held here, as of now: what its record would answer, without making the record."""
    match = live.match
    if match is None or match.result is None:
        return {"match_id": live.match_id, "game_id": live.entry.game_id, "status": live.status, "result": None}
    return {
        "match_id": live.match_id,
        "game_id": live.entry.game_id,
        "status": "finished",
        "seed": live.seed,
        "config": live.config,
        "players": {s.agent_id: s.name for s in live.seats},
        **result_fields(match),
    }


def listed(record: MatchRecord) -> dict[str, Any]:
    return {
        "match_id": record.match_id,
        "game_id": record.game_id,
        "status": record.status,
        "seats": {"filled": len(record.seats), "total": record.seats_total},
        "players": record.players,
        "round": record.round,
        "created_at": datetime.fromtimestamp(record.created_at, UTC).isoformat(),
        "payoffs": record.result["payoffs"] if record.result is not None else None,
    }


def page_of(records: list[MatchRecord], query: MatchQuery) -> tuple[list[MatchRecord], str | None]:
    """The store's listing, for matches held in memory: filter, newest first, one page after the cursor."""
    after = parse_cursor(query.cursor) if query.cursor is not None else None
    kept = sorted(
        (
            r
            for r in records
            if (query.status is None or r.status == query.status)
            and (query.game_id is None or r.game_id == query.game_id)
            and (query.since is None or r.created_at >= query.since)
            and (after is None or (r.created_at, r.match_id) < after)
        ),
        key=lambda r: (r.created_at, r.match_id),
        reverse=True,
    )
    page = kept[: query.limit]
    more = len(kept) > query.limit
    return page, (cursor_of(page[-1]) if more else None)
