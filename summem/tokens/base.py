"""Token counting: one protocol, an exact OpenAI counter, an approximate one, any callable.

Budgets are measured with the model's tokenizer. A :class:`TokenCounter` counts one message at a
time and caches the count on the message, so each message is tokenized once however many times
the view is measured. ``resolve_counter`` turns what the user passed (a counter, a callable, a
model name or nothing) into a counter.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from summem.messages import Message
from summem.tokens.provider import OPAQUE_KEY, opaque_size, provider_texts

__all__ = [
    "ApproxCounter",
    "CallableCounter",
    "TokenCounter",
    "TokenCounterFn",
    "count_messages",
    "resolve_counter",
]

TokenCounterFn = Callable[[Sequence[dict[str, Any]]], int]
"""A plain function counting a list of chat-completions dicts (``len`` counts messages)."""


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens for one tokenizer."""

    @property
    def key(self) -> str:
        """Identifies the tokenizer; used as the cache key on each message."""

    @property
    def request_overhead(self) -> int:
        """Tokens added once per request (OpenAI primes every reply with 3)."""

    def count_message(self, message: Message) -> int:
        """Tokens this message adds to a request (cached on the message)."""

    def count_text(self, text: str) -> int:
        """Tokens of a bare string."""


def count_messages(counter: TokenCounter, messages: Sequence[Message]) -> int:
    """Tokens of a whole request: every message plus the request overhead."""
    return sum(counter.count_message(m) for m in messages) + counter.request_overhead


class ApproxCounter:
    """About four characters a token; for models without a known tokenizer. Never downloads."""

    key = "approx"
    request_overhead = 3

    def __init__(self, *, chars_per_token: float = 4.0, per_message: int = 4) -> None:
        self.chars_per_token = chars_per_token
        self.per_message = per_message
        self.key = f"approx:{chars_per_token}:{per_message}"

    def count_text(self, text: str) -> int:
        """Estimated tokens of ``text``."""
        return math.ceil(len(text) / self.chars_per_token) if text else 0

    def count_message(self, message: Message) -> int:
        """Estimated tokens of ``message``: text, tool calls, name, and a flat cost per image."""
        cache = message.token_cache
        cached = cache.get(self.key)
        if cached is not None:
            return cached
        content = message.content
        n = self.per_message + self.count_text(content if type(content) is str else message.text)
        if isinstance(content, list):
            # text and refusal parts are in message.text; anything else is media
            n += sum(765 for p in content if p.get("type") not in ("text", "refusal"))
        for call in message.tool_calls or ():
            fn = call.get("function") or {}
            n += (
                3
                + self.count_text(str(fn.get("name", "")))
                + self.count_text(str(fn.get("arguments", "")))
            )
        if message.name:
            n += 1 + self.count_text(message.name)
        if message.tool_call_id:
            n += self.count_text(message.tool_call_id)
        extra = message.model_extra
        if extra:
            for key, value in extra.items():
                if key == OPAQUE_KEY and isinstance(value, str):  # a compaction's payload
                    n += opaque_size(value, self.count_text)
                elif isinstance(value, str):  # e.g. refusal, a reasoning item's encrypted content
                    n += self.count_text(value)
                elif key == "provider_specific_fields":  # Anthropic compaction blocks
                    n += sum(self.count_text(t) for t in provider_texts(value))
        cache[self.key] = n
        return n


class CallableCounter:
    """Adapts a function of a list of message dicts (``len``, a provider's counter...).

    The function is called with a one-message list per message, so ``len`` counts messages.
    """

    request_overhead = 0

    def __init__(self, fn: TokenCounterFn) -> None:
        self.fn = fn
        self.key = f"callable:{getattr(fn, '__qualname__', 'fn')}:{id(fn)}"

    def count_text(self, text: str) -> int:
        """Tokens of ``text`` as a user message."""
        return int(self.fn([{"role": "user", "content": text}]))

    def count_message(self, message: Message) -> int:
        """Tokens of one message, cached."""
        cached = message.token_cache.get(self.key)
        if cached is None:
            cached = int(self.fn([message.to_openai()]))
            message.token_cache[self.key] = cached
        return cached


def resolve_counter(
    token_counter: TokenCounter | TokenCounterFn | None = None, *, model: str | None = None
) -> TokenCounter:
    """The counter to use: the one given, a wrapped callable, or the model's tokenizer.

    With neither a counter nor a model, counts with ``gpt-4o``'s tokenizer (o200k_base). A model
    whose tokenizer is unknown is counted approximately.
    """
    if token_counter is not None:
        if isinstance(token_counter, TokenCounter):
            return token_counter
        if callable(token_counter):
            return CallableCounter(token_counter)
        raise TypeError(
            f"token_counter must be a TokenCounter or a callable, got {token_counter!r}"
        )
    from summem.tokens.openai import TiktokenCounter, encoding_name_for_model

    name = model or "gpt-4o"
    if encoding_name_for_model(name) is None:
        return ApproxCounter()
    return TiktokenCounter(name)
