"""LangChain messages as summem messages and back, without loss; a view as a model request.

Ids, names, tool calls with their arguments, ``additional_kwargs``, ``response_metadata``,
usage, artifacts and status are kept in the summem message's ``meta`` under ``"langchain"``
(never sent to a provider) and given back. Re-exported by :mod:`summem.integrations.langchain`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from summem.errors import MessageValidationError
from summem.integrations._shared import dump_arguments, load_arguments, missing, split_head
from summem.messages import Message
from summem.reducers.view import SUMMARY_END

try:
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        ChatMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )
except ImportError as exc:  # pragma: no cover - exercised with the package hidden
    raise missing("langchain", "langchain", exc) from exc

if TYPE_CHECKING:
    from summem.reducers.view import SummaryPlacement

__all__ = ["META_KEY", "from_langchain", "to_langchain", "view_messages"]

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
