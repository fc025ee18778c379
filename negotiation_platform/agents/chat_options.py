"""The options of the agents that ask a chat model (`llm:MODEL`, `mcp-llm:MODEL`): one typed model of
what they share, which each kind extends with its own.

They are the `--agent-config` keys of `tournament` and `play`: an unknown key or a value out of
bounds is refused, naming the known options, before the first match is played.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from negotiation_platform.agents.llm_cache import open_cache
from negotiation_platform.agents.llm_calls import DEFAULT_URL, Caller, CallPolicy
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.spec.payload_checks import validation_problems


class EndpointOptions(BaseModel):
    """Where the model is, how it samples, how hard a call tries, and the reply cache.

    Attributes:
        base_url: the endpoint's base URL (default: OPENAI_BASE_URL, else OpenAI's own).
        api_key: the key (default: OPENAI_API_KEY).
        temperature: the sampling temperature; above 0, replies are cached only with `cache_sampled`.
        timeout: seconds one request may take.
        max_tokens: the completion's token bound (None: the endpoint's).
        retries: tries after the first on 408, 409, 429, 5xx and timeouts.
        backoff: the first wait between tries, in seconds; doubled each try, with full jitter.
        max_backoff: the longest wait between tries (a `Retry-After` header is obeyed instead).
        max_concurrency: the most requests in flight to this endpoint, shared by every agent of the
            process that names the same URL (the first one's limit holds).
        cache: an SQLite file of replies keyed by (endpoint, model, messages, options).
        cache_sampled: cache replies sampled at a temperature above 0 too (keyed by the seat's seed as
            well, so a replay of the same seeds gets the same draws and other seeds their own).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = None
    api_key: str | None = None
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    timeout: float = Field(60.0, gt=0.0, le=3600.0)
    max_tokens: int | None = Field(None, ge=1, le=1_000_000)
    retries: int = Field(4, ge=0, le=100)
    backoff: float = Field(1.0, ge=0.0, le=3600.0)
    max_backoff: float = Field(30.0, ge=0.0, le=3600.0)
    max_concurrency: int | None = Field(None, ge=1, le=10_000)
    cache: str | None = None
    cache_sampled: bool = False

    def caller(self, model: str) -> Caller:
        """The Caller of `model` at this endpoint: from `base_url`/`api_key`, else the environment
        (OPENAI_BASE_URL, OPENAI_API_KEY), else OpenAI's own URL."""
        from openai import AsyncOpenAI

        url = self.base_url or os.environ.get("OPENAI_BASE_URL")
        client = AsyncOpenAI(
            base_url=url or DEFAULT_URL,
            api_key=self.api_key or os.environ.get("OPENAI_API_KEY") or "unset",
            timeout=self.timeout,
            max_retries=0,  # the Caller retries, within the move's deadline
        )
        cached = self.cache if self.cache and (self.temperature <= 0 or self.cache_sampled) else None
        return Caller(
            client,
            model,
            endpoint=str(client.base_url).rstrip("/"),
            default_url=not url,
            policy=CallPolicy(
                retries=self.retries, backoff=self.backoff, max_backoff=self.max_backoff, timeout=self.timeout
            ),
            max_concurrency=self.max_concurrency,
            cache=open_cache(cached) if cached else None,
        )


OptionsT = TypeVar("OptionsT", bound=BaseModel)


def read_options(model: type[OptionsT], kind: str, options: Mapping[str, object]) -> OptionsT:
    """`options` as `model`, or `invalid_argument` naming each problem and the options `kind` agents know."""
    try:
        return model.model_validate(dict(options))
    except ValidationError as exc:
        problems = validation_problems(exc, "(options)")
        said = "; ".join(f"{p['field']}: {p['problem']}" for p in problems)
        known = ", ".join(sorted(model.model_fields))
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"Invalid options for {kind} agents: {said}. Known options: {known}."
        ) from None
