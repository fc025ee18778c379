"""A scripted model behind an OpenAI-compatible chat endpoint: seats play without a language model.

It answers each chat completion with one of the example moves the compact grammar's prompt closes with
(`... e.g. `propose 50`; `accept`.`), drawn from a generator seeded by the endpoint's seed and the whole
conversation, so the same match gets the same replies in any order of calls. A user message that is verifiers'
openenv taskset's JSON (`{"observation": {"prompt": ...}, "action_schema": ...}`, from `serve openenv`) is
read for the observation's prompt. verifiers reaches it as it
reaches any provider (`EvalClientConfig(base_url=...)`), which makes whole episodes runnable in tests and
smoke checks with nothing to download.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web

_EXAMPLES = re.compile(r"e\.g\. (.*)\.\s*$", re.DOTALL)
_MOVE = re.compile(r"`([^`]+)`")
_SEED = web.AppKey("seed", int)


def scripted_reply(messages: list[dict[str, object]], seed: int) -> str:
    """The move for a conversation: one of the last user message's examples, or `pass` where it shows none."""
    user = _prompt(next((str(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), ""))
    found = _EXAMPLES.search(user)
    moves = _MOVE.findall(found.group(1)) if found else []
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
    return random.Random(f"{seed}:{digest}").choice(moves) if moves else "pass"


def _prompt(user: str) -> str:
    """The prompt a user message carries: an OpenEnv observation's, or the message itself."""
    try:
        payload = json.loads(user)
    except json.JSONDecodeError:
        return user
    observation = payload.get("observation") if isinstance(payload, dict) else None
    return str(observation.get("prompt", "")) if isinstance(observation, dict) else user


async def _complete(request: web.Request) -> web.Response:
    body = await request.json()
    reply = scripted_reply(body.get("messages", []), request.app[_SEED])
    return web.json_response(
        {
            "id": "scripted",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model") or "scripted",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }
    )


@asynccontextmanager
async def scripted_endpoint(seed: int = 0, host: str = "127.0.0.1") -> AsyncIterator[str]:
    """Serve the scripted model on a free port of `host` while the context is open; yields its base URL."""
    app = web.Application()
    app[_SEED] = seed
    app.router.add_post("/v1/chat/completions", _complete)
    runner = web.AppRunner(app)
    await runner.setup()
    listener = socket.socket()
    listener.bind((host, 0))
    port = listener.getsockname()[1]
    await web.SockSite(runner, listener).start()
    try:
        yield f"http://{host}:{port}/v1"
    finally:
        await runner.cleanup()
