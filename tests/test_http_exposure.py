"""The listening socket every HTTP server here is given (`exposure.bind`)."""

from __future__ import annotations

import asyncio
import socket

import pytest

from negotiation_platform.network.exposure import bind

pytestmark = pytest.mark.anyio


async def test_connections_accepted_on_a_bound_socket_send_at_once() -> None:
    """asyncio turns Nagle off (TCP_NODELAY) only on connections whose socket says TCP; without it the
    second write of each answer waits for the client's delayed ACK (about 40 ms)."""
    nodelay: list[int] = []

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nodelay.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    sock = bind("127.0.0.1", 0)
    server = await asyncio.start_server(accepted, sock=sock)
    async with server:
        reader, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        await reader.read()
        writer.close()
    assert nodelay and nodelay[0] != 0
