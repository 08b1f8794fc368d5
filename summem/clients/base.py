"""What summem sends to a model and gets back, and the step that performs the call.

Summarizers do not talk to an SDK. They build a :class:`ChatRequest` and yield a
:class:`ChatCall`; the driver (``run_sync`` / ``run_async`` in :mod:`summem._flow`) performs it
with ``client.complete`` or ``await client.acomplete``, retried under a
:class:`~summem.retry.RetryPolicy`. An adapter (openai SDK, litellm, a test fake) only has to
turn a request into a :class:`ChatResponse` and a failure into a
:class:`~summem.errors.LLMError`: it never retries by itself.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from summem._secrets import mask_parameters
from summem.clients.streaming import StreamedReply
from summem.retry import RetryPolicy

__all__ = [
    "ChatCall",
    "ChatRequest",
    "ChatResponse",
    "LLMClient",
    "OutputCapAware",
    "mask_parameters",
]

logger = logging.getLogger("summem.clients")


@dataclass(frozen=True)
class ChatRequest:
    """One chat-completions call, provider-neutral.

    Attributes:
        model: the model name as the client expects it (``"gpt-4o-mini"``,
            ``"anthropic/claude-3-5-haiku-latest"``).
        messages: chat-completions message dicts.
        parameters: extra call parameters (``temperature``...), passed through as given.
        timeout: seconds for this request; the retry layer clips it to the deadline.
        max_output_tokens: cap on the reply's length; each adapter sends it under its
            provider's name unless ``parameters`` already set one.
        stream: read the reply as a stream (see :mod:`summem.clients.streaming`).
        stop_after_tokens: with ``stream``, cut the reply once it passes this many tokens
            (counted approximately), whatever the server does with the cap it was sent.
    """

    model: str
    messages: list[dict[str, Any]]
    parameters: dict[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    max_output_tokens: int | None = None
    stream: bool = False
    stop_after_tokens: int | None = None

    def __repr__(self) -> str:
        # Never print message bodies (conversation data) or secret-looking parameters.
        return (
            f"ChatRequest(model={self.model!r}, messages=<{len(self.messages)}>, "
            f"parameters={mask_parameters(self.parameters)!r}, timeout={self.timeout!r}, "
            f"max_output_tokens={self.max_output_tokens!r})"
        )


@dataclass(frozen=True)
class ChatResponse:
    """A model's reply, reduced to what summem checks and records.

    Attributes:
        text: the first choice's text (``""`` when there was none).
        finish_reason: as the provider reported it (``"stop"``, ``"length"``...).
        refusal: the model's refusal message, when it refused.
        input_tokens: prompt tokens the provider billed.
        output_tokens: completion tokens the provider billed.
        model: the model that answered, as the provider named it.
        response_id: the provider's id for the reply.
        provider: e.g. ``"openai"``, ``"anthropic"``.
        error: a provider error found inside a successful (HTTP 200) reply: an ``error``
            object, no choices, or a body that is not a completion. ``None`` normally.
        usage_reported: False when the provider reported no token counts (a stream without
            a usage chunk): ``input_tokens``/``output_tokens`` are then 0, to be estimated.
    """

    text: str = ""
    finish_reason: str | None = None
    refusal: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    model: str | None = None
    response_id: str | None = None
    provider: str | None = None
    error: str | None = None
    usage_reported: bool = True

    @classmethod
    def from_stream(cls, reply: StreamedReply, *, provider: str | None, model: str) -> ChatResponse:
        """The response a streamed reply amounts to (an error if it never finished)."""
        error = None
        if reply.finish_reason is None:
            error = "the stream ended before the reply finished (no finish_reason)"
        return cls(
            text=reply.text,
            finish_reason=reply.finish_reason,
            refusal=reply.refusal,
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            model=reply.model or model,
            response_id=reply.response_id,
            provider=provider,
            error=error,
            usage_reported=reply.usage_reported,
        )


@runtime_checkable
class LLMClient(Protocol):
    """Performs one chat call, without retrying; failures are :class:`LLMError`."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Perform ``request`` synchronously."""
        ...

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        """Perform ``request`` asynchronously."""
        ...

    def max_input_tokens(self, model: str) -> int | None:
        """The model's input limit in tokens, or ``None`` when unknown (never raises)."""
        ...


@runtime_checkable
class OutputCapAware(Protocol):
    """A client that knows whether its endpoint stops at the output cap it is sent."""

    def honours_output_cap(self) -> bool:
        """False for endpoints that may run past the cap (OpenAI-compatible servers)."""
        ...


class ChatCall:
    """A flow step: one chat call through ``client``, retried under ``retry``.

    Attributes:
        attempts: calls made so far (retries included); readable after a failure too.
    """

    def __init__(
        self, client: LLMClient, request: ChatRequest, retry: RetryPolicy | None = None
    ) -> None:
        self.client = client
        self.request = request
        self.retry = retry if retry is not None else RetryPolicy()
        self.attempts = 0

    def __repr__(self) -> str:
        return f"ChatCall(model={self.request.model!r}, attempts={self.attempts})"

    def _attempt_request(self, time_left: float | None) -> ChatRequest:
        self.attempts += 1
        timeout = self.request.timeout
        if time_left is not None:
            # A request must not outlive the deadline; a tiny floor keeps httpx from
            # reading 0 as "no time at all" when the clock lands exactly on it.
            time_left = max(time_left, 0.001)
            timeout = time_left if timeout is None else min(timeout, time_left)
        logger.debug(
            "chat call: model=%s attempt=%d timeout=%s",
            self.request.model,
            self.attempts,
            f"{timeout:.3f}s" if timeout is not None else "default",
        )
        return replace(self.request, timeout=timeout)

    def run(self) -> ChatResponse:
        """Perform the call synchronously, with retries."""
        return self.retry.call(lambda left: self.client.complete(self._attempt_request(left)))

    async def arun(self) -> ChatResponse:
        """Perform the call asynchronously, with retries."""
        return await self.retry.acall(
            lambda left: self.client.acomplete(self._attempt_request(left))
        )
