"""Real servers on free 127.0.0.1 ports for the A2A tests: an app served by uvicorn in this process
(`served`), `serve a2a` as a subprocess (`a2a_server`), and a client in a chosen context (`in_context`)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx
import uvicorn
from a2a.client import ClientConfig

from negotiation_a2a import wire
from negotiation_a2a.client import A2aArena


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@asynccontextmanager
async def served(build: Any, port: int | None = None) -> AsyncIterator[str]:
    """An app served by uvicorn on a real 127.0.0.1 socket (on `port`, else a free one) for the block."""
    port = port or free_port()
    base = f"http://127.0.0.1:{port}"
    server = uvicorn.Server(uvicorn.Config(build(base), host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.02)
    try:
        yield base
    finally:
        server.should_exit = True
        await task


@contextmanager
def a2a_server(*flags: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`serve a2a` as a subprocess; its base URL and process while the block runs."""
    port = free_port()
    command = [sys.executable, "-m", "negotiation_platform.cli.main", "serve", "a2a", "--port", str(port), *flags]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "server died") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@asynccontextmanager
async def in_context(base: str, context_id: str) -> AsyncIterator[A2aArena]:
    """An A2A client of the arena at `base` that sends every call in context `context_id`."""
    async with httpx.AsyncClient() as http:
        client = await wire.open_client(base, ClientConfig(httpx_client=http, streaming=False))
        yield A2aArena(client, context_id=context_id)
