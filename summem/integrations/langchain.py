"""summem as LangChain v1 agent middleware: the model sees a bounded view, the store keeps all.

    from langchain.agents import create_agent
    from summem.integrations.langchain import SummemMiddleware

    agent = create_agent(model, tools=[...], middleware=[SummemMiddleware(Memory("user-42"))])

Before each model call, the request's messages (the agent state's conversation, plus the
system prompt) are followed into the memory (see :mod:`summem.integrations._window`): what is
recorded is recognised by message id and content; a state that goes back to an earlier point
(time travel to a checkpoint, a regenerate, ``update_state`` editing a message, a
``RemoveMessage`` in the middle) **branches** the session there, the rest recorded anew and the
abandoned turns kept as a branch (``memory.branches()``), never sent again; a state whose oldest
messages were removed is a window onto the history (the model is not sent what it dropped). The
model is called with the memory's view: the system message, the summary, the recent turns,
never a tool call without its results. The reply is recorded once the call returns.

By default the agent's state is left as it is (the middleware only changes what the model is
sent). With ``trim_state=True``, after each model call the messages the store holds and the view
no longer shows are removed from the state (``RemoveMessage``), so state and checkpoints stay
bounded; the store keeps them (``memory.history()``).

Messages convert to chat-completions messages and back without loss: ids, names, tool calls
with their arguments, ``additional_kwargs``, ``response_metadata``, usage, artifacts and status
are kept in the summem message's ``meta`` (never sent to a provider) and given back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from summem.errors import ConfigurationError, MessageValidationError
from summem.integrations._shared import (
    dump_arguments,
    load_arguments,
    missing,
    placement_of,
    split_head,
)
from summem.integrations._window import RecordedKeys, Window, follow, follow_any, shown
from summem.messages import Message
from summem.reducers.view import SUMMARY_END
from summem.session.recorded import fingerprint

try:
    from langchain.agents.middleware import AgentMiddleware, AgentState
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        ChatMessage,
        HumanMessage,
        RemoveMessage,
        SystemMessage,
        ToolMessage,
    )
except ImportError as exc:  # pragma: no cover - exercised with the package hidden
    raise missing("langchain", "langchain", exc) from exc

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest, ModelResponse
    from langchain.agents.middleware.types import ExtendedModelResponse
    from langgraph.runtime import Runtime

    from summem.async_memory import AsyncMemory
    from summem.memory import Memory
    from summem.reducers.view import SummaryPlacement
    from summem.session.recorded import Mode

__all__ = ["SummemMiddleware", "from_langchain", "pre_model_hook", "to_langchain", "view_messages"]

META_KEY = "langchain"
"""The key of :attr:`Message.meta <summem.messages.Message.meta>` holding LangChain's fields."""

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}
_CHAT_ROLES = frozenset(("system", "developer", "user", "assistant"))


# -- conversion ------------------------------------------------------------------------------


def _content_out(content: str | list[str | dict[Any, Any]]) -> tuple[Any, list[int]]:
    """Chat-completions content, and where the list held bare strings (text parts here)."""
    if isinstance(content, str):
        return content, []
    parts: list[dict[str, Any]] = []
    bare: list[int] = []
    for i, part in enumerate(content):
        if isinstance(part, str):
            parts.append({"type": "text", "text": part})
            bare.append(i)
        else:
            parts.append(dict(part))
    return parts, bare


def _content_in(content: Any, bare: Sequence[int]) -> str | list[str | dict[Any, Any]]:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    out: list[str | dict[Any, Any]] = [dict(p) for p in content]
    for i in bare:
        out[i] = str(content[i].get("text", ""))
    return out


def from_langchain(message: BaseMessage) -> Message:
    """A LangChain message as a summem :class:`~summem.messages.Message` (lossless).

    Raises:
        MessageValidationError: a message type with no chat-completions form (e.g. a
            ``FunctionMessage``), a tool call without an id, or a value that is not JSON
            (naming the field).
    """
    kind = message.type
    if isinstance(message, ChatMessage) and message.role in _CHAT_ROLES:
        role = message.role
    elif kind in _ROLES and not isinstance(message, ChatMessage):
        role = _ROLES[kind]
    else:
        raise MessageValidationError(
            f"a LangChain {type(message).__name__} has no chat-completions form; use "
            "SystemMessage, HumanMessage, AIMessage or ToolMessage"
        )
    content, bare = _content_out(message.content)
    data: dict[str, Any] = {"role": role, "content": content}
    extra: dict[str, Any] = {"type": kind}
    if message.name is not None:
        data["name"] = message.name
    if message.id is not None:
        extra["id"] = message.id
    if message.additional_kwargs:
        extra["additional_kwargs"] = message.additional_kwargs
    if message.response_metadata:
        extra["response_metadata"] = message.response_metadata
    if bare:
        extra["bare_strings"] = bare
    if isinstance(message, ChatMessage):
        extra["role"] = message.role
    elif isinstance(message, AIMessage):
        calls = []
        for i, call in enumerate(message.tool_calls):
            if not call.get("id"):
                raise MessageValidationError(
                    f"tool call {call.get('name')!r} has no id: summem pairs calls with "
                    "their results by id",
                    field=f"tool_calls[{i}].id",
                )
            arguments = dump_arguments(call["args"], field=f"tool_calls[{i}].args")
            function = {"name": call["name"], "arguments": arguments}
            calls.append({"id": call["id"], "type": "function", "function": function})
        if calls:
            data["tool_calls"] = calls
        if message.invalid_tool_calls:
            extra["invalid_tool_calls"] = [dict(c) for c in message.invalid_tool_calls]
        if message.usage_metadata is not None:
            extra["usage_metadata"] = dict(message.usage_metadata)
    elif isinstance(message, ToolMessage):
        data["tool_call_id"] = message.tool_call_id
        if message.artifact is not None:
            extra["artifact"] = message.artifact
        if message.status != "success":
            extra["status"] = message.status
    return Message.from_openai(data).with_meta(**{META_KEY: extra})


def to_langchain(message: Message) -> BaseMessage:
    """A summem message as a LangChain message: the original one for what came from LangChain.

    Messages from elsewhere (summem's summary, a masked tool result's stub, messages added as
    dicts) get the LangChain type of their role and the summem message's id.
    """
    extra: dict[str, Any] = message.meta.get(META_KEY) or {}
    common: dict[str, Any] = {
        "content": _content_in(message.content, extra.get("bare_strings", ())),
        "id": extra.get("id") if extra else message.id,
        "name": message.name,
        "additional_kwargs": dict(extra.get("additional_kwargs") or {}),
        "response_metadata": dict(extra.get("response_metadata") or {}),
    }
    kind = extra.get("type")
    if kind == "chat":
        return ChatMessage(role=extra["role"], **common)
    if message.role == "assistant":
        calls, invalid = [], list(extra.get("invalid_tool_calls") or [])
        for call in message.tool_calls or []:
            function = call.get("function") or {}
            args, error = load_arguments(function.get("arguments"))
            if args is None:
                invalid.append(
                    {
                        "type": "invalid_tool_call",
                        "id": call.get("id"),
                        "name": function.get("name"),
                        "args": function.get("arguments"),
                        "error": error,
                    }
                )
            else:
                calls.append(
                    {
                        "type": "tool_call",
                        "id": call.get("id"),
                        "name": function.get("name"),
                        "args": args,
                    }
                )
        return AIMessage(
            **common,
            tool_calls=calls,
            invalid_tool_calls=invalid,
            usage_metadata=extra.get("usage_metadata"),
        )
    if message.role == "tool":
        tool_extra: dict[str, Any] = {"status": extra.get("status", "success")}
        if "artifact" in extra:
            tool_extra["artifact"] = extra["artifact"]
        return ToolMessage(tool_call_id=message.tool_call_id or "", **common, **tool_extra)
    if message.is_system:
        if kind is None and message.role == "developer":
            return ChatMessage(role="developer", **common)
        return SystemMessage(**common)
    return HumanMessage(**common)


def _with_text_before(message: BaseMessage, text: str) -> BaseMessage:
    content = message.content
    if isinstance(content, str):
        return message.model_copy(update={"content": text + content})
    return message.model_copy(update={"content": [{"type": "text", "text": text}, *content]})


def view_messages(
    view: list[Message], placement: SummaryPlacement = "after_system"
) -> tuple[SystemMessage | None, list[BaseMessage]]:
    """The view as ``(system message, messages)`` for a LangChain model request."""
    system_msg, summary, tail = split_head(view)
    system = cast("SystemMessage", to_langchain(system_msg)) if system_msg is not None else None
    messages = [to_langchain(m) for m in tail]
    if summary is None:
        return system, messages
    if placement == "system_suffix":
        if system is None:
            return SystemMessage(summary.text, id=summary.id), messages
        text = "\n\n" + summary.text if system.text else summary.text
        content = system.content
        if isinstance(content, str):
            return system.model_copy(update={"content": content + text}), messages
        new = [*content, {"type": "text", "text": text}]
        return system.model_copy(update={"content": new}), messages
    if placement == "first_user" and messages and isinstance(messages[0], HumanMessage):
        return system, [_with_text_before(messages[0], summary.text + SUMMARY_END), *messages[1:]]
    return system, [HumanMessage(summary.text, id=summary.id), *messages]


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


def _incoming(request: ModelRequest[Any]) -> list[Message]:
    _check_not_summarized(request.messages)
    head = [request.system_message] if request.system_message is not None else []
    return [from_langchain(m) for m in [*head, *request.messages]]


def _replies(response: ModelResponse[Any]) -> list[Message]:
    """What the model answered (LangChain gives inner middleware's answers as a ModelResponse)."""
    return [from_langchain(m) for m in response.result]


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
            ``"new"`` or ``"full"``: read the messages as :meth:`summem.Memory.record` does
            instead (no branches; ``"auto"`` lets a state holding only the new messages
            continue the memory's conversation).

    The view's system message is sent as the request's system message; the summary goes where
    the reducer's ``summary_placement`` says.

    Raises (on a model call):
        ConfigurationError: LangChain's ``SummarizationMiddleware`` summarized the state (its
            summary replaced the messages): use one summarizer.
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
        window = None
        if self.mode is None:
            window = follow(memory, self._recorded, _incoming(request), message_key)
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

        incoming = _incoming(request)
        memory = self.memory
        window = None
        if self.mode is None:
            window = await follow_any(memory, self._recorded, incoming, message_key)
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

    def output(view: list[Message], window: Window | None) -> dict[str, Any]:
        system, messages = view_messages(view if window is None else shown(view, window), placement)
        return {"llm_input_messages": [system, *messages] if system is not None else messages}

    def incoming_of(state: Any) -> list[Message]:
        messages = _state_messages(state)
        _check_not_summarized(messages)
        return [from_langchain(m) for m in messages]

    def hook(state: Any) -> dict[str, Any]:
        if isinstance(memory, AsyncMemory):
            raise ConfigurationError(
                "this pre_model_hook holds an AsyncMemory: use ainvoke/astream, or pass a Memory"
            )
        if mode is not None:
            memory.record(incoming_of(state), mode=mode)
            return output(memory.view(), None)
        window = follow(memory, recorded, incoming_of(state), message_key)
        return output(memory.view(), window)

    async def ahook(state: Any) -> dict[str, Any]:
        incoming = incoming_of(state)
        if mode is None:
            window = await follow_any(memory, recorded, incoming, message_key)
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
