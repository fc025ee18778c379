"""What one client's connections can take from the others, over real `serve view` subprocesses on
127.0.0.1 (any 127.0.0.x is this host): connections that never finish their headers are closed in
time, one address holds a bounded share, and the total stays under the process's descriptor limit.
Request bodies and long-lived answers: `transports/mcp/tests/test_mcp_connections.py`."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_servers import cli_server, free_port, server_log, start_server
from tests.slow_clients import PARTIAL_REQUEST, connect, refusal, status_of, until_closed

GENEROUS = 10.0
"""Seconds a test waits for what should happen in one: the bound is the server's, this only stops a hang."""


LOW_DESCRIPTOR_LIMIT = (
    "import resource, runpy; resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128)); "
    "runpy.run_module('negotiation_platform.cli.main', run_name='__main__')"
)
"""`negotiation-platform ARGUMENTS` (after `-c` and this) in a process that may open 128 descriptors."""
HEADER_TIMEOUT = 3.0
"""Long enough for a test's few steps on a loaded machine while a held connection must stay held."""


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A `serve view` with a short header timeout and a cap of 3 connections per address."""
    store = tmp_path_factory.mktemp("connections") / "matches.db"
    flags = ("--header-timeout", str(HEADER_TIMEOUT), "--idle-timeout", "30", "--max-connections-per-address", "3")
    with cli_server("serve", "view", "--store", str(store), *flags) as (served, _):
        yield served


def test_unfinished_headers_are_closed_in_time_while_others_are_served(port: int) -> None:
    hostile = [connect(port, f"127.0.0.{10 + n}") for n in range(20)]
    silent = connect(port, "127.0.0.30")
    for sock in hostile:
        sock.sendall(PARTIAL_REQUEST)
    assert status_of(port, "/healthz") == 200  # a normal client is served meanwhile
    for sock in hostile:
        with sock:
            answer, _ = until_closed(sock, GENEROUS)
        status, error = refusal(answer)
        assert status == 408 and error["details"]["limit"] == "header_timeout"
    with silent:  # a connection that sends nothing is closed without an answer
        assert until_closed(silent, GENEROUS)[0] == b""


def test_a_kept_alive_connection_that_trickles_its_next_request_is_closed(port: int) -> None:
    with connect(port, "127.0.0.31") as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        start = time.monotonic()
        with pytest.raises(OSError):  # one byte at a time never finishes the next request's headers
            for byte in PARTIAL_REQUEST * 100:
                sock.sendall(bytes([byte]))
                time.sleep(0.1)
                if time.monotonic() - start > GENEROUS:
                    pytest.fail("the trickling connection was still open")
        assert time.monotonic() - start >= HEADER_TIMEOUT - 0.5


def test_one_address_past_its_cap_is_refused_at_once_and_others_are_served(port: int) -> None:
    held = [connect(port, "127.0.0.40") for _ in range(3)]
    assert status_of(port, "/healthz", source="127.0.0.41") == 200  # another address is not affected
    with connect(port, "127.0.0.40") as over:
        answer, seconds = until_closed(over, GENEROUS)
    status, error = refusal(answer)
    assert status == 429 and error["details"]["max_connections_per_address"] == 3
    assert seconds < HEADER_TIMEOUT  # at once, not when the held ones time out
    for sock in held:
        sock.close()
    deadline = time.monotonic() + GENEROUS  # the server sees the closes a moment later
    while status_or_refused(port, "127.0.0.40") != 200:
        assert time.monotonic() < deadline, "the address stayed refused after its connections closed"
        time.sleep(0.05)


def status_or_refused(port: int, source: str) -> int:
    try:
        return status_of(port, "/healthz", source)
    except OSError:
        return 0


def test_under_a_low_descriptor_limit_hostile_connections_lock_nobody_out(tmp_path: Path) -> None:
    """The issue's 1,100 connections under 1,024 descriptors, scaled down: 200 under 128. With the default
    bounds (3/4 of the descriptors: 96, and 1/8 of that per address: 12) each is held or refused at once,
    the server never runs out of descriptors, and once the held ones' headers time out a new client is served."""
    port = free_port()
    limited = [sys.executable, "-c", LOW_DESCRIPTOR_LIMIT]
    flags = ["serve", "view", "--store", str(tmp_path / "matches.db"), "--header-timeout", "2", "--port", str(port)]
    proc = start_server([*limited, *flags], port)
    try:
        one_address = [connect(port, "127.0.0.3") for _ in range(100)]
        hostile = one_address + [connect(port, f"127.0.0.{4 + n % 10}") for n in range(100)]
        for sock in hostile:
            sock.sendall(PARTIAL_REQUEST)
        statuses = []
        for sock in hostile:
            with sock:
                answer, _ = until_closed(sock, GENEROUS)
            statuses.append(refusal(answer)[0])
        assert statuses[:100].count(429) == 100 - 12 and statuses[100:].count(503) == 100 - (96 - 12)
        assert statuses.count(408) == 96
        assert status_of(port, "/healthz", source="127.0.0.2") == 200
    finally:
        log = server_log(proc)
    assert "Too many open files" not in log and "out of system resource" not in log
