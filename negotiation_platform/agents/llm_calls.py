"""One chat-completion call made robust: a per-endpoint concurrency limit, retries with exponential
backoff and jitter on 429, 5xx and timeouts (a `Retry-After` header is obeyed), a deadline for the
whole move, the response cache, and the call's usage and latency.

What cannot succeed by waiting (the endpoint unreachable, the key or the model refused) raises
`EndpointError`, naming the URL and the model, and fails the match; retryable failures (a reply
that is no chat completion among them) that outlast the retries or the move's deadline raise
`CallsFailed`, and the agent forfeits that move. Each Caller counts its failed tries and calls in
its `EndpointTally`, which the agent adds its moves to (see `llm_failures`).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import random
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from negotiation_platform.agents.llm_cache import ResponseCache, cache_key

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletionMessage

DEFAULT_URL = "https://api.openai.com/v1"
RETRY_STATUSES = frozenset({408, 409, 429})
"""Statuses worth asking again besides 5xx: a request timeout, a conflict, a rate limit."""
JSON_MODE_REFUSED: Final = "json_mode_refused"


class EndpointError(RuntimeError):
    """The endpoint cannot serve this model at all: unreachable, unauthorised, no such model."""


class CallsFailed(Exception):
    """Every try failed in a way that waiting might have cured (rate limits, 5xx, timeouts)."""


class JsonModeRefused(Exception):
    """The endpoint answered 400 to `response_format`: ask without it."""


@dataclass(frozen=True)
class CallPolicy:
    """How hard one call tries: `retries` after the first try, waits of `backoff`·2ⁿ (at most
    `max_backoff`) with full jitter, each try at most `timeout` seconds."""

    retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 30.0
    timeout: float = 60.0


@dataclass
class EndpointTally:
    """One agent's running count of what its endpoint cost it in a match: the moves it was asked for,
    those it lost to a failed call, the calls given up on and the tries that failed (retried or not)."""

    moves: int = 0
    moves_lost: int = 0
    failed_calls: int = 0
    failed_tries: int = 0
    last_error: str = ""
    """Why the latest failed call failed."""

    def lost(self, failed: CallsFailed) -> str:
        """Count a move lost to `failed`; the reason the agent forfeits it with."""
        self.moves_lost += 1
        return f"endpoint failed: {failed}"


@dataclass
class Reply:
    text: str
    usage: dict[str, int]
    seconds: float
    tries: int
    cache_hit: bool
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """The functions the model called (OpenAI tool calling), as plain data: id, type, function."""


_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = weakref.WeakKeyDictionary()
"""One semaphore per endpoint URL per event loop: every agent of a tournament shares its endpoint's."""


def endpoint_gate(url: str, limit: int | None) -> asyncio.Semaphore | None:
    """The shared limit on concurrent requests to `url` (the first agent to name one sets it)."""
    if limit is None:
        return None
    gates = _GATES.setdefault(asyncio.get_running_loop(), {})
    return gates.setdefault(url, asyncio.Semaphore(limit))


class Caller:
    """Makes one agent's calls to one endpoint for one model."""

    def __init__(
        self,
        client: AsyncOpenAI,
        model: str,
        *,
        endpoint: str,
        default_url: bool = False,
        policy: CallPolicy,
        max_concurrency: int | None = None,
        cache: ResponseCache | None = None,
    ) -> None:
        self.client, self.model, self.endpoint, self.policy = client, model, endpoint, policy
        self.default_url = default_url
        """The endpoint is OpenAI's, because neither base_url nor OPENAI_BASE_URL named one: errors say so."""
        self.max_concurrency = max_concurrency
        self.cache = cache
        self.tally = EndpointTally()
        self._jitter = random.Random()

    async def complete(self, request: dict[str, Any], deadline: float | None, *, draw: int | None = None) -> Reply:
        """The reply to `request` (messages and options, no model), from the cache or the endpoint by
        `deadline` (a `time.monotonic()` instant; None: no bound but the retries). `draw` tells sampled
        replies apart in the cache (a seat's seed), so each seat of each match keeps its own."""
        options = {k: v for k, v in request.items() if k != "messages"}
        if draw is not None:
            options["draw"] = draw
        key = cache_key(self.endpoint, self.model, request["messages"], options)
        cached = self.cache.get(key) if self.cache is not None else None
        if cached is not None:
            if cached.get(JSON_MODE_REFUSED):
                raise JsonModeRefused
            return Reply(cached["text"], cached["usage"], 0.0, 0, True, cached.get("tool_calls", []))
        try:
            reply = await self._ask(request, deadline)
        except JsonModeRefused:
            if self.cache is not None:
                self.cache.put(key, {JSON_MODE_REFUSED: True})
            raise
        except CallsFailed as failed:
            self.tally.failed_calls += 1
            self.tally.last_error = str(failed)
            raise
        if self.cache is not None:
            self.cache.put(key, {"text": reply.text, "usage": reply.usage, "tool_calls": reply.tool_calls})
        return reply

    async def _ask(self, request: dict[str, object], deadline: float | None) -> Reply:
        import openai

        started = time.monotonic()
        why = ""
        for attempt in range(self.policy.retries + 1):
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise CallsFailed(f"no reply before the move's deadline{why and f' (last: {why})'}")
            timeout = self.policy.timeout if left is None else min(self.policy.timeout, left)
            wait: float | None = None
            try:
                response = await self._request(request, timeout, deadline)
            except openai.APITimeoutError:
                why = f"timeout after {timeout:.3g} s"
            except json.JSONDecodeError:
                why = "a reply that is not JSON"
            except openai.APIConnectionError as exc:
                raise self._unusable(exc) from None
            except openai.BadRequestError as exc:
                if "response_format" in request:
                    raise JsonModeRefused from None
                raise self._unusable(exc) from None
            except openai.APIStatusError as exc:
                if exc.status_code not in RETRY_STATUSES and exc.status_code < 500:
                    raise self._unusable(exc) from None
                why = f"HTTP {exc.status_code}"
                wait = retry_after(exc.response.headers)
            else:
                message = first_message(response)
                if message is None:
                    why = "a reply that is not a chat completion"
                else:
                    return Reply(
                        message.content or "",
                        usage_of(response),
                        round(time.monotonic() - started, 6),
                        attempt + 1,
                        False,
                        [call.model_dump(mode="json") for call in message.tool_calls or []],
                    )
            self.tally.failed_tries += 1
            if attempt == self.policy.retries:
                break
            pause = wait if wait is not None else self._backoff(attempt)
            if deadline is not None and time.monotonic() + pause >= deadline:
                raise CallsFailed(f"{why}; waiting {pause:.3g} s more would pass the move's deadline")
            await asyncio.sleep(pause)
        raise CallsFailed(f"{why} ({self.policy.retries + 1} tries)")

    async def _request(self, request: dict[str, Any], timeout: float, deadline: float | None) -> object:
        """One request, once the endpoint's gate lets it through (waiting for it counts against the move).
        `request` is open (messages, tools, sampling options) and spread into the SDK's typed overloads."""
        gate = endpoint_gate(self.endpoint, self.max_concurrency)
        if gate is None:
            return await self.client.chat.completions.create(model=self.model, timeout=timeout, **request)
        try:
            await asyncio.wait_for(gate.acquire(), None if deadline is None else deadline - time.monotonic())
        except TimeoutError:
            raise CallsFailed(f"no request slot free at {self.endpoint} before the move's deadline") from None
        try:
            if deadline is not None:
                timeout = min(timeout, max(0.001, deadline - time.monotonic()))
            return await self.client.chat.completions.create(model=self.model, timeout=timeout, **request)
        finally:
            gate.release()

    def _backoff(self, attempt: int) -> float:
        return self._jitter.uniform(0, min(self.policy.max_backoff, self.policy.backoff * 2**attempt))

    def _unusable(self, exc: Exception) -> EndpointError:
        where = (
            f"{self.endpoint} (the default OpenAI URL: set base_url or OPENAI_BASE_URL)"
            if self.default_url
            else self.endpoint
        )
        return EndpointError(f"{where} could not serve model {self.model!r}: {type(exc).__name__}: {exc}")


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The wait a 429 or 503 asks for: `retry-after-ms`, or `Retry-After` in seconds or as an HTTP date."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        with contextlib.suppress(ValueError):
            return max(0.0, float(value) / scale)
        with contextlib.suppress(TypeError, ValueError):
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    return None


def first_message(response: object) -> ChatCompletionMessage | None:
    """The reply's first choice's message, or None when the body is no chat completion (a proxy's
    page, an empty `choices`): the SDK hands such bodies over as they came."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        return None
    message: ChatCompletionMessage | None = getattr(choices[0], "message", None)
    return message


def usage_of(response: object) -> dict[str, int]:
    """The tokens a reply reports: prompt, completion, and the prompt's cached part where reported."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return {}
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    return {
        "prompt_tokens": int(usage.prompt_tokens or 0),
        "completion_tokens": int(usage.completion_tokens or 0),
        "cached_tokens": int(cached or 0),
    }
