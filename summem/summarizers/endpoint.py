"""Which client an :class:`~summem.summarizers.llm.LLMSummarizer` talks to, and how.

Without a client the summarizer uses litellm, and the connection settings among its keyword
arguments (``api_key``, ``api_base``...) configure that client rather than each request.
With an ``openai`` client (sync, async, or both), it is wrapped in the openai adapter; with
any other :class:`~summem.clients.base.LLMClient`, it is used as it is. Whether replies are
streamed and cut at the output cap depends on whether the endpoint honours that cap.
"""

from __future__ import annotations

from typing import Any

from summem.clients.base import LLMClient, OutputCapAware
from summem.errors import ConfigurationError

__all__ = ["CLIENT_KWARGS", "OUTPUT_CAP_NAMES", "honours_output_cap", "resolve_client"]

CLIENT_KWARGS = frozenset(
    ("api_key", "api_base", "base_url", "api_version", "organization", "custom_llm_provider")
)
"""Connection settings that belong to the litellm client rather than to each request."""

OUTPUT_CAP_NAMES = ("max_tokens", "max_completion_tokens", "max_output_tokens")
"""The names an output cap is sent under, by endpoint."""


def honours_output_cap(client: LLMClient) -> bool:
    """True for endpoints known to stop at the cap they are sent (no need to stream).

    A client of the user's own decides how it calls its model: it is trusted unless it says
    otherwise (:class:`~summem.clients.base.OutputCapAware`).
    """
    return client.honours_output_cap() if isinstance(client, OutputCapAware) else True


def resolve_client(
    client: Any, async_client: Any, model_kwargs: dict[str, Any], max_tokens_param: str | None
) -> tuple[LLMClient, dict[str, Any]]:
    """The adapter to use and the parameters left for each request.

    Raises:
        ConfigurationError: a client of the wrong kind, clients paired the wrong way, or
            connection settings given beside an openai client (they belong on it).
    """
    if client is None and async_client is None:
        from summem.clients.litellm import LiteLLMClient

        connection = {k: v for k, v in model_kwargs.items() if k in CLIENT_KWARGS}
        params = {k: v for k, v in model_kwargs.items() if k not in CLIENT_KWARGS}
        if max_tokens_param is not None:
            connection["max_tokens_param"] = max_tokens_param
        return LiteLLMClient(**connection), params
    import openai

    is_openai = isinstance(client, (openai.OpenAI, openai.AsyncOpenAI))
    if client is not None and not is_openai:
        if not isinstance(client, LLMClient):
            raise ConfigurationError(
                f"client must be an openai client or an LLMClient, got {type(client).__name__}"
            )
        if async_client is not None:
            raise ConfigurationError("async_client only pairs with an openai.OpenAI client")
        return client, dict(model_kwargs)
    misplaced = sorted(set(model_kwargs) & CLIENT_KWARGS)
    if misplaced:
        raise ConfigurationError(
            f"{', '.join(misplaced)}: configure these on the openai client you pass"
        )
    from summem.clients.openai import OpenAIClient

    if isinstance(client, openai.AsyncOpenAI):
        if async_client is not None:
            raise ConfigurationError(
                "pass the sync client as client= and the async one as async_client="
            )
        return OpenAIClient(async_client=client, max_tokens_param=max_tokens_param), dict(
            model_kwargs
        )
    return OpenAIClient(client, async_client, max_tokens_param=max_tokens_param), dict(model_kwargs)
