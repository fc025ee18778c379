"""The process's counters, and their Prometheus text exposition (format 0.0.4) for `/metrics`.

Written here rather than with `prometheus_client`: the dispatcher in the core counts every
operation, so the counters must import with the core's four dependencies, and four metric families
need little code. The arena's own figures (matches held, store failures) are read
from it at each scrape. Every label is bounded: operations come from the fixed catalogue (anything else
is counted as `other`), codes from `ErrorCode` plus `ok`, match states from a fixed list.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from negotiation_platform.errors import ErrorCode

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Upper bounds of the latency histogram, in seconds (a waiting call may take up to a minute)."""
OK = "ok"
OTHER = "other"
MAX_NAME_CHARS = 64
CODES = frozenset({OK, *(code.value for code in ErrorCode)})
MATCH_STATES = {"waiting_for_players": "waiting", "running": "live", "finished": "finished"}
"""A held match's status → the `state` label of `negotiation_matches`."""


@dataclass
class Histogram:
    counts: list[int] = field(default_factory=lambda: [0] * len(BUCKETS))
    total: int = 0
    seconds: float = 0.0

    def observe(self, seconds: float) -> None:
        for i, bound in enumerate(BUCKETS):
            if seconds <= bound:
                self.counts[i] += 1
        self.total += 1
        self.seconds += seconds


class Metrics:
    """Requests by operation and outcome code, and their latency, since the process began (the lock: a
    server answers on one event loop, but nothing stops a program from calling from threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: Counter[tuple[str, str]] = Counter()
        self.latency: dict[str, Histogram] = {}

    def observe(self, operation: str, code: str, seconds: float) -> None:
        code = code if code in CODES else OTHER
        with self._lock:
            self.requests[operation, code] += 1
            self.latency.setdefault(operation, Histogram()).observe(seconds)

    def exposition(self, match_statuses: Iterable[str] = (), store_errors: int = 0) -> str:
        """The text a Prometheus server scrapes, with what the arena counts itself: the status of each
        match this process holds, and the store calls that failed."""
        held = Counter(MATCH_STATES.get(status, OTHER) for status in match_statuses)
        with self._lock:
            requests = sorted(self.requests.items())
            latency = sorted((op, Histogram(list(h.counts), h.total, h.seconds)) for op, h in self.latency.items())
        lines = _family("negotiation_requests_total", "counter", "Requests answered, by operation and outcome code.")
        lines += [f"negotiation_requests_total{_labels(operation=op, code=code)} {n}" for (op, code), n in requests]
        lines += _family("negotiation_request_seconds", "histogram", "How long requests took, by operation.")
        for op, histogram in latency:
            for bound, n in zip(BUCKETS, histogram.counts, strict=True):
                lines.append(f"negotiation_request_seconds_bucket{_labels(operation=op, le=repr(bound))} {n}")
            lines.append(f"negotiation_request_seconds_bucket{_labels(operation=op, le='+Inf')} {histogram.total}")
            lines.append(f"negotiation_request_seconds_sum{_labels(operation=op)} {histogram.seconds!r}")
            lines.append(f"negotiation_request_seconds_count{_labels(operation=op)} {histogram.total}")
        lines += _family("negotiation_store_errors_total", "counter", "Store calls that failed (unreachable, refused).")
        lines.append(f"negotiation_store_errors_total {store_errors}")
        lines += _family("negotiation_matches", "gauge", "Matches this process holds, by state.")
        lines += [f"negotiation_matches{_labels(state=s)} {held[s]}" for s in MATCH_STATES.values()]
        return "\n".join(lines) + "\n"


def _family(name: str, kind: str, about: str) -> list[str]:
    return [f"# HELP {name} {about}", f"# TYPE {name} {kind}"]


def _labels(**labels: str) -> str:
    """Label values are from fixed sets; escaped anyway, as the format requires."""
    escaped = (v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") for v in labels.values())
    return "{" + ",".join(f'{k}="{v}"' for k, v in zip(labels, escaped, strict=True)) + "}"


METRICS = Metrics()
"""This process's counters (a server is one process; a Prometheus server adds up the processes)."""


def operation_label(name: object, code: str) -> str:
    """The `operation` label of a request: its name when the dispatcher knew it (any code but
    `unknown_operation`), else `other`."""
    if not isinstance(name, str) or code == ErrorCode.UNKNOWN_OPERATION.value or len(name) > MAX_NAME_CHARS:
        return OTHER
    return name
