"""A real `serve mcp --transport http` subprocess on a free 127.0.0.1 port, for the MCP tests."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_mcp_server(port: int, *flags: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`serve mcp --transport http` on `port` as a subprocess with `flags`, once it accepts connections."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "negotiation_platform.cli.main",
            "serve",
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
            *flags,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "server died") from None
            time.sleep(0.1)


@contextmanager
def mcp_server(*flags: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`serve mcp --transport http` as a subprocess with `flags`; its URL while the block runs."""
    port = free_port()
    proc = start_mcp_server(port, *flags, env=env)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
