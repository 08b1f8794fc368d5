"""One wrapped call is one turn: record the new messages, send the view, record the reply.

Shared by every wrapper (openai clients, litellm's functions), sync and async: the new messages
are found in the call's arguments (``messages=`` or its position), recorded, replaced by the
memory's view, and the reply (tool calls included, with the provider's usage in its ``meta``)
is recorded once the call returns, or once a stream has been read to its end (see
:mod:`summem.wrappers.stream`). New messages are recorded before the call: if the call fails
they stay in the session (they were said), and calling again with ``messages=[]`` resends the
view.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from summem.exceptions import ConfigurationError
from summem.messages import sdk_message_dict
from summem.wrappers.stream import (
    AsyncRecordingEventStreamManager,
    AsyncRecordingStream,
    RecordingEventStreamManager,
    RecordingStream,
    reply_message,
    usage_of,
)

if TYPE_CHECKING:
    from summem.async_memory import AsyncMemory
    from summem.memory import Memory
    from summem.messages import Message

__all__ = [
    "Replies",
    "as_coroutine_function",
    "async_call",
    "check_pair",
    "is_coroutine_function",
    "sync_call",
]


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


class Replies:
    """Drops the reply summem recorded if the application passes it back as a new message.

    The openai tool-calling recipe appends ``response.choices[0].message`` before the tool
    results; the wrapper has already recorded that reply, so it is not recorded twice.
    """

    def __init__(self) -> None:
        self.last: dict[str, Any] | None = None

    def new(self, messages: list[Any]) -> list[Any]:
        """``messages`` without a leading copy of the reply recorded last."""
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


def sync_call(
    fn: Callable[..., Any], memory: Memory, *, helper: bool = False, replies: Replies | None = None
) -> Any:
    """``fn`` as one turn of ``memory`` (``helper``: ``fn`` returns a stream manager)."""
    position = _messages_position(fn)
    replies = replies or Replies()

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


def async_call(
    fn: Callable[..., Awaitable[Any]],
    memory: AsyncMemory,
    *,
    helper: bool = False,
    replies: Replies | None = None,
) -> Any:
    """The async twin of :func:`sync_call`."""
    position = _messages_position(fn)
    replies = replies or Replies()

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
        replies: Replies,
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


def check_pair(is_async: bool, memory: Any, *, fn_name: str) -> None:
    """Refuse an async client with a sync memory, or the other way round."""
    if is_async != is_coroutine_function(getattr(memory, "add", None)):
        raise ConfigurationError(
            "a sync client needs a Memory and an async one an AsyncMemory (OpenAI with Memory, "
            f"AsyncOpenAI with AsyncMemory); got {fn_name} with {type(memory).__name__}"
        )


def is_coroutine_function(fn: Any) -> bool:
    """True for an ``async def`` function, also under the SDK's decorators."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(inspect.unwrap(fn))


def as_coroutine_function(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """``fn`` as a plain ``async def`` function (SDK methods hide theirs under decorators)."""

    async def call(*args: Any, **kwargs: Any) -> Any:
        return await fn(*args, **kwargs)

    return call
