"""``SummemMiddleware`` and ``pre_model_hook``: the agent's state followed into a memory.

See :mod:`summem.integrations.langchain`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from summem.errors import ConfigurationError
from summem.integrations._shared import missing, placement_of, split_head
from summem.integrations._window import RecordedKeys, Window, follow, follow_any, shown
from summem.messages import MODEL_REPLY
from summem.session.recorded import fingerprint

try:
    from langchain.agents.middleware import AgentMiddleware, AgentState
    from langchain_core.messages import AIMessage, BaseMessage, RemoveMessage, SystemMessage
except ImportError as exc:  # pragma: no cover - exercised with the package hidden
    raise missing("langchain", "langchain", exc) from exc

from summem.integrations.langchain.messages import (
    META_KEY,
    from_langchain,
    view_messages,
)

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest, ModelResponse
    from langchain.agents.middleware.types import ExtendedModelResponse
    from langgraph.runtime import Runtime

    from summem.async_memory import AsyncMemory
    from summem.memory import Memory
    from summem.messages import Message
    from summem.session.recorded import Mode

__all__ = ["LANGCHAIN_SUMMARY", "SummemMiddleware", "message_key", "pre_model_hook"]

# -- the middleware -------------------------------------------------------------------------

LANGCHAIN_SUMMARY = "summarization"
"""``additional_kwargs["lc_source"]`` of the summary LangChain's SummarizationMiddleware writes."""


def message_key(message: Message) -> tuple[Any, Any]:
    """A recorded message's key: its LangChain id (if any) and what a provider sees of it."""
    extra = message.meta.get(META_KEY) or {}
    return extra.get("id"), fingerprint(message)


def _check_not_summarized(messages: Sequence[BaseMessage]) -> None:
    for i, m in enumerate(messages):
        if m.additional_kwargs.get("lc_source") == LANGCHAIN_SUMMARY:
            raise ConfigurationError(
                f"message {i} of the agent state is a summary written by LangChain's "
                "SummarizationMiddleware, which replaced the state's messages: it and "
                "SummemMiddleware both summarize the conversation; use one of them"
            )


def _thread_id() -> str | None:
    """The running LangGraph call's ``thread_id`` (``None``: none, or not in a graph)."""
    try:
        from langgraph.config import get_config

        config = get_config()
    except (ImportError, RuntimeError):  # outside a runnable context
        return None
    thread = (config.get("configurable") or {}).get("thread_id")
    return None if thread is None else str(thread)


class _OneThread:
    """The one LangGraph ``thread_id`` a memory follows: another one is refused."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.thread: str | None = None

    def check(self) -> None:
        """Remember the first ``thread_id`` seen; refuse another one.

        Raises:
            ConfigurationError: naming both thread ids (nothing is recorded).
        """
        thread = _thread_id()
        if thread is None:
            return
        if self.thread is None:
            self.thread = thread
        elif thread != self.thread:
            raise ConfigurationError(
                f"this {self.owner} follows LangGraph thread_id {self.thread!r} and was called "
                f"for thread_id {thread!r}: one memory is one conversation, and each thread "
                "would branch the other away; use one memory (and one "
                f"{self.owner}, one agent) per thread; nothing was recorded"
            )


def _incoming(request: ModelRequest[Any]) -> list[Message]:
    _check_not_summarized(request.messages)
    head = [request.system_message] if request.system_message is not None else []
    return [from_langchain(m) for m in [*head, *request.messages]]


def _replies(response: ModelResponse[Any]) -> list[Message]:
    """What the model answered (LangChain gives inner middleware's answers as a ModelResponse).

    Marked :data:`~summem.messages.MODEL_REPLY`: with ``mode="auto"`` a state resending them
    proves it is the whole conversation (an edit then branches), as through the wrappers.
    """
    return [from_langchain(m).with_meta(**{MODEL_REPLY: True}) for m in response.result]


def _trimmed(state: Any, recorded: RecordedKeys, view: list[Message]) -> dict[str, Any] | None:
    """``RemoveMessage`` for the state's messages before the view's tail (all recorded)."""
    tail = split_head(view)[2]
    if not recorded.matches(tail):
        return None  # another writer changed the history: trim on a later call
    w = len(recorded.keys) - len(tail)
    if w == 0 or not tail:
        return None
    first = cast("tuple[Any, Any]", recorded.keys[w])[0]
    messages = _state_messages(state)
    ids = [m.id for m in messages]
    if first is None or first not in ids:
        return None
    cut = ids.index(first)
    removed = [
        RemoveMessage(id=m.id)
        for m in messages[:cut]
        if m.id is not None and not isinstance(m, SystemMessage)
    ]
    return {"messages": removed} if removed else None


class SummemMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """Agent middleware bounding the model's input with a summem memory.

    Args:
        memory: the session's :class:`~summem.Memory` (for ``invoke``; ``ainvoke`` runs its
            calls in a thread) or :class:`~summem.AsyncMemory` (for ``ainvoke`` only).
        trim_state: after each model call, remove from the agent state (``RemoveMessage``)
            the messages the store holds and the view no longer shows, so the state and its
            checkpoints stay bounded. Off by default: the state stays the whole
            conversation, as with any middleware that only changes the model's input.
        mode: ``None`` (default): the state is the conversation, and a state that differs
            from what is recorded branches the session (see the module). ``"auto"``,
            ``"new"`` or ``"full"``: read the messages by content as
            :meth:`summem.Memory.record` does instead (``"auto"`` lets a state holding only
            the new messages continue the memory's conversation).

    The view's system message is sent as the request's system message; the summary goes where
    the reducer's ``summary_placement`` says.

    A state (``thread_id``) none of whose messages the memory holds, not even under their
    ids (no checkpointer, only the new message passed), is new messages: they are appended
    and the model is sent the view, the memory supplying the past. With a checkpointer, time
    travel, a regenerate, ``update_state`` and ``RemoveMessage`` branch (see the module).

    Raises (on a model call):
        ConfigurationError: LangChain's ``SummarizationMiddleware`` summarized the state (its
            summary replaced the messages): use one summarizer. Or the call is for another
            LangGraph ``thread_id`` than the first one this middleware saw (one memory per
            thread; the error names both).
    """

    def __init__(
        self,
        memory: Memory | AsyncMemory,
        *,
        trim_state: bool = False,
        mode: Mode | None = None,
    ) -> None:
        super().__init__()
        if not callable(getattr(memory, "view", None)):
            raise ConfigurationError(f"SummemMiddleware needs a summem Memory, got {memory!r}")
        if trim_state and mode is not None:
            raise ConfigurationError(
                f"SummemMiddleware(trim_state=True) follows the state by message id, which "
                f"mode={mode!r} does not: leave mode unset (None) to trim the state"
            )
        self.memory = memory
        self.trim_state = trim_state
        self.mode: Mode | None = mode
        self._placement = placement_of(memory)
        self._recorded = RecordedKeys()
        self._thread = _OneThread("SummemMiddleware")

    def _bounded(
        self, request: ModelRequest[Any], view: list[Message], window: Window | None
    ) -> ModelRequest[Any]:
        if window is not None:
            view = shown(view, window)
        system, messages = view_messages(view, self._placement)
        return request.override(system_message=system, messages=cast("list[Any]", messages))

    def _sync_memory(self) -> Memory:
        from summem.memory import Memory

        if not isinstance(self.memory, Memory):
            raise ConfigurationError(
                "this agent was called synchronously (invoke/stream) but its SummemMiddleware "
                "holds an AsyncMemory: use ainvoke/astream, or pass a Memory"
            )
        return self.memory

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        """Record the request's messages, call the model with the view, record the reply."""
        memory = self._sync_memory()
        self._thread.check()
        window = None
        if self.mode is None:
            window = follow(
                memory, self._recorded, _incoming(request), message_key, resume="unmatched"
            )
        else:
            memory.record(_incoming(request), mode=self.mode)
        response = handler(self._bounded(request, memory.view(), window))
        with self._recorded.lock:
            self._keep(memory.extend(_replies(response)))
        return response

    def _keep(self, stored: list[Message]) -> None:
        if self._recorded.loaded:
            self._recorded.extend(stored, message_key)

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        """The async twin of :meth:`wrap_model_call`."""
        from summem.async_memory import AsyncMemory

        self._thread.check()
        incoming = _incoming(request)
        memory = self.memory
        window = None
        if self.mode is None:
            window = await follow_any(
                memory, self._recorded, incoming, message_key, resume="unmatched"
            )
        elif isinstance(memory, AsyncMemory):
            await memory.record(incoming, mode=self.mode)
        else:
            await asyncio.to_thread(memory.record, incoming, mode=self.mode)
        if isinstance(memory, AsyncMemory):
            response = await handler(self._bounded(request, await memory.view(), window))
            self._keep(await memory.extend(_replies(response)))
            return response
        view = await asyncio.to_thread(memory.view)
        response = await handler(self._bounded(request, view, window))
        self._keep(await asyncio.to_thread(memory.extend, _replies(response)))
        return response

    def after_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """With ``trim_state``: remove what the store holds and the view no longer shows."""
        if not self.trim_state:
            return None
        memory = self._sync_memory()
        view = memory.view()
        with self._recorded.lock:
            return _trimmed(state, self._recorded, view)

    async def aafter_model(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """The async twin of :meth:`after_model`."""
        from summem.async_memory import AsyncMemory

        if not self.trim_state:
            return None
        memory = self.memory
        if isinstance(memory, AsyncMemory):
            return _trimmed(state, self._recorded, await memory.view())
        view = await asyncio.to_thread(memory.view)
        return _trimmed(state, self._recorded, view)


# -- LangGraph's create_react_agent ------------------------------------------------------------


def pre_model_hook(memory: Memory | AsyncMemory, *, mode: Mode | None = None) -> Any:
    """A ``pre_model_hook`` for LangGraph's ``create_react_agent`` (LangGraph before 1.0 style).

    Follows the state's messages into the memory as :class:`SummemMiddleware` does (``mode``
    likewise) and returns the view as ``llm_input_messages`` (the state is not changed). The
    model's replies are recorded when the next call brings them back, so the last answer of a
    run is recorded on the next run. Sync with a ``Memory`` (async too, in a worker thread);
    async only with an ``AsyncMemory``.
    """
    from langchain_core.runnables import RunnableLambda

    from summem.async_memory import AsyncMemory

    placement = placement_of(memory)
    recorded = RecordedKeys()
    thread = _OneThread("pre_model_hook")

    def output(view: list[Message], window: Window | None) -> dict[str, Any]:
        system, messages = view_messages(view if window is None else shown(view, window), placement)
        return {"llm_input_messages": [system, *messages] if system is not None else messages}

    def incoming_of(state: Any) -> list[Message]:
        messages = _state_messages(state)
        _check_not_summarized(messages)
        return [from_langchain(m) for m in messages]

    def hook(state: Any) -> dict[str, Any]:
        thread.check()
        if isinstance(memory, AsyncMemory):
            raise ConfigurationError(
                "this pre_model_hook holds an AsyncMemory: use ainvoke/astream, or pass a Memory"
            )
        if mode is not None:
            memory.record(incoming_of(state), mode=mode)
            return output(memory.view(), None)
        window = follow(memory, recorded, incoming_of(state), message_key, resume="unmatched")
        return output(memory.view(), window)

    async def ahook(state: Any) -> dict[str, Any]:
        thread.check()
        incoming = incoming_of(state)
        if mode is None:
            window = await follow_any(memory, recorded, incoming, message_key, resume="unmatched")
        elif isinstance(memory, AsyncMemory):
            window = None
            await memory.record(incoming, mode=mode)
        else:
            window = None
            await asyncio.to_thread(memory.record, incoming, mode=mode)
        if isinstance(memory, AsyncMemory):
            return output(await memory.view(), window)
        return output(await asyncio.to_thread(memory.view), window)

    return RunnableLambda(hook, afunc=ahook, name="summem_pre_model_hook")


def _state_messages(state: Any) -> list[BaseMessage]:
    messages = state.get("messages") if isinstance(state, dict) else state.messages
    return list(messages or [])
