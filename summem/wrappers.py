"""Memory around an assistant in two lines: openai clients and litellm's completion functions.

    memory = Memory("user-42")
    client = wrap_openai(OpenAI(), memory)       # or wrap_completion(litellm.completion, memory)

The application then passes only the *new* messages; summem records them, sends the whole view
(system message, rolling summary, recent turns), records the reply (tool calls included, and
the provider's usage in the reply's ``meta``) and reduces when due. Streaming works: the reply
is recorded once the stream has been read to its end. New messages are recorded before the
call: if the call fails they stay in the session (they were said), and calling again with
``messages=[]`` resends the view.

The request and reply handling is pure and shared; the sync and async shells only differ in
whether they await the memory and the client.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Protocol, cast

from summem.exceptions import ConfigurationError

__all__ = ["MemoryClient", "wrap_completion", "wrap_openai"]


class _SyncMemory(Protocol):
    def extend(self, messages: Any) -> Any: ...
    def add(self, message: Any) -> Any: ...
    def messages(self) -> list[dict[str, Any]]: ...


class _AsyncMemory(Protocol):
    async def extend(self, messages: Any) -> Any: ...
    async def add(self, message: Any) -> Any: ...
    async def messages(self) -> list[dict[str, Any]]: ...


# -- pure helpers shared by every shell -------------------------------------------------------


def _new_messages(kwargs: dict[str, Any]) -> list[Any]:
    new = kwargs.get("messages", [])
    if not isinstance(new, (list, tuple)):
        raise ConfigurationError("messages must be a list of the new chat-completions messages")
    return list(new)


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _usage(obj: Any) -> dict[str, Any] | None:
    usage = _get(obj, "usage")
    if usage is None:
        return None
    if hasattr(usage, "model_dump"):
        usage = usage.model_dump(exclude_none=True)
    if not isinstance(usage, dict):
        return None
    keep = ("prompt_tokens", "completion_tokens", "total_tokens")
    return {k: int(usage[k]) for k in keep if isinstance(usage.get(k), int)}


def _call_dict(call: Any) -> dict[str, Any]:
    fn = _get(call, "function")
    return {
        "id": str(_get(call, "id")),
        "type": _get(call, "type") or "function",
        "function": {"name": str(_get(fn, "name")), "arguments": _get(fn, "arguments") or ""},
    }


def reply_message(response: Any) -> dict[str, Any] | None:
    """The assistant message of a (non-streamed) completion, as a chat-completions dict."""
    choices = _get(response, "choices") or []
    if not choices:
        return None
    msg = _get(choices[0], "message")
    out: dict[str, Any] = {"role": "assistant", "content": _get(msg, "content")}
    calls = _get(msg, "tool_calls")
    if calls:
        out["tool_calls"] = [_call_dict(c) for c in calls]
    refusal = _get(msg, "refusal")
    if refusal:
        out["refusal"] = refusal
    if out["content"] is None and not calls and not refusal:
        out["content"] = ""
    return out


class StreamAccumulator:
    """Rebuilds the assistant message from streamed chunks (content and tool-call deltas)."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.usage: dict[str, Any] | None = None
        self.refusal: list[str] = []

    def feed(self, chunk: Any) -> None:
        """Take one chunk into account."""
        usage = _usage(chunk)
        if usage:
            self.usage = usage
        for choice in _get(chunk, "choices") or []:
            if (_get(choice, "index") or 0) != 0:
                continue
            delta = _get(choice, "delta")
            if delta is None:
                continue
            text = _get(delta, "content")
            if text:
                self.content.append(text)
            refusal = _get(delta, "refusal")
            if refusal:
                self.refusal.append(refusal)
            for call in _get(delta, "tool_calls") or []:
                slot = self.calls.setdefault(
                    _get(call, "index") or 0,
                    {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                )
                if _get(call, "id"):
                    slot["id"] = _get(call, "id")
                fn = _get(call, "function")
                if fn is not None:
                    slot["function"]["name"] += _get(fn, "name") or ""
                    slot["function"]["arguments"] += _get(fn, "arguments") or ""

    def message(self) -> dict[str, Any]:
        """The assistant message the stream carried."""
        out: dict[str, Any] = {"role": "assistant", "content": "".join(self.content) or None}
        if self.calls:
            out["tool_calls"] = [self.calls[i] for i in sorted(self.calls)]
        if self.refusal:
            out["refusal"] = "".join(self.refusal)
        if out["content"] is None and not self.calls and not self.refusal:
            out["content"] = ""
        return out


def _with_usage(message: dict[str, Any], usage: dict[str, Any] | None) -> Any:
    from summem.messages import Message

    msg = Message.from_openai(message)
    return msg.with_meta(usage=usage) if usage else msg


# -- sync shells ----------------------------------------------------------------------------


class _RecordingStream:
    """Passes a sync stream through and records the reply when it is exhausted."""

    def __init__(self, stream: Any, memory: _SyncMemory) -> None:
        self._stream = stream
        self._memory = memory
        self._acc = StreamAccumulator()
        self._recorded = False

    def __iter__(self) -> Iterator[Any]:
        for chunk in self._stream:
            self._acc.feed(chunk)
            yield chunk
        if not self._recorded:
            self._recorded = True
            self._memory.add(_with_usage(self._acc.message(), self._acc.usage))

    def __enter__(self) -> _RecordingStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the underlying stream."""
        close = getattr(self._stream, "close", None)
        if callable(close):
            close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _AsyncRecordingStream:
    """Passes an async stream through and records the reply when it is exhausted."""

    def __init__(self, stream: Any, memory: _AsyncMemory) -> None:
        self._stream = stream
        self._memory = memory
        self._acc = StreamAccumulator()
        self._recorded = False

    async def __aiter__(self) -> AsyncIterator[Any]:
        async for chunk in self._stream:
            self._acc.feed(chunk)
            yield chunk
        if not self._recorded:
            self._recorded = True
            await self._memory.add(_with_usage(self._acc.message(), self._acc.usage))

    async def __aenter__(self) -> _AsyncRecordingStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the underlying stream."""
        close = getattr(self._stream, "close", None)
        if callable(close):
            result = close()
            if inspect.isawaitable(result):
                await result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _record_sync(memory: _SyncMemory, response: Any, stream: bool) -> Any:
    if stream:
        return _RecordingStream(response, memory)
    reply = reply_message(response)
    if reply is not None:
        memory.add(_with_usage(reply, _usage(response)))
    return response


async def _record_async(memory: _AsyncMemory, response: Any, stream: bool) -> Any:
    if stream:
        return _AsyncRecordingStream(response, memory)
    reply = reply_message(response)
    if reply is not None:
        await memory.add(_with_usage(reply, _usage(response)))
    return response


def wrap_completion(fn: Callable[..., Any], memory: Any) -> Callable[..., Any]:
    """Wrap a completion function: ``litellm.completion`` + ``Memory``, or the async pair.

    Any function taking ``messages=`` and returning a chat completion works (an async one
    with ``AsyncMemory``).
    """
    if _is_coroutine_function(fn):
        amem = cast(_AsyncMemory, memory)

        async def acall(*args: Any, **kwargs: Any) -> Any:
            await amem.extend(_new_messages(kwargs))
            kwargs["messages"] = await amem.messages()
            response = await cast(Callable[..., Awaitable[Any]], fn)(*args, **kwargs)
            return await _record_async(amem, response, bool(kwargs.get("stream")))

        return acall
    smem = cast(_SyncMemory, memory)

    def call(*args: Any, **kwargs: Any) -> Any:
        smem.extend(_new_messages(kwargs))
        kwargs["messages"] = smem.messages()
        response = fn(*args, **kwargs)
        return _record_sync(smem, response, bool(kwargs.get("stream")))

    return call


class _Completions:
    def __init__(self, completions: Any, memory: Any, is_async: bool) -> None:
        self._completions = completions
        self.create = wrap_completion(
            _as_coroutine_function(completions.create) if is_async else completions.create,
            memory,
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self._completions, name)


class _Chat:
    def __init__(self, chat: Any, memory: Any, is_async: bool) -> None:
        self._chat = chat
        self.completions = _Completions(chat.completions, memory, is_async)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._chat, name)


class MemoryClient:
    """An openai client whose ``chat.completions.create`` goes through a memory.

    Everything else (``models``, ``embeddings``, ``with_options``...) is the wrapped client's.
    """

    def __init__(self, client: Any, memory: Any) -> None:
        self._client = client
        self.memory = memory
        self.chat = _Chat(client.chat, memory, _is_async_client(client))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def wrap_openai(client: Any, memory: Any) -> MemoryClient:
    """Put ``memory`` around an openai client: ``OpenAI`` + ``Memory``, or the async pair.

    Raises:
        ConfigurationError: an async client with a sync memory, or the other way round.
    """
    is_async = _is_async_client(client)
    memory_is_async = _is_coroutine_function(getattr(memory, "add", None))
    if is_async != memory_is_async:
        raise ConfigurationError(
            "wrap_openai needs OpenAI with Memory, or AsyncOpenAI with AsyncMemory; got "
            f"{type(client).__name__} with {type(memory).__name__}"
        )
    return MemoryClient(client, memory)


def _is_coroutine_function(fn: Any) -> bool:
    # SDK methods are wrapped by decorators that hide ``async def``; look underneath.
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(inspect.unwrap(fn))


def _is_async_client(client: Any) -> bool:
    return _is_coroutine_function(getattr(client.chat.completions, "create", None))


def _as_coroutine_function(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def call(*args: Any, **kwargs: Any) -> Any:
        return await fn(*args, **kwargs)

    return call
