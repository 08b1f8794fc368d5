"""The litellm adapter: any provider litellm supports, through ``litellm.completion``.

Importing litellm takes seconds, so this module never imports it at import time: ``import
summem`` and building a :class:`LiteLLMClient` stay cheap, and litellm is imported by the first
call (or the first :meth:`LiteLLMClient.max_input_tokens`). litellm's own retries are off
(``num_retries=0``, ``max_retries=0``): :class:`~summem.retry.RetryPolicy` is the only retry
layer. litellm raises the openai SDK's exception family, mapped like the openai adapter's.

litellm's async path sends requests through aiohttp by default, which respx cannot see; tests
set ``litellm.disable_aiohttp_transport = True`` (read by
``AsyncHTTPHandler.should_use_aiohttp_transport``) so both paths go through httpx. summem does
not change that global for you.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
import threading
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from summem._secrets import mask_parameters, secret_values
from summem.clients.base import ChatRequest, ChatResponse
from summem.clients.errors import map_provider_error
from summem.clients.streaming import StreamedReply, aread_stream, read_stream
from summem.errors import ConfigurationError, LLMError
from summem.logs import redacted_logs

if TYPE_CHECKING:
    import openai

__all__ = ["LiteLLMClient", "import_litellm", "quiet_litellm"]

_OUTPUT_CAP_NAMES = ("max_tokens", "max_completion_tokens", "max_output_tokens")
_RETRY_KWARGS = ("num_retries", "max_retries")


def import_litellm() -> ModuleType:
    """litellm, imported the first time it is needed (it takes seconds), quiet and offline.

    Library use must not touch the network beyond the model call and must print nothing:
    litellm's bundled model map is used instead of downloading one, its debug banners ("Give
    Feedback / Get Help", "Provider List") are off, and its loggers only pass warnings on.
    The banners are turned off (``litellm.suppress_debug_info``) only when summem is the
    first to import litellm: an application that imported it itself keeps its own setting.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    first = "litellm" not in sys.modules  # else the application's, with its own settings
    litellm = importlib.import_module("litellm")
    if not getattr(litellm, "_summem_quiet", False):
        if first:
            setattr(litellm, "suppress_debug_info", True)  # noqa: B010 - not in its stubs
        for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
            logger = logging.getLogger(name)
            if logger.level < logging.WARNING:
                logger.setLevel(logging.WARNING)
        setattr(litellm, "_summem_quiet", True)  # noqa: B010 - our own marker
    return litellm


_QUIET = threading.Lock()


@contextlib.contextmanager
def quiet_litellm(litellm: Any) -> Iterator[Any]:
    """``litellm`` with its banners off for one look-up, then the caller's setting back.

    For summem's own look-ups (a model's provider, its limits), which print litellm's
    "Provider List" banner for a model litellm cannot route unless told not to.
    """
    with _QUIET:
        before = getattr(litellm, "suppress_debug_info", False)
        setattr(litellm, "suppress_debug_info", True)  # noqa: B010 - not in its stubs
        try:
            yield litellm
        finally:
            setattr(litellm, "suppress_debug_info", before)  # noqa: B010


class LiteLLMClient:
    """:class:`~summem.clients.base.LLMClient` over ``litellm.completion`` / ``acompletion``.

    Args:
        **default_kwargs: sent with every call (``api_key``, ``api_base``, ``api_version``,
            ``custom_llm_provider``...); a request's own parameters win over them.
            ``num_retries`` / ``max_retries`` other than 0 are refused: retries belong to
            :class:`~summem.retry.RetryPolicy`.
        max_tokens_param: the name the output cap is sent under; ``max_tokens`` by default
            (litellm maps it to each provider's own name).
    """

    def __init__(self, *, max_tokens_param: str | None = None, **default_kwargs: Any) -> None:
        for name in _RETRY_KWARGS:
            if default_kwargs.get(name) not in (None, 0):
                raise ConfigurationError(
                    f"{name}={default_kwargs[name]!r}: litellm's retries stay off; "
                    "configure retries with summem's RetryPolicy"
                )
            default_kwargs.pop(name, None)
        self._defaults = default_kwargs
        self.max_tokens_param = max_tokens_param or "max_tokens"

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in mask_parameters(self._defaults).items())
        return f"LiteLLMClient({shown})"

    def max_input_tokens(self, model: str) -> int | None:
        """The model's input limit from litellm's model map, or ``None`` when unknown."""
        try:
            with quiet_litellm(import_litellm()) as litellm:
                info = litellm.get_model_info(model)
        except Exception:  # unmapped models raise; an unknown limit is not an error
            return None
        limit = info.get("max_input_tokens") if isinstance(info, Mapping) else None
        return int(limit) if isinstance(limit, int) and limit > 0 else None

    # -- calls ----------------------------------------------------------------------------

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Perform ``request`` with ``litellm.completion`` (no retries)."""
        litellm = import_litellm()
        import openai  # litellm's errors derive from the SDK's; litellm imported it already

        kwargs = self._kwargs(request)
        with redacted_logs(secret_values(kwargs)):  # litellm's and httpx's lines carry no key
            try:
                response = litellm.completion(**kwargs)
                if request.stream:
                    reply = read_stream(response, request.stop_after_tokens)
                    return self._streamed(reply, request)
            except openai.OpenAIError as exc:
                raise self._error(exc, kwargs) from exc
        return self._parse(response, request)

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        """Perform ``request`` with ``litellm.acompletion`` (no retries)."""
        litellm = import_litellm()
        import openai  # litellm's errors derive from the SDK's; litellm imported it already

        kwargs = self._kwargs(request)
        with redacted_logs(secret_values(kwargs)):
            try:
                response = await litellm.acompletion(**kwargs)
                if request.stream:
                    reply = await aread_stream(response, request.stop_after_tokens)
                    return self._streamed(reply, request)
            except openai.OpenAIError as exc:
                raise self._error(exc, kwargs) from exc
        return self._parse(response, request)

    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = dict(self._defaults)
        kwargs.update(request.parameters)
        kwargs.update(model=request.model, messages=request.messages)
        if request.max_output_tokens is not None and not any(
            name in kwargs for name in _OUTPUT_CAP_NAMES
        ):
            kwargs[self.max_tokens_param] = request.max_output_tokens
        if request.timeout is not None:
            kwargs["timeout"] = request.timeout
        kwargs["num_retries"] = 0
        kwargs["max_retries"] = 0
        if request.stream:
            kwargs["stream"] = True
            kwargs.setdefault("stream_options", {"include_usage": True})
        return kwargs

    def honours_output_cap(self) -> bool:
        """True for the providers litellm reaches itself; not for a custom ``api_base``."""
        return self.base_url is None

    @property
    def base_url(self) -> str | None:
        """The endpoint set for every call (``api_base`` / ``base_url``), if any."""
        url = self._defaults.get("api_base") or self._defaults.get("base_url")
        return str(url) if url else None

    def _streamed(self, reply: StreamedReply, request: ChatRequest) -> ChatResponse:
        provider = self._provider(request.model)
        return ChatResponse.from_stream(reply, provider=provider, model=request.model)

    def _error(self, exc: openai.OpenAIError, kwargs: Mapping[str, Any]) -> LLMError:
        model = str(kwargs["model"])
        return map_provider_error(
            exc, provider=self._provider(model), model=model, secrets=secret_values(kwargs)
        )

    def _provider(self, model: str) -> str | None:
        explicit = self._defaults.get("custom_llm_provider")
        if explicit:
            return str(explicit)
        try:
            with quiet_litellm(import_litellm()) as litellm:
                return str(litellm.get_llm_provider(model)[1])
        except Exception:  # an unknown provider only makes the message less specific
            return None

    def _parse(self, response: Any, request: ChatRequest) -> ChatResponse:
        usage = getattr(response, "usage", None)
        hidden = getattr(response, "_hidden_params", None) or {}
        common: dict[str, Any] = {
            "provider": hidden.get("custom_llm_provider") or self._provider(request.model),
            "model": getattr(response, "model", None) or request.model,
            "response_id": getattr(response, "id", None),
            "input_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
            "output_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
        }
        choices = getattr(response, "choices", None) or []
        if not choices:
            return ChatResponse(error="the reply has no choices", **common)
        choice = choices[0]
        message = getattr(choice, "message", None)
        refusal = getattr(message, "refusal", None)
        if refusal is None:
            specific = getattr(message, "provider_specific_fields", None) or {}
            refusal = specific.get("refusal") if isinstance(specific, Mapping) else None
        return ChatResponse(
            text=str(getattr(message, "content", None) or ""),
            finish_reason=getattr(choice, "finish_reason", None),
            refusal=refusal,
            **common,
        )
