"""The openai SDK adapter: OpenAI, Azure OpenAI, or any OpenAI-compatible ``base_url``.

Give it the ``openai.OpenAI`` / ``openai.AsyncOpenAI`` (or ``AzureOpenAI``) you already
configured; it only calls ``chat.completions.create``. The SDK's own retries are switched off
(``with_options(max_retries=0)``) because :class:`~summem.retry.RetryPolicy` is the only retry
layer; SDK errors become summem errors (:mod:`summem.clients.errors`) with the API key scrubbed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

import openai

from summem._secrets import client_secrets, redact
from summem.clients.base import ChatRequest, ChatResponse
from summem.clients.errors import map_provider_error
from summem.clients.streaming import aread_stream, read_stream
from summem.errors import ConfigurationError, LLMError
from summem.logs import redacted_logs

__all__ = ["OpenAIClient"]

C = TypeVar("C", openai.OpenAI, openai.AsyncOpenAI)

_OUTPUT_CAP_NAMES = ("max_tokens", "max_completion_tokens", "max_output_tokens")


class OpenAIClient:
    """:class:`~summem.clients.base.LLMClient` over the openai SDK.

    Args:
        client: used by ``complete``. With neither client, default ``openai.OpenAI()`` and
            ``openai.AsyncOpenAI()`` (configured from ``OPENAI_*`` variables) are made on
            first use.
        async_client: used by ``acomplete``.
        max_tokens_param: the name under which the output cap is sent. By default OpenAI's
            and Azure's ``max_completion_tokens``, and ``max_tokens`` for any other base URL
            (OpenAI-compatible servers such as llama.cpp's ignore the newer name).
        max_input_tokens: the model's input limit, when known (spans sent to it stay within).
    """

    def __init__(
        self,
        client: openai.OpenAI | None = None,
        async_client: openai.AsyncOpenAI | None = None,
        *,
        max_tokens_param: str | None = None,
        max_input_tokens: int | None = None,
    ) -> None:
        if client is not None and not isinstance(client, openai.OpenAI):
            raise ConfigurationError(
                f"client must be an openai.OpenAI, got {type(client).__name__}"
                + ("; pass it as async_client" if isinstance(client, openai.AsyncOpenAI) else "")
            )
        if async_client is not None and not isinstance(async_client, openai.AsyncOpenAI):
            raise ConfigurationError(
                f"async_client must be an openai.AsyncOpenAI, got {type(async_client).__name__}"
            )
        self._defaults = client is None and async_client is None
        self._client = client.with_options(max_retries=0) if client is not None else None
        self._async_client = (
            async_client.with_options(max_retries=0) if async_client is not None else None
        )
        configured = client or async_client
        self.official = configured is None or _is_openai_host(configured)
        """True for OpenAI's and Azure's own endpoints (they honour the output cap)."""
        self.max_tokens_param = max_tokens_param or (
            "max_completion_tokens" if self.official else "max_tokens"
        )
        self._max_input_tokens = max_input_tokens
        azure = isinstance(configured, (openai.AzureOpenAI, openai.AsyncAzureOpenAI))
        self.provider = "azure" if azure else "openai"

    def max_input_tokens(self, model: str) -> int | None:
        """The input limit given at construction (``max_input_tokens``), or ``None``.

        The openai SDK has no model map; without a limit, spans are bounded by
        ``max_chunk_tokens`` and context-window errors alone.
        """
        return self._max_input_tokens

    def honours_output_cap(self) -> bool:
        """True for OpenAI's and Azure's own endpoints; compatible servers may run past it."""
        return self.official

    def __repr__(self) -> str:
        base = self._client or self._async_client
        url = str(base.base_url) if base is not None else "default"
        return f"OpenAIClient(provider={self.provider!r}, base_url={url!r})"

    # -- clients --------------------------------------------------------------------------

    def _sync(self) -> openai.OpenAI:
        if self._client is None:
            self._client = self._default(openai.OpenAI, "an async", "client", "synchronously")
        return self._client

    def _async(self) -> openai.AsyncOpenAI:
        if self._async_client is None:
            self._async_client = self._default(
                openai.AsyncOpenAI, "a sync", "async_client", "asynchronously"
            )
        return self._async_client

    def _default(self, cls: type[C], other: str, param: str, how: str) -> C:
        """The SDK's default client (its environment's key and URL), if this one makes them."""
        if not self._defaults:
            raise ConfigurationError(
                f"this OpenAIClient has only {other} client; pass "
                f"{param}=openai.{cls.__name__}(...) to call it {how}"
            )
        try:
            return cls(max_retries=0)
        except openai.OpenAIError as exc:
            raise ConfigurationError(f"cannot create the default openai client: {exc}") from exc

    # -- calls ----------------------------------------------------------------------------

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Perform ``request`` with the sync client (no retries)."""
        client = self._sync()
        kwargs = self._kwargs(request)
        secrets = client_secrets(client, kwargs)
        with redacted_logs(secrets):  # the SDK's and httpx's own log lines carry no key
            try:
                completion = client.chat.completions.create(**kwargs)
                if request.stream:
                    reply = read_stream(completion, request.stop_after_tokens)
                    return ChatResponse.from_stream(
                        reply, provider=self.provider, model=request.model
                    )
            except openai.OpenAIError as exc:
                raise self._error(exc, request, secrets) from exc
        return self._parse(completion, request, secrets)

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        """Perform ``request`` with the async client (no retries)."""
        client = self._async()
        kwargs = self._kwargs(request)
        secrets = client_secrets(client, kwargs)
        with redacted_logs(secrets):
            try:
                completion = await client.chat.completions.create(**kwargs)
                if request.stream:
                    reply = await aread_stream(completion, request.stop_after_tokens)
                    return ChatResponse.from_stream(
                        reply, provider=self.provider, model=request.model
                    )
            except openai.OpenAIError as exc:
                raise self._error(exc, request, secrets) from exc
        return self._parse(completion, request, secrets)

    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": request.model, "messages": request.messages}
        kwargs.update(request.parameters)
        if request.max_output_tokens is not None and not any(
            name in kwargs for name in _OUTPUT_CAP_NAMES
        ):
            kwargs[self.max_tokens_param] = request.max_output_tokens
        if request.timeout is not None:
            kwargs["timeout"] = request.timeout
        if request.stream:
            kwargs["stream"] = True
            kwargs.setdefault("stream_options", {"include_usage": True})
        return kwargs

    def _error(self, exc: openai.OpenAIError, request: ChatRequest, secrets: list[str]) -> LLMError:
        return map_provider_error(exc, provider=self.provider, model=request.model, secrets=secrets)

    def _parse(self, completion: Any, request: ChatRequest, secrets: list[str]) -> ChatResponse:
        if not isinstance(completion, openai.BaseModel):
            # A 200 whose body is not JSON (an HTML error page from a proxy, say).
            shown = redact(" ".join(str(completion).split())[:200], secrets)
            return ChatResponse(
                provider=self.provider, error=f"the reply is not a chat completion: {shown!r}"
            )
        extra: Mapping[str, Any] = completion.model_extra or {}
        usage = getattr(completion, "usage", None)
        common: dict[str, Any] = {
            "provider": self.provider,
            "model": getattr(completion, "model", None) or request.model,
            "response_id": getattr(completion, "id", None),
            "input_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
            "output_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
        }
        choices = getattr(completion, "choices", None) or []
        if extra.get("error") is not None or not choices:
            return ChatResponse(error=redact(_error_text(extra.get("error")), secrets), **common)
        choice = choices[0]
        message = getattr(choice, "message", None)
        return ChatResponse(
            text=str(getattr(message, "content", None) or ""),
            finish_reason=getattr(choice, "finish_reason", None),
            refusal=getattr(message, "refusal", None),
            **common,
        )


def _is_openai_host(client: Any) -> bool:
    """True when ``client`` talks to OpenAI's API or to Azure OpenAI."""
    if isinstance(client, (openai.AzureOpenAI, openai.AsyncAzureOpenAI)):
        return True
    host = (urlsplit(str(getattr(client, "base_url", ""))).hostname or "").lower()
    return host == "api.openai.com" or host.endswith(".openai.azure.com")


def _error_text(error: Any) -> str:
    """A readable line for an ``error`` object found in a 200 body."""
    if error is None:
        return "the reply has no choices"
    if isinstance(error, Mapping):
        message = error.get("message") or error.get("type") or error
        code = error.get("code")
        text = f"{message} (code {code})" if code is not None else str(message)
    else:
        text = str(error)
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."
