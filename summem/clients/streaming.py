"""Reading a reply as a stream, so that no server has to be trusted to stop.

OpenAI-compatible servers do not all honour the output cap they are sent (llama.cpp's server
ignores ``max_completion_tokens`` and generates until its context is full, holding the server
for minutes). A reply read as a stream is cut once it passes the request's
``stop_after_tokens`` (counted approximately as it arrives; the summary's own validation counts
exactly afterwards): the stream is closed, and the reply comes back with
``finish_reason="length"``, which the summarizer never accepts. A stream that ends without a
``finish_reason`` (a connection dropped) is reported as an error, not as a reply.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from dataclasses import dataclass, field
from typing import Any

from summem.tokens.base import ApproxCounter

__all__ = ["StreamedReply", "aread_stream", "read_stream"]

_COUNTER = ApproxCounter()


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


@dataclass
class StreamedReply:
    """What a streamed reply carried, as far as it was read.

    Attributes:
        parts: the text deltas, in order.
        finish_reason: the provider's, ``"length"`` when cut here, ``None`` when the stream
            ended without one.
        input_tokens: from a usage chunk (0 without one).
        output_tokens: from a usage chunk (0 without one).
        model: the model that answered, as the chunks name it.
        response_id: the provider's id for the reply.
        refusal: refusal deltas, joined.
        usage_reported: whether a usage chunk came.
    """

    parts: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    model: str | None = None
    response_id: str | None = None
    refusal: str | None = None
    usage_reported: bool = False
    _tokens: int = 0

    @property
    def text(self) -> str:
        """The reply's text."""
        return "".join(self.parts)

    def feed(self, chunk: Any, limit: int | None) -> bool:
        """Take one chunk; False once the reply passed ``limit`` tokens (stop reading)."""
        self.model = self.model or _get(chunk, "model")
        self.response_id = self.response_id or _get(chunk, "id")
        usage = _get(chunk, "usage")
        if usage is not None and _get(usage, "prompt_tokens") is not None:
            self.input_tokens = int(_get(usage, "prompt_tokens") or 0)
            self.output_tokens = int(_get(usage, "completion_tokens") or 0)
            self.usage_reported = True
        for choice in _get(chunk, "choices") or []:
            if (_get(choice, "index") or 0) != 0:
                continue
            if _get(choice, "finish_reason"):
                self.finish_reason = str(_get(choice, "finish_reason"))
            delta = _get(choice, "delta")
            text = _get(delta, "content") if delta is not None else None
            if text:
                self.parts.append(str(text))
                self._tokens += _COUNTER.count_text(str(text))
            refusal = _get(delta, "refusal") if delta is not None else None
            if refusal:
                self.refusal = (self.refusal or "") + str(refusal)
        if limit is not None and self._tokens > limit:
            self.finish_reason = "length"
            return False
        return True


def read_stream(chunks: Iterable[Any], limit: int | None) -> StreamedReply:
    """Read ``chunks`` until they end or the reply passes ``limit``; close them when cut."""
    reply = StreamedReply()
    try:
        for chunk in chunks:
            if not reply.feed(chunk, limit):
                break
    finally:
        close = getattr(chunks, "close", None)
        if callable(close):
            close()
    return reply


async def aread_stream(chunks: AsyncIterable[Any], limit: int | None) -> StreamedReply:
    """The async twin of :func:`read_stream`."""
    reply = StreamedReply()
    try:
        async for chunk in chunks:
            if not reply.feed(chunk, limit):
                break
    finally:
        close = getattr(chunks, "aclose", None) or getattr(chunks, "close", None)
        if callable(close):
            result = close()
            if hasattr(result, "__await__"):
                await result
    return reply
