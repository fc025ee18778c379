"""Human-AI negotiation studies: one match per participant, their seat links, and what each person saw.

`create_study` starts one match per participant in a store: the participant's seat is the first,
the opponents take the others as house seats, stored with their agent and seed, so the server that
serves the study (`serve mcp --store FILE`, or `serve a2a`) resumes every match and plays the
opponents when the participant arrives. Nothing of a study lives in memory: the links (a CSV with
the participant id, the match id and the seat's play link, whose fragment holds the seat token)
say which match is whose, and the store holds the matches.

`export_study` reads back, for each participant, the transcript their seat saw (its own view of
the log: the public events and its private ones, never another seat's) and the outcome, without
any token.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import parse_qs, urlsplit

from negotiation_platform.agents.seating import SeatedBy, check_agent
from negotiation_platform.arena import Arena
from negotiation_platform.arena.seat_links import PARTICIPANT_NAME, play_link
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.store.csv_cells import restored, write_rows

LINK_COLUMNS = ("participant", "match_id", "play_url")
SEAT_NAME = PARTICIPANT_NAME
"""The name of every participant's seat (other seats and spectators see it): never the participant id,
which a researcher may have made from something personal."""


@dataclass(frozen=True)
class StudyLink:
    participant: str
    match_id: str
    play_url: str
    """`{base_url}/play/{match_id}#token={token}`: whoever holds it plays the seat."""


def participant_ids(count: int) -> list[str]:
    """P001, P002, ... (wider when `count` needs more digits)."""
    if count < 1:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "A study needs at least one participant.")
    width = max(3, len(str(count)))
    return [f"P{number:0{width}d}" for number in range(1, count + 1)]


def checked_participants(ids: Iterable[str]) -> list[str]:
    """Participant ids as given (stripped, blank lines left out), refused when one repeats or none is left."""
    kept = [text.strip() for text in ids if text.strip()]
    repeated = sorted({text for text in kept if kept.count(text) > 1})
    if repeated:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"Participant ids repeat: {repeated}.")
    if not kept:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "A study needs at least one participant.")
    return kept


def check_base_url(base_url: str) -> str:
    """The URL the study will be served at, without a trailing slash; an http(s) URL with a host."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"--base-url must be an http(s) URL such as http://127.0.0.1:8000, got {base_url!r}.",
        )
    return base_url.rstrip("/")


async def create_study(
    arena: Arena,
    game_id: str,
    opponents: list[str],
    participants: list[str],
    base_url: str,
    *,
    seed: int | None = None,
    config: dict[str, Any] | None = None,
) -> list[StudyLink]:
    """Start one match per participant in `arena`'s store, every seat but the first played by
    `opponents` (one per seat, the last repeats); returns the links, in the order of `participants`.
    Everything is checked before the first match is made. Each match's seed is drawn from `seed`
    (a study made twice with one seed deals the same hands), else at random."""
    base_url = check_base_url(base_url)
    seats = (await arena.get_game_rules(game_id, config))["spec"]["roles"]["min_players"]
    if not opponents:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "Name at least one opponent (e.g. concession).")
    if len(opponents) > seats - 1:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"{game_id} has {seats} seats: one for the participant, at most {seats - 1} opponent(s).",
        )
    for spec in opponents:  # the operator's: any kind, played by the server that serves the study
        check_agent(arena.registry, spec, by=SeatedBy.OPERATOR)
    seated = (opponents + [opponents[-1]] * seats)[: seats - 1]
    house = HouseSeats(arena, play=False)
    draws = random.Random(seed) if seed is not None else None
    links = []
    for participant in participants:
        match_seed = draws.getrandbits(31) if draws is not None else None
        started = await house.start_game(
            game_id, config, seed=match_seed, name=SEAT_NAME, opponents=seated, by=SeatedBy.OPERATOR
        )
        match_id = started["match_id"]
        links.append(StudyLink(participant, match_id, play_link(base_url, match_id, started["token"])))
    return links


def write_links(links: list[StudyLink], out: TextIO) -> None:
    """The links as CSV, no cell a spreadsheet would run as a formula (`csv_cells`)."""
    write_rows(out, [LINK_COLUMNS, *([link.participant, link.match_id, link.play_url] for link in links)])


def read_links(path: Path) -> list[StudyLink]:
    """The links `study create` wrote; refused when the file is not such a CSV."""
    try:
        with path.open(newline="", encoding="utf-8") as file:
            reader = csv.DictReader(file)
            if tuple(reader.fieldnames or ()) != LINK_COLUMNS:
                raise NegotiationError(
                    ErrorCode.INVALID_ARGUMENT,
                    f"{path} is not a study's links: its columns must be {','.join(LINK_COLUMNS)}.",
                )
            return [StudyLink(*(restored(row[column]) for column in LINK_COLUMNS)) for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as failure:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"Cannot read {path}: {failure}") from None


def seat_token(play_url: str) -> str:
    """The seat token in a play link's fragment (`#token=...`)."""
    tokens = parse_qs(urlsplit(play_url).fragment).get("token")
    if not tokens:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "A play link has no '#token=' fragment.")
    return tokens[0]


async def participant_record(arena: Arena, link: StudyLink) -> dict[str, Any]:
    """What one participant saw and how their match ended: their seat's transcript (every page of
    it), their own view of the game, and the match's outcome; no token."""
    token = seat_token(link.play_url)
    transcript: list[dict[str, Any]] = []
    cursor = 0
    while True:
        state = await arena.get_turn_state(link.match_id, token, since=cursor, include_prompt=False)
        transcript += state["events"]
        cursor = state["cursor"]
        if not state["more"]:
            break
    result = await arena.get_result(link.match_id)
    return {
        "participant": link.participant,
        "match_id": link.match_id,
        "game_id": state["game_id"],
        "agent_id": state["agent_id"],
        "status": result["status"],
        "players": state["players"],
        "payoffs": result.get("payoffs"),
        "agreement": result.get("agreement"),
        "terms": result.get("terms"),
        "rounds": result.get("rounds"),
        "seed": result.get("seed"),
        "view": state.get("view"),
        "transcript": transcript,
    }


async def export_study(arena: Arena, links: list[StudyLink]) -> list[dict[str, Any]]:
    """One record per link (see `participant_record`), in the links' order."""
    return [await participant_record(arena, link) for link in links]
