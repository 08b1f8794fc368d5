"""Memory around an assistant in two lines: openai clients and litellm's completion functions.

    memory = Memory("user-42")
    client = wrap_openai(OpenAI(), memory)       # or wrap_completion(litellm.completion, memory)

The application then passes only the *new* messages; summem records them, sends the whole view
(system message, rolling summary, recent turns), records the reply (tool calls included, and
the provider's usage in the reply's ``meta``) and reduces when due. A system message passed
again with the same content is ignored; with new content it replaces the old one.

Streaming works: the reply is recorded once the stream has been read to its end; a stream
abandoned midway records nothing (see :mod:`summem.wrappers.stream`). New messages are
recorded before the call: if the call fails they stay in the session (they were said), the
provider's exception reaches the application unchanged, and calling again with
``messages=[]`` resends the view.

The wrapped client is typed as the client it wraps, so editors and type checkers see the SDK's
own signatures. Through memory go ``chat.completions.create``, ``.parse`` and ``.stream``
(also after ``with_options(...)``); everything else is the wrapped client's own.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from summem.exceptions import ConfigurationError
from summem.messages import sdk_message_dict
from summem.wrappers.stream import (
    AsyncRecordingEventStreamManager,
    AsyncRecordingStream,
    RecordingEventStreamManager,
    RecordingStream,
    StreamAccumulator,
    reply_message,
    usage_of,
)

if TYPE_CHECKING:
    from summem.async_memory import AsyncMemory
    from summem.memory import Memory
    from summem.messages import Message

__all__ = ["MemoryClient", "StreamAccumulator", "reply_message", "wrap_completion", "wrap_openai"]

ClientT = TypeVar("ClientT")
FnT = TypeVar("FnT", bound=Callable[..., Any])

_STREAM_HELPER = "stream"  # the SDK's ``chat.completions.stream(...)``: a manager of events


# -- pure helpers shared by every shell -------------------------------------------------------


def _messages_position(fn: Callable[..., Any]) -> int | None:
    """Where ``messages`` sits among ``fn``'s positional parameters (litellm: second)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    for i, param in enumerate(params):
        if param.kind not in positional:
            return None
        if param.name == "messages":
            return i
    return None


def _split(
    args: tuple[Any, ...], kwargs: dict[str, Any], position: int | None
) -> tuple[list[Any], Callable[[list[dict[str, Any]]], tuple[tuple[Any, ...], dict[str, Any]]]]:
    """The new messages, and how to put the view in their place (positional or keyword)."""
    positional = position is not None and len(args) > position
    new = args[position] if positional and position is not None else kwargs.get("messages", [])
    if not isinstance(new, (list, tuple)):
        raise ConfigurationError("messages must be a list of the new chat-completions messages")

    def with_view(view: list[dict[str, Any]]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if positional and position is not None:
            return (*args[:position], view, *args[position + 1 :]), kwargs
        return args, {**kwargs, "messages": view}

    return list(new), with_view


def _call_keys(message: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (
            c.get("id"),
            (c.get("function") or {}).get("name"),
            (c.get("function") or {}).get("arguments"),
        )
        for c in message.get("tool_calls") or []
        if isinstance(c, dict)
    ]


class _Replies:
    """Drops the reply summem recorded if the application passes it back as a new message.

    The openai tool-calling recipe appends ``response.choices[0].message`` before the tool
    results; the wrapper has already recorded that reply, so it is not recorded twice.
    """

    def __init__(self) -> None:
        self.last: dict[str, Any] | None = None

    def new(self, messages: list[Any]) -> list[Any]:
        items = [sdk_message_dict(m) for m in messages]
        last, self.last = self.last, None
        first = items[0] if items else None
        if (
            last is not None
            and isinstance(first, dict)
            and first.get("role") == "assistant"
            and (first.get("content") or None) == (last.get("content") or None)
            and _call_keys(first) == _call_keys(last)
        ):
            return items[1:]
        return items


def _with_usage(message: dict[str, Any], usage: dict[str, Any] | None) -> Message:
    from summem.messages import Message

    msg = Message.from_openai(message)
    return msg.with_meta(usage=usage) if usage else msg


# -- the sync and async shells ------------------------------------------------------------------


def _sync_call(
    fn: Callable[..., Any], memory: Memory, *, helper: bool = False, replies: _Replies | None = None
) -> Any:
    position = _messages_position(fn)
    replies = replies or _Replies()

    def record(message: dict[str, Any], usage: dict[str, Any] | None) -> None:
        memory.add(_with_usage(message, usage))
        replies.last = message

    def call(*args: Any, **kwargs: Any) -> Any:
        new, with_view = _split(args, kwargs, position)
        memory.extend(replies.new(new))
        args, kwargs = with_view(memory.messages())
        response = fn(*args, **kwargs)
        if helper:
            return RecordingEventStreamManager(response, record)
        if kwargs.get("stream"):
            return RecordingStream(response, record)
        reply = reply_message(response)
        if reply is not None:
            record(reply, usage_of(response))
        return response

    return call


def _async_call(
    fn: Callable[..., Awaitable[Any]],
    memory: AsyncMemory,
    *,
    helper: bool = False,
    replies: _Replies | None = None,
) -> Any:
    position = _messages_position(fn)
    replies = replies or _Replies()

    async def record(message: dict[str, Any], usage: dict[str, Any] | None) -> None:
        await memory.add(_with_usage(message, usage))
        replies.last = message

    async def acall(*args: Any, **kwargs: Any) -> Any:
        new, with_view = _split(args, kwargs, position)
        await memory.extend(replies.new(new))
        args, kwargs = with_view(await memory.messages())
        response = await fn(*args, **kwargs)
        if kwargs.get("stream"):
            return AsyncRecordingStream(response, record)
        reply = reply_message(response)
        if reply is not None:
            await record(reply, usage_of(response))
        return response

    if not helper:
        return acall

    def open_stream(*args: Any, **kwargs: Any) -> AsyncRecordingEventStreamManager:
        # ``AsyncCompletions.stream`` is a plain method returning an async context manager;
        # the memory is only touched once it is entered.
        lazy = _LazyManager(fn, args, kwargs, memory, replies)
        return AsyncRecordingEventStreamManager(lazy, record)

    return open_stream


class _LazyManager:
    """``async with``: record the new messages, then open the SDK's stream over the view."""

    def __init__(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        memory: Any,
        replies: _Replies,
    ) -> None:
        self._fn, self._args, self._kwargs, self._memory = fn, args, kwargs, memory
        self._replies = replies
        self._manager: Any = None

    async def __aenter__(self) -> Any:
        new, with_view = _split(self._args, self._kwargs, _messages_position(self._fn))
        await self._memory.extend(self._replies.new(new))
        args, kwargs = with_view(await self._memory.messages())
        self._manager = self._fn(*args, **kwargs)
        return await self._manager.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._manager.__aexit__(*exc)


def wrap_completion(fn: FnT, memory: Memory | AsyncMemory) -> FnT:
    """Wrap a completion function: ``litellm.completion`` + ``Memory``, or the async pair.

    Any function taking ``messages`` (by keyword, or in its parameter's position) and
    returning a chat completion works (an async one with ``AsyncMemory``). The result keeps
    ``fn``'s signature for type checkers.

    Raises:
        ConfigurationError: an async function with a sync memory, or the other way round.
    """
    is_async = _is_coroutine_function(fn)
    _check_pair(is_async, memory, fn_name=getattr(fn, "__name__", type(fn).__name__))
    if is_async:
        return cast(FnT, _async_call(fn, cast("AsyncMemory", memory)))
    return cast(FnT, _sync_call(fn, cast("Memory", memory)))


class _Completions:
    def __init__(self, completions: Any, memory: Any, is_async: bool) -> None:
        self._completions = completions
        replies = _Replies()  # shared: a reply from create() passed back to parse() is known
        for name in ("create", "parse", _STREAM_HELPER):
            method = getattr(completions, name, None)
            if method is None:
                continue
            helper = name == _STREAM_HELPER
            if is_async:
                coroutine = method if helper else _as_coroutine_function(method)
                wrapped = _async_call(coroutine, memory, helper=helper, replies=replies)
            else:
                wrapped = _sync_call(method, memory, helper=helper, replies=replies)
            setattr(self, name, wrapped)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._completions, name)


class _Chat:
    def __init__(self, chat: Any, memory: Any, is_async: bool) -> None:
        self._chat = chat
        self.completions = _Completions(chat.completions, memory, is_async)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._chat, name)


class MemoryClient:
    """An openai client whose chat completions go through a memory.

    ``chat.completions.create``, ``.parse`` and ``.stream`` send the view and record the reply;
    ``with_options(...)`` and ``copy(...)`` return a client wrapped around the same memory;
    everything else (``models``, ``embeddings``, ``api_key``...) is the wrapped client's.
    """

    def __init__(self, client: Any, memory: Any) -> None:
        self._client = client
        self.memory = memory
        self.chat = _Chat(client.chat, memory, _is_async_client(client))

    def with_options(self, *args: Any, **kwargs: Any) -> MemoryClient:
        """The wrapped client's ``with_options``, still around this memory."""
        return MemoryClient(self._client.with_options(*args, **kwargs), self.memory)

    def copy(self, *args: Any, **kwargs: Any) -> MemoryClient:
        """The wrapped client's ``copy``, still around this memory."""
        return MemoryClient(self._client.copy(*args, **kwargs), self.memory)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __repr__(self) -> str:
        return f"MemoryClient({type(self._client).__name__}, session={self._session()!r})"

    def _session(self) -> Any:
        return getattr(self.memory, "session_id", None)


def wrap_openai(client: ClientT, memory: Memory | AsyncMemory) -> ClientT:
    """Put ``memory`` around an openai client: ``OpenAI`` + ``Memory``, or the async pair.

    The result is a :class:`MemoryClient`, typed as ``client``'s own class so that editors and
    type checkers keep the SDK's signatures.

    Raises:
        ConfigurationError: an async client with a sync memory, or the other way round.
    """
    _check_pair(_is_async_client(client), memory, fn_name=type(client).__name__)
    return cast(ClientT, MemoryClient(client, memory))


def _check_pair(is_async: bool, memory: Any, *, fn_name: str) -> None:
    if is_async != _is_coroutine_function(getattr(memory, "add", None)):
        raise ConfigurationError(
            "a sync client needs a Memory and an async one an AsyncMemory (OpenAI with Memory, "
            f"AsyncOpenAI with AsyncMemory); got {fn_name} with {type(memory).__name__}"
        )


def _is_coroutine_function(fn: Any) -> bool:
    # SDK methods are wrapped by decorators that hide ``async def``; look underneath.
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(inspect.unwrap(fn))


def _is_async_client(client: Any) -> bool:
    return _is_coroutine_function(getattr(client.chat.completions, "create", None))


def _as_coroutine_function(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def call(*args: Any, **kwargs: Any) -> Any:
        return await fn(*args, **kwargs)

    return call
