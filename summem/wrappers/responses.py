"""``client.responses`` through a memory: the Responses API used statelessly.

``responses.create(input=...)`` and ``responses.stream(input=...)`` on a wrapped client record
the new input items (a string is one user message; only the new items, or the whole
conversation each time: what is already recorded is recognised), send the memory's view as
``input`` (the items as they were given, the rolling summary as a user message) and record the
response's ``output`` items, with the provider's usage on the last one. The model gets the
whole bounded history on every call, so nothing depends on the server's copy:
``previous_response_id`` and ``conversation`` are refused (the server would prepend its own,
unbounded history to the view). For reasoning models over ``store=False``, ask for
``include=["reasoning.encrypted_content"]`` so the reasoning items can be sent back.

A response is recorded once it is complete: a non-streamed one whose ``status`` is
``completed`` (or ``incomplete``, minus a trailing reasoning item that nothing followed), a
stream once its ``response.completed`` (or ``response.incomplete``) event has been read. As
with chat-completion streams (see :mod:`summem.wrappers.stream`), a stream's first complete
output item (``response.output_item.done``, or the ``response.output_text.done`` before it)
parks the reply, so that a caller who stops reading there keeps it: the items complete so far
are recorded once, at the first of the stream's end, its ``close()``, the memory's next
wrapped call or its ``close()`` (``response.completed`` read later records the whole response
instead, once; whichever settles first wins). A stream abandoned before any complete item,
ending in ``response.failed`` or ``error``, or cut by an exception while it is read (a dropped
connection: the response may have had more items, and the app retries), records nothing; the
input items recorded before the call stay.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from summem.errors import ConfigurationError
from summem.formats.responses import item_dict, to_messages
from summem.messages import MODEL_REPLY
from summem.wrappers.pairing import paired_items
from summem.wrappers.passing import AsyncManaged, AsyncPassing, Managed, Passing, Proxy
from summem.wrappers.quiet import acall_quietly, call_quietly, quieted, secrets_of
from summem.wrappers.turn import (
    TurnOptions,
    as_coroutine_function,
    keep_reply,
    keep_reply_async,
    park,
    settle,
    settle_async,
)

if TYPE_CHECKING:
    from summem.async_memory import AsyncMemory
    from summem.memory import Memory

__all__ = ["MemoryResponses", "output_items", "response_usage"]

logger = logging.getLogger("summem")

_STATEFUL = ("previous_response_id", "conversation", "response_id")


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def response_usage(response: Any) -> dict[str, int] | None:
    """A response's usage in summem's (chat-completions) names, or ``None``."""
    usage = _get(response, "usage")
    if usage is None:
        return None
    names = {"input_tokens": "prompt_tokens", "output_tokens": "completion_tokens"}
    out = {}
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        value = _get(usage, key)
        if isinstance(value, int):
            out[names.get(key, key)] = value
    return out or None


def output_items(response: Any) -> list[dict[str, Any]]:
    """The items to record from a response: its output, once it is complete."""
    status = _get(response, "status")
    if status not in (None, "completed", "incomplete"):
        return []  # failed, cancelled, still in progress: nothing the model finished saying
    items = [_without_sdk_fields(item_dict(i)) for i in _get(response, "output") or ()]
    while status == "incomplete" and items and items[-1].get("type") == "reasoning":
        items.pop()  # cut off while reasoning: a reasoning item needs the item it led to
    return items


_SDK_FIELDS = ("parsed", "parsed_arguments")
"""Set by the SDK's ``parse``/``stream`` helpers on output items; not the API's, never sent."""


def _without_sdk_fields(item: dict[str, Any]) -> dict[str, Any]:
    for key in _SDK_FIELDS:
        item.pop(key, None)
    for part in item.get("content") or ():
        if isinstance(part, dict):
            for key in _SDK_FIELDS:
                part.pop(key, None)
    return item


def _input(kwargs: dict[str, Any]) -> Any:
    for name in _STATEFUL:
        if isinstance(kwargs.get(name), (str, Mapping)):
            raise ConfigurationError(
                f"{name}= cannot be used through summem: the memory sends the whole bounded "
                "history as input, and the server would prepend its own copy; pass only the "
                "new input items"
            )
    new = kwargs.get("input", [])
    if not isinstance(new, (str, list, tuple)):
        new = []  # the SDK's ``omit``/``NOT_GIVEN``: nothing new
    return new


def _repaired(session_id: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The view's items with each function call paired with its output (see ``pairing``)."""
    sent = paired_items(items)
    if sent is not items and (
        len(sent) != len(items) or any(a is not b for a, b in zip(sent, items, strict=True))
    ):
        logger.debug(
            "session %r: function calls re-paired in the input (%d items stored, %d sent)",
            session_id,
            len(items),
            len(sent),
        )
    return sent


def _reply_messages(items: list[dict[str, Any]], usage: dict[str, int] | None) -> list[Any]:
    msgs = [m.with_meta(**{MODEL_REPLY: True}) for m in to_messages(items)]
    if msgs and usage:
        msgs[-1] = msgs[-1].with_meta(usage=usage)
    return msgs


def sync_responses_call(
    fn: Callable[..., Any], memory: Memory, options: TurnOptions, *, helper: bool = False
) -> Callable[..., Any]:
    """``fn`` (``responses.create`` or ``.stream``) as one turn of ``memory``."""

    def call(*args: Any, **kwargs: Any) -> Any:
        new = to_messages(_input(kwargs))
        settle(memory)
        memory.record(new, mode=options.mode)
        kwargs = {**kwargs, "input": _repaired(memory.session_id, memory.items())}

        def record(response: Any) -> None:
            reply = _reply_messages(output_items(response), response_usage(response))
            keep_reply(partial(memory.extend, reply))

        response = call_quietly(fn, args, kwargs)
        if helper:
            return quieted(_Manager(response, record, park(memory)), fn, kwargs)
        if kwargs.get("stream"):
            return quieted(_EventStream(response, record, park(memory)), fn, kwargs)
        record(response)
        return response

    return call


def async_responses_call(
    fn: Callable[..., Awaitable[Any]],
    memory: AsyncMemory,
    options: TurnOptions,
    *,
    helper: bool = False,
) -> Callable[..., Any]:
    """The async twin of :func:`sync_responses_call`."""

    async def prepare(kwargs: dict[str, Any]) -> tuple[dict[str, Any], AsyncRecord]:
        new = to_messages(_input(kwargs))
        await settle_async(memory)
        await memory.record(new, mode=options.mode)
        kwargs = {**kwargs, "input": _repaired(memory.session_id, await memory.items())}

        async def record(response: Any) -> None:
            reply = _reply_messages(output_items(response), response_usage(response))
            await keep_reply_async(partial(memory.extend, reply))

        return kwargs, record

    async def acall(*args: Any, **kwargs: Any) -> Any:
        kwargs, record = await prepare(kwargs)
        response = await acall_quietly(fn, args, kwargs)
        if kwargs.get("stream"):
            return quieted(_AsyncEventStream(response, record, park(memory)), fn, kwargs)
        await record(response)
        return response

    if not helper:
        return acall

    def open_stream(*args: Any, **kwargs: Any) -> _AsyncManager:
        # ``AsyncResponses.stream`` is a plain method returning an async context manager;
        # the memory is only touched once it is entered.
        return _AsyncManager(fn, args, kwargs, prepare, park(memory))

    return open_stream


AsyncRecord = Callable[[Any], Awaitable[None]]


_FINAL_EVENTS = ("response.completed", "response.incomplete")
"""The events that end a stream with a response to record: complete, or stopped at its output
limit (recorded as a non-streamed ``incomplete`` response is); ``response.failed`` is not one."""

_FAILED_EVENTS = ("response.failed", "error")
"""Events after which nothing of the stream is recorded (as for a failed response)."""


def _completed(event: Any) -> Any:
    """The response a ``response.completed`` or ``.incomplete`` event carries, else ``None``."""
    return _get(event, "response") if _get(event, "type") in _FINAL_EVENTS else None


class _Items:
    """The output items a stream has completed so far, by their ``output_index``.

    An item is complete at its ``response.output_item.done``; a message's text is complete at
    its ``response.output_text.done``, which comes a few events earlier (a caller may stop
    there, as the SDK's helper lets it): the message is then rebuilt from its
    ``output_item.added`` and that text until its ``output_item.done`` replaces it.
    """

    def __init__(self) -> None:
        self.added: dict[int, dict[str, Any]] = {}
        self.done: dict[int, dict[str, Any]] = {}
        self.failed = False

    def feed(self, event: Any) -> bool:
        """Take one event into account; whether it completed an item."""
        kind = _get(event, "type")
        index = _get(event, "output_index")
        if kind in _FAILED_EVENTS:
            self.failed = True
        if not isinstance(index, int):
            return False
        if kind == "response.output_item.added" and _get(event, "item") is not None:
            self.added[index] = _without_sdk_fields(item_dict(_get(event, "item")))
        elif kind == "response.output_item.done" and _get(event, "item") is not None:
            self.done[index] = _without_sdk_fields(item_dict(_get(event, "item")))
            return True
        elif kind == "response.output_text.done" and index not in self.done:
            text = _get(event, "text")
            item = self.added.get(index)
            if isinstance(text, str) and item is not None and item.get("type") == "message":
                part = {"type": "output_text", "text": text, "annotations": []}
                self.done[index] = {**item, "status": "completed", "content": [part]}
                return True
        return False

    def output(self) -> list[dict[str, Any]]:
        """The complete items in order, as an ``incomplete`` response's output is recorded."""
        partial_response = {
            "status": "incomplete",
            "output": [self.done[i] for i in sorted(self.done)],
        }
        return output_items(partial_response)


class _Reply:
    """A streamed response's reply, recorded once (sync; thread-safe as ``StreamReply``)."""

    def __init__(self, record: Callable[[Any], None]) -> None:
        self.items = _Items()
        self._record = record
        self._lock = threading.Lock()
        self.done = False

    def _take(self) -> bool:
        with self._lock:
            if self.done:
                return False
            self.done = True
            return True

    def complete(self, response: Any) -> None:
        """Record the whole response (``response.completed``), unless recorded already."""
        if self._take():
            self._record(response)

    def feed(self, event: Any) -> bool:
        """Take one event into account (under the lock ``finish`` reads the items with)."""
        with self._lock:
            return self.items.feed(event)

    def finish(self) -> None:
        """Record the complete items, if any came and nothing is recorded yet."""
        with self._lock:
            if self.done or not self.items.done or self.items.failed:
                return
            self.done = True
            output = self.items.output()
        if output:  # not a lone reasoning item
            self._record({"output": output})


class _AsyncReply:
    """The async twin of :class:`_Reply` (one event loop: no lock needed)."""

    def __init__(self, record: AsyncRecord) -> None:
        self.items = _Items()
        self._record = record
        self.done = False

    async def complete(self, response: Any) -> None:
        """See :meth:`_Reply.complete`."""
        if not self.done:
            self.done = True
            await self._record(response)

    def feed(self, event: Any) -> bool:
        """See :meth:`_Reply.feed`."""
        return self.items.feed(event)

    async def finish(self) -> None:
        """See :meth:`_Reply.finish`."""
        if self.items.done and not self.items.failed and not self.done:
            self.done = True
            output = self.items.output()
            if output:
                await self._record({"output": output})


Park = Callable[[Any], None]


class _Events:
    """What a Responses stream's events mean: the output, recorded once it is complete."""

    _reply: _Reply | _AsyncReply
    _park: Park | None

    def _took(self, event: Any) -> Callable[[], Any] | None:
        response = _completed(event)
        if response is not None:
            return partial(self._reply.complete, response)
        if self._reply.feed(event) and self._park is not None:
            self._park(self._reply)  # parked once, at its first complete item
            self._park = None
        return None

    def _cut(self) -> None:
        self._reply.items.failed = True  # cut by an error: the app retries, nothing recorded


class _EventStream(_Events, Passing):
    """Responses events, passed through; the output is recorded once it is complete."""

    _reply: _Reply

    def __init__(self, stream: Any, record: Callable[[Any], None], park: Park) -> None:
        self._inner = stream
        self._reply = _Reply(record)
        self._park = park

    def finish(self) -> None:
        """Record the items complete so far, unless the output is recorded already (once)."""
        self._reply.finish()

    def until_done(self) -> _EventStream:
        """Read the stream to its end (which records the output)."""
        for _ in self:
            pass
        return self

    def get_final_response(self) -> Any:
        """The SDK's final response, once the stream is read (and the output recorded)."""
        self.until_done()
        with self._quiet():
            return self._inner.get_final_response()


class _Manager(Managed, Proxy):
    """``with client.responses.stream(...) as stream``: records the completed output."""

    def __init__(self, manager: Any, record: Callable[[Any], None], park: Park) -> None:
        self._inner, self._record, self._park = manager, record, park

    def _open(self, stream: Any) -> _EventStream:
        return _EventStream(stream, self._record, self._park)


class _AsyncEventStream(_Events, AsyncPassing):
    """The async twin of :class:`_EventStream`."""

    _reply: _AsyncReply

    def __init__(self, stream: Any, record: AsyncRecord, park: Park) -> None:
        self._inner = stream
        self._reply = _AsyncReply(record)
        self._park = park

    async def finish(self) -> None:
        """See :meth:`_EventStream.finish`."""
        await self._reply.finish()

    async def until_done(self) -> _AsyncEventStream:
        """Read the stream to its end (which records the output)."""
        async for _ in self:
            pass
        return self

    async def get_final_response(self) -> Any:
        """The SDK's final response, once the stream is read (and the output recorded)."""
        await self.until_done()
        with self._quiet():
            return await self._inner.get_final_response()


class _AsyncManager(AsyncManaged):
    """``async with``: record the new input, then open the SDK's stream over the view."""

    def __init__(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        prepare: Callable[[dict[str, Any]], Awaitable[tuple[dict[str, Any], AsyncRecord]]],
        park: Park,
    ) -> None:
        self._fn, self._args, self._kwargs, self._prepare = fn, args, kwargs, prepare
        self._park = park
        self._inner = None  # the SDK's manager, made once the memory is ready

    async def __aenter__(self) -> _AsyncEventStream:
        kwargs, record = await self._prepare(self._kwargs)
        self._secrets = secrets_of(self._fn, kwargs)
        with self._quiet():  # the SDK's manager sends its request when entered
            self._inner = self._fn(*self._args, **kwargs)
            inner = await self._inner.__aenter__()
        self._stream = stream = _AsyncEventStream(inner, record, self._park)
        stream._secrets = self._secrets
        return stream


class MemoryResponses:
    """``client.responses`` whose ``create``, ``parse`` and ``stream`` go through a memory."""

    def __init__(self, responses: Any, memory: Any, is_async: bool, options: TurnOptions) -> None:
        self._responses = responses
        for name in ("create", "parse", "stream"):
            method = getattr(responses, name, None)
            if method is None:
                continue
            helper = name == "stream"
            wrapped: Callable[..., Any]
            if is_async:
                coroutine = method if helper else as_coroutine_function(method)
                wrapped = async_responses_call(coroutine, memory, options, helper=helper)
            else:
                wrapped = sync_responses_call(method, memory, options, helper=helper)
            setattr(self, name, wrapped)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._responses, name)
