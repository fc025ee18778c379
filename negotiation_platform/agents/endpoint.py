"""The OpenAI-compatible chat-completions endpoint an LLM agent talks to: where it is, and one request.

The endpoint is the agent's `base_url`/`api_key` options, else the environment (OPENAI_BASE_URL,
OPENAI_API_KEY) as the openai library reads it, else OpenAI's own URL. A request that fails
names the URL and the model, so a typo in either is visible in `failures.jsonl` and on the
command line. Needs the `llm` extra (`openai`), imported only when an endpoint is made.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

OPENAI_URL = "https://api.openai.com/v1"


class EndpointError(RuntimeError):
    """A chat request failed (unreachable, refused, timed out); the message names the URL and model."""


class ChatEndpoint:
    """One OpenAI-compatible endpoint: its URL and an async client for it."""

    def __init__(self, base_url: str | None = None, api_key: str | None = None, timeout: float = 60.0) -> None:
        from openai import AsyncOpenAI

        self.url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL
        self.client: AsyncOpenAI = AsyncOpenAI(
            base_url=self.url,
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or "unset",
            timeout=timeout,
            max_retries=1,
        )

    async def complete(self, model: str, messages: list[dict[str, Any]], **options: Any) -> ChatCompletion:
        """One chat completion; a failure is raised as EndpointError naming the URL and the model."""
        from openai import APIError

        request: dict[str, Any] = {"model": model, "messages": messages, **options}
        try:
            reply: ChatCompletion = await self.client.chat.completions.create(**request)
            return reply
        except APIError as exc:
            raise EndpointError(f"model {model!r} at {self.url}: {type(exc).__name__}: {exc}") from exc


def token_usage(reply: ChatCompletion) -> dict[str, int]:
    """The tokens a reply reports: prompt, completion, and cached prompt tokens where the endpoint says."""
    usage = reply.usage
    if usage is None:
        return {}
    counts = {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens}
    details = usage.prompt_tokens_details
    if details is not None and details.cached_tokens is not None:
        counts["cached_tokens"] = details.cached_tokens
    return counts
