"""summem in pydantic-ai: a capability (and a history processor) bounding what the model sees.

    from pydantic_ai import Agent
    from summem.integrations.pydantic_ai import SummemHistory

    agent = Agent(model, capabilities=[SummemHistory(Memory("user-42"))])

Before each model request, the run's messages (its ``message_history`` and what the run
added) are followed into the memory (see :mod:`summem.integrations._window`): what is recorded
is recognised by pydantic-ai's own form of each message (timestamps included); a history that
goes back to an earlier point (a regenerate from ``message_history=result.all_messages()[:k]``,
an edited message) **branches** the session there, the abandoned turns kept as a branch
(``memory.branches()``), never sent again; a run given no history starts a new conversation,
as in pydantic-ai (``resume=True``: the memory supplies the past instead); a history whose
oldest messages a processor dropped is a window onto the recorded one, and the model is not
sent what it dropped. The model is sent the memory's view: the system prompt, the summary (a
user-prompt request of its own), the recent turns, never a tool call without its results.
Each response is recorded when the next request brings it back, and the last one when the run
ends. The run's own history is left whole (``result.all_messages()``), and the store holds all
of it too.

``SummemHistory.processor()`` gives the same as a plain history processor, for
``ProcessHistory(...)``; pydantic-ai then replaces the run's history with the view (the summary
request coming back is summem's own and is left out), and a response is recorded when the next
request brings it back.

Messages convert to chat-completions messages and back without loss: each request part becomes
one message (consecutive system prompt parts one system message; parts with no chat form, such
as instruction deltas, ride along with a neighbour), each response one assistant message with
its tool calls; pydantic-ai's own serialisation of the parts is kept in the message's ``meta``
(never sent to a provider) and given back.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from summem.errors import ConfigurationError, MessageValidationError
from summem.integrations._shared import missing, split_head
from summem.integrations._window import RecordedKeys, Window, follow_any, shown
from summem.messages import Message
from summem.session.recorded import fingerprint

try:
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import (
        BaseToolReturnPart,
        CompactionPart,
        ModelMessage,
        ModelMessagesTypeAdapter,
        ModelRequest,
        ModelRequestPart,
        ModelResponse,
        RetryFeedbackPart,
        RetryPromptPart,
        SpeechPart,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.tools import RunContext  # at run time: pydantic-ai reads processor() hints
except ImportError as exc:  # pragma: no cover - exercised with the package hidden
    raise missing("pydantic-ai", "pydantic-ai", exc) from exc

if TYPE_CHECKING:
    from pydantic_ai.agent import AgentRunResult
    from pydantic_ai.models import ModelRequestContext

    from summem.async_memory import AsyncMemory
    from summem.memory import Memory
    from summem.session.recorded import Mode

__all__ = ["SummemHistory", "from_pydantic_ai", "to_pydantic_ai"]

META_KEY = "pydantic_ai"
"""The key of :attr:`Message.meta <summem.messages.Message.meta>` holding pydantic-ai's data."""
SUMMARY_KEY = "summem_summary"
"""The key of a summary request's ``metadata``: the summary's id (so it is never recorded)."""


def _dump(message: ModelMessage) -> dict[str, Any]:
    """pydantic-ai's own JSON form of a message (its parts' ids need the message's context).

    Raises:
        MessageValidationError: a part holds what JSON cannot (a recursion bomb...).
    """
    try:
        data: dict[str, Any] = ModelMessagesTypeAdapter.dump_python([message], mode="json")[0]
    except (ValueError, RecursionError) as exc:  # PydanticSerializationError is a ValueError
        raise _not_json(message, exc) from None
    return data


def _not_json(message: ModelMessage, exc: Exception) -> MessageValidationError:
    return MessageValidationError(
        f"a pydantic-ai {type(message).__name__} cannot be stored as JSON: {str(exc)[:200]}"
    )


def _arguments(response: ModelResponse, part: ToolCallPart) -> str:
    try:
        return part.args_as_json_str()
    except (ValueError, RecursionError) as exc:  # the model's arguments, too deep
        raise _not_json(response, exc) from None


def _load(data: dict[str, Any]) -> ModelMessage:
    return ModelMessagesTypeAdapter.validate_python([data])[0]


# -- conversion ------------------------------------------------------------------------------


def _user_content(content: Any) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for item in content:
        if isinstance(item, str):
            parts.append({"type": "text", "text": item})
        elif getattr(item, "kind", None) == "image-url":
            parts.append({"type": "image_url", "image_url": {"url": item.url}})
        else:  # audio, documents, binary data: a placeholder (the part itself is in meta)
            parts.append({"type": "text", "text": f"[{getattr(item, 'kind', 'content')}]"})
    return parts


def _chat_of(part: ModelRequestPart) -> dict[str, Any] | None:
    """The chat-completions message a request part is sent as (``None``: not a message)."""
    if isinstance(part, SystemPromptPart):
        return {"role": "system", "content": part.content}
    if isinstance(part, UserPromptPart):
        return {"role": "user", "content": _user_content(part.content)}
    if isinstance(part, BaseToolReturnPart):
        content = part.model_response_str()
        return {"role": "tool", "tool_call_id": part.tool_call_id, "content": content}
    if isinstance(part, RetryPromptPart):
        if part.tool_name is not None:
            content = part.model_response()
            return {"role": "tool", "tool_call_id": part.tool_call_id, "content": content}
        return {"role": "user", "content": part.model_response()}
    if isinstance(part, RetryFeedbackPart):
        return {"role": "user", "content": part.model_response()}
    if isinstance(part, SpeechPart):
        return {"role": "user", "content": part.transcript or "[speech]"}
    if isinstance(part, CompactionPart):
        return {"role": "user", "content": part.content or ""}
    return None  # instruction and settings deltas and the like: carried by a neighbour


def _from_request(request: ModelRequest) -> list[Message]:
    envelope = _dump(request)
    dumps: list[dict[str, Any]] = envelope.pop("parts")
    group = os.urandom(8).hex()
    out: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []  # (chat message, its parts)
    carried: list[dict[str, Any]] = []  # parts with no chat form, waiting for a message
    for part, dump in zip(request.parts, dumps, strict=True):
        chat = _chat_of(part)
        if chat is None:
            carried.append(dump)
        elif chat["role"] == "system" and out and out[-1][0]["role"] == "system" and not carried:
            out[-1][0]["content"] += "\n\n" + chat["content"]  # one system message
            out[-1][1].append(dump)
        else:
            out.append((chat, [*carried, dump]))
            carried = []
    if carried:
        if not out:  # a request of such parts only: an empty user message carries them
            out.append(({"role": "user", "content": ""}, []))
        out[-1][1].extend(carried)
    return [
        Message.from_openai(chat).with_meta(
            **{META_KEY: {"request": envelope, "group": group, "parts": parts}}
        )
        for chat, parts in out
    ]


def _from_response(response: ModelResponse) -> Message:
    text = "".join(p.content for p in response.parts if isinstance(p, TextPart))
    data: dict[str, Any] = {"role": "assistant", "content": text}
    calls = [
        {
            "id": p.tool_call_id,
            "type": "function",
            "function": {"name": p.tool_name, "arguments": _arguments(response, p)},
        }
        for p in response.parts
        if isinstance(p, ToolCallPart)
    ]
    if calls:
        data["tool_calls"] = calls
    return Message.from_openai(data).with_meta(**{META_KEY: {"response": _dump(response)}})


def _is_summary(message: ModelMessage) -> bool:
    return isinstance(message, ModelRequest) and SUMMARY_KEY in (message.metadata or {})


def from_pydantic_ai(messages: Sequence[ModelMessage]) -> list[Message]:
    """pydantic-ai messages as summem messages (lossless); summem's own summary is left out.

    Raises:
        MessageValidationError: a part that is not valid chat-completions input (naming it).
    """
    out: list[Message] = []
    for message in messages:
        if isinstance(message, ModelResponse):
            out.append(_from_response(message))
        elif not _is_summary(message):
            out.extend(_from_request(message))
    return out


class _Requests:
    """Builds the requests of a view: consecutive parts of one original request go together."""

    def __init__(self) -> None:
        self.out: list[ModelMessage] = []
        self.parts: list[dict[str, Any]] = []  # pydantic-ai's JSON form
        self.envelope: dict[str, Any] | None = None
        self.group: str | None = None

    def add(self, parts: list[dict[str, Any]], envelope: Any, group: str | None) -> None:
        if self.parts and group is not None and self.group is not None and group != self.group:
            self.flush()
        self.parts.extend(parts)
        if self.envelope is None and envelope is not None:
            self.envelope, self.group = envelope, group

    def flush(self) -> None:
        if self.parts or self.envelope is not None:
            self.out.append(_load({**(self.envelope or {"kind": "request"}), "parts": self.parts}))
        self.parts, self.envelope, self.group = [], None, None

    def emit(self, message: ModelMessage) -> None:
        self.flush()
        self.out.append(message)


def _fallback_parts(message: Message, names: dict[str, str]) -> list[dict[str, Any]]:
    """Parts for a message that did not come from pydantic-ai (or a masked tool result)."""
    part: ModelRequestPart
    if message.is_system:
        part = SystemPromptPart(message.text)
    elif message.role == "tool":
        call_id = message.tool_call_id or ""
        name = names.get(call_id, "tool")
        part = ToolReturnPart(tool_name=name, content=message.text, tool_call_id=call_id)
    else:
        part = UserPromptPart(message.text)
    parts: list[dict[str, Any]] = _dump(ModelRequest(parts=[part]))["parts"]
    return parts


def _fallback_response(message: Message) -> ModelResponse:
    parts: list[Any] = [TextPart(message.text)] if message.text else []
    for call in message.tool_calls or []:
        function = call.get("function") or {}
        parts.append(
            ToolCallPart(
                tool_name=str(function.get("name")),
                args=function.get("arguments") or None,
                tool_call_id=str(call.get("id")),
            )
        )
    return ModelResponse(parts=parts)


def to_pydantic_ai(view: list[Message]) -> list[ModelMessage]:
    """A memory's view as pydantic-ai messages: the original ones for what came from it.

    The summary is a request of its own (a user prompt), marked in its ``metadata`` so that
    :func:`from_pydantic_ai` leaves it out when the view comes back.
    """
    system, summary, tail = split_head(view)
    requests, names = _Requests(), {}
    for message in [m for m in (system,) if m is not None] + [None, *tail]:  # None: the summary
        if message is None:
            if summary is not None:
                note = ModelRequest(
                    parts=[UserPromptPart(summary.text)], metadata={SUMMARY_KEY: summary.id}
                )
                requests.emit(note)
            continue
        meta = message.meta.get(META_KEY) or {}
        if message.role == "assistant":
            for call in message.tool_calls or []:
                names[str(call.get("id"))] = str((call.get("function") or {}).get("name"))
            if "response" in meta:
                requests.emit(_load(meta["response"]))
            else:
                requests.emit(_fallback_response(message))
        elif "parts" in meta:
            requests.add(list(meta["parts"]), meta.get("request"), meta.get("group"))
        else:
            requests.add(_fallback_parts(message, names), None, None)
    requests.flush()
    return requests.out


# -- the capability -------------------------------------------------------------------------


def message_key(message: Message) -> tuple[str, Any]:
    """A recorded message's key: pydantic-ai's form of it, and what a provider sees of it.

    pydantic-ai's form carries the timestamps: a response whole, a request's message by its
    own parts (pydantic-ai merges neighbouring requests, which changes their envelope).
    """
    extra = message.meta.get(META_KEY) or {}
    own = extra.get("response", extra.get("parts"))
    return json.dumps(own, sort_keys=True, default=str), fingerprint(message)


def _this_run_only(messages: Sequence[ModelMessage], run_id: str | None) -> bool:
    """True when every message came from the run ``run_id`` (it was given no history)."""
    return run_id is not None and all(m.run_id == run_id for m in messages)


@dataclass
class SummemHistory(AbstractCapability[Any]):
    """A pydantic-ai capability that sends the model a summem memory's bounded view.

    Args:
        memory: the session's :class:`~summem.Memory` (its calls run in a worker thread) or
            :class:`~summem.AsyncMemory`; both work with ``run`` and ``run_sync``.
        resume: a run given no ``message_history`` (pydantic-ai cannot tell ``None`` from
            ``[]``) continues the memory's conversation, the memory supplying the past. Off
            by default: such a run starts a new conversation, as in pydantic-ai, and the
            recorded one is kept as a branch (``memory.branches()``).
        mode: ``None`` (default): the run's messages are the conversation, and a history
            that differs from what is recorded branches the session (see the module).
            ``"auto"``, ``"new"`` or ``"full"``: read them by content as
            :meth:`summem.Memory.record` does instead.
    """

    memory: Memory | AsyncMemory
    resume: bool = field(default=False, kw_only=True)
    mode: Mode | None = field(default=None, kw_only=True)
    _recorded: RecordedKeys = field(default_factory=RecordedKeys, init=False, repr=False)

    def __post_init__(self) -> None:
        if not callable(getattr(self.memory, "view", None)):
            raise ConfigurationError(f"SummemHistory needs a summem Memory, got {self.memory!r}")

    @classmethod
    def get_serialization_name(cls) -> str | None:
        """Not part of agent specs: it holds a live memory."""
        return None

    async def _follow(self, messages: Sequence[ModelMessage], run_id: str | None) -> Window | None:
        incoming = _without_summary(from_pydantic_ai(messages), self.memory)
        if self.mode is not None:
            await _record(self.memory, incoming, self.mode)
            return None
        resumed = self.resume and _this_run_only(messages, run_id)
        return await follow_any(self.memory, self._recorded, incoming, message_key, resume=resumed)

    async def bound(
        self, messages: list[ModelMessage], run_id: str | None = None
    ) -> list[ModelMessage]:
        """Record ``messages`` (a run's, ``run_id``); return the view as pydantic-ai messages.

        Messages the list no longer holds from its start on (a processor before this one
        dropped them) are not in what it returns.
        """
        window = await self._follow(messages, run_id)
        view = await _view(self.memory)
        return to_pydantic_ai(view if window is None else shown(view, window))

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """Send the view instead of the run's messages (the run keeps its own)."""
        messages = list(request_context.messages)
        request_context.messages = await self.bound(messages, ctx.run_id)
        return request_context

    async def after_run(
        self, ctx: RunContext[Any], *, result: AgentRunResult[Any]
    ) -> AgentRunResult[Any]:
        """Record the run's last response (the others came back with the next request)."""
        await self._follow(result.all_messages(), ctx.run_id)
        return result

    def processor(
        self,
    ) -> Callable[[RunContext[Any], list[ModelMessage]], Awaitable[list[ModelMessage]]]:
        """The same as a history processor, for ``ProcessHistory(history.processor())``."""

        async def process(ctx: RunContext[Any], messages: list[ModelMessage]) -> list[ModelMessage]:
            return await self.bound(messages, ctx.run_id)

        return process


def _without_summary(incoming: list[Message], memory: Memory | AsyncMemory) -> list[Message]:
    """``incoming`` without summem's summary, when a view came back as a run's history.

    pydantic-ai merges the summary's request with its neighbour (its ``metadata`` mark is then
    lost), so the summary is recognised as the first user message after the system messages
    that starts with the reducer's summary prefix, as :meth:`summem.Memory.record` does.
    """
    prefix = getattr(memory.reducer, "summary_prefix", None)
    lead = 0
    while lead < len(incoming) and incoming[lead].is_system:
        lead += 1
    if (
        isinstance(prefix, str)
        and prefix
        and lead < len(incoming)
        and incoming[lead].role == "user"
        and incoming[lead].text.startswith(prefix)
    ):
        return incoming[:lead] + incoming[lead + 1 :]
    return incoming


async def _view(memory: Memory | AsyncMemory) -> list[Message]:
    from summem.async_memory import AsyncMemory

    if isinstance(memory, AsyncMemory):
        return await memory.view()
    return await asyncio.to_thread(memory.view)


async def _record(memory: Memory | AsyncMemory, incoming: list[Message], mode: Mode) -> None:
    from summem.async_memory import AsyncMemory

    if isinstance(memory, AsyncMemory):
        await memory.record(incoming, mode=mode)
    else:
        await asyncio.to_thread(memory.record, incoming, mode=mode)
