"""A real `serve mcp --transport http` subprocess on a free 127.0.0.1 port, for the MCP tests."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

from tests.cli_servers import cli_server, free_port, start_cli_server

__all__ = ["free_port", "mcp_server", "start_mcp_server"]
SERVE_MCP = ("serve", "mcp", "--transport", "http")


def start_mcp_server(port: int, *flags: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`serve mcp --transport http` on `port` as a subprocess with `flags`, once it accepts connections."""
    return start_cli_server(port, *SERVE_MCP, *flags, env=env)


@contextmanager
def mcp_server(*flags: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`serve mcp --transport http` as a subprocess with `flags`; its URL while the block runs."""
    with cli_server(*SERVE_MCP, *flags, env=env) as (port, _):
        yield f"http://127.0.0.1:{port}/mcp"
