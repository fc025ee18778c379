"""Real servers on free 127.0.0.1 ports for the A2A tests: an app served by uvicorn in this process
(`served`), `serve a2a` as a subprocess (`a2a_server`), a client in a chosen context (`in_context`),
and a message sent by hand as a third-party client would (`json_rpc`, `exact`; `send`, `answer` with
parts written as JSON text, on either binding)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx
import uvicorn
from a2a.client import ClientConfig

from negotiation_a2a import wire
from negotiation_a2a.client import A2aArena
from tests.cli_servers import cli_server, free_port

__all__ = ["a2a_server", "answer", "exact", "free_port", "in_context", "json_part", "json_rpc", "send", "served"]


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
    with cli_server("serve", "a2a", *flags, env=env) as (port, proc):
        yield f"http://127.0.0.1:{port}", proc


@asynccontextmanager
async def in_context(base: str, context_id: str) -> AsyncIterator[A2aArena]:
    """An A2A client of the arena at `base` that sends every call in context `context_id`."""
    async with httpx.AsyncClient() as http:
        client = await wire.open_client(base, ClientConfig(httpx_client=http, streaming=False))
        yield A2aArena(client, context_id=context_id)


async def json_rpc(
    http: httpx.AsyncClient, url: str, data: dict[str, Any], context_id: str | None = None
) -> dict[str, Any]:
    """One SendMessage as a third-party client writes it by hand (no SDK): the reply message, as JSON."""
    message: dict[str, Any] = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"data": data}]}
    if context_id:
        message["contextId"] = context_id
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    answer = await http.post(url, json=body, headers={"A2A-Version": "1.0"})
    assert answer.status_code == 200, answer.text
    reply: dict[str, Any] = answer.json()["result"]["message"]
    return reply


def exact(reply: dict[str, Any]) -> Any:
    """The value of the reply's application/json text part: what a third-party client can rely on."""
    [text] = [p["text"] for p in reply["parts"] if p.get("mediaType") == "application/json"]
    return json.loads(text)


def json_part(text: str) -> str:
    """A message's parts, as JSON text: one application/json part holding `text` as it is."""
    return json.dumps([{"mediaType": "application/json", "text": text}])


async def send(http: httpx.AsyncClient, base: str, parts: str, binding: str) -> httpx.Response:
    """POST one message whose parts are JSON text (so they may hold what no client library writes)."""
    message = f'{{"role": "ROLE_USER", "messageId": "{uuid.uuid4().hex}", "parts": {parts}}}'
    if binding == "jsonrpc":
        url, body = (
            f"{base}/a2a/jsonrpc",
            f'{{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {{"message": {message}}}}}',
        )
    else:
        url, body = f"{base}/a2a/rest/message:send", f'{{"message": {message}}}'
    return await http.post(url, content=body, headers={"content-type": "application/json", "A2A-Version": "1.0"})


async def answer(http: httpx.AsyncClient, base: str, parts: str, binding: str) -> dict[str, Any]:
    """The arena's answer to one message: the exact JSON of its reply."""
    reply = (await send(http, base, parts, binding)).json()
    message = reply["result"]["message"] if binding == "jsonrpc" else reply["message"]
    value: dict[str, Any] = json.loads(message["parts"][1]["text"])
    return value
