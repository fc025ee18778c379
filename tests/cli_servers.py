"""Servers of the command line (`serve mcp`, `serve a2a`, `agent serve`) as real subprocesses on free
127.0.0.1 ports, for every test that talks to one: started, awaited until they listen, stopped."""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

START_SECONDS = 120.0
"""How long a server may take to listen: generous, as it is awaited only until it listens (on a loaded
machine a start took over 30 s, and several tests failed with "the server did not start")."""
_LOGS: dict[int, IO[bytes]] = {}
"""Each running server's stderr file, by process id (see `server_log`)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_cli_server(port: int, *arguments: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`negotiation-platform ARGUMENTS --port PORT` as a subprocess, once it accepts connections."""
    command = [sys.executable, "-m", "negotiation_platform.cli.main", *arguments, "--port", str(port)]
    return start_server(command, port, env=env)


def start_server(command: list[str], port: int, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`command` as a subprocess, once it accepts connections on 127.0.0.1:`port`. Its stderr goes to
    a file (a pipe nobody reads would stall a chatty server; see `server_log`); a server that
    dies or does not listen in time fails with what it said."""
    errors = tempfile.TemporaryFile()  # noqa: SIM115 (open as long as the server runs; read if it fails)
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, env=env)
    _LOGS[proc.pid] = errors
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(server_log(proc) or "the server did not start") from None
            time.sleep(0.1)


@contextmanager
def cli_server(*arguments: str, env: dict[str, str] | None = None) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """A started `negotiation-platform ARGUMENTS` server: its port and process while the block runs."""
    port = free_port()
    proc = start_cli_server(port, *arguments, env=env)
    try:
        yield port, proc
    finally:
        server_log(proc)


def server_log(proc: subprocess.Popen[bytes]) -> str:
    """Stop the server (if it still runs) and return all it wrote on stderr."""
    if proc.poll() is None:
        proc.terminate()
    proc.wait(timeout=10)
    errors = _LOGS.pop(proc.pid, None)
    if errors is None:
        return ""
    with errors:
        errors.seek(0)
        return errors.read().decode()
