"""Log lines an operator can read and a log shipper can parse: `--log-level` and `--log-format`.

The request logger prints one line per request at INFO: operation, match, seat (an agent id), the
outcome code and the duration. `--log-format json` makes every line of the process (the libraries'
and uvicorn's too, and what a server announces: `exposure.announce_line`) one JSON object. Nothing here ever
receives a token: callers pass only the fields of `RequestRecord`; a password in a URL (a store's)
is masked in every line (`negotiation_platform.store.masked`).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

from negotiation_platform.network.exposure import ANNOUNCE_LOGGER
from negotiation_platform.store import masked

REQUEST_LOGGER = logging.getLogger("negotiation_platform.requests")
LOG_LEVELS = ["debug", "info", "warning", "error"]
LOG_FORMATS = ["text", "json"]
TEXT_FORMAT = "%(levelname)s %(name)s: %(message)s"
CHATTY_LOGGERS = ("mcp.server.lowlevel.server", "mcp.server.streamable_http_manager", "httpx", "httpcore")
"""Libraries that print their own line per request at INFO: left at WARNING unless `--log-level debug`,
so that INFO shows one line per request, ours."""
MAX_FIELD_CHARS = 128
_PLAIN = re.compile(r"[\w.:@/+-]{1,128}")


@dataclass(frozen=True)
class RequestRecord:
    """One answered request: what an operator may see of it (no credentials, by construction)."""

    operation: str
    match: str | None
    seat: str | None
    code: str
    duration_ms: float


def add_log_arguments(parser: argparse.ArgumentParser, *, inherited: bool = False) -> None:
    """`--log-level` and `--log-format`: on the command line itself, and `inherited` on each `serve`
    command too (where leaving them out keeps what was given before the command)."""
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        help="what is logged on stderr: the libraries' logs, and at info one line per request of a server",
        default=argparse.SUPPRESS if inherited else "warning",
    )
    parser.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        help="text lines, or one JSON object per line (for a log shipper)",
        default=argparse.SUPPRESS if inherited else "text",
    )


def configure_logging(level: str, log_format: str) -> None:
    """Set up the root logger for the whole process (every command calls this once)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLines() if log_format == "json" else MaskedText(TEXT_FORMAT))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
    said = logging.StreamHandler()
    said.setFormatter(JsonLines() if log_format == "json" else MaskedText("%(message)s"))
    ANNOUNCE_LOGGER.handlers = [said]
    ANNOUNCE_LOGGER.propagate = False
    ANNOUNCE_LOGGER.setLevel(logging.INFO)
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        for name in CHATTY_LOGGERS:
            logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLogger().level))


def logging_requests() -> bool:
    return REQUEST_LOGGER.isEnabledFor(logging.INFO)


def log_request(record: RequestRecord) -> None:
    fields = asdict(record)
    text = " ".join(f"{key}={_text_value(value)}" for key, value in fields.items())
    REQUEST_LOGGER.info(text, extra={"request": fields})


def _text_value(value: object) -> str:
    """A field as it reads in a text line: plain words as they are, anything else quoted (no line breaks)."""
    if value is None:
        return "-"
    text = f"{value:.1f}" if isinstance(value, float) else str(value)
    return text if _PLAIN.fullmatch(text) else json.dumps(text[:MAX_FIELD_CHARS])


class MaskedText(logging.Formatter):
    """Text lines, passwords masked."""

    def format(self, record: logging.LogRecord) -> str:
        return masked(super().format(record))


class JsonLines(logging.Formatter):
    """Each record as one JSON object: time, level, logger, message, and a request's fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": masked(record.getMessage()),
        }
        request = getattr(record, "request", None)
        if isinstance(request, dict):
            line.update(request)
        if record.exc_info:
            line["exception"] = masked(self.formatException(record.exc_info))
        return json.dumps(line, ensure_ascii=False, default=str)
