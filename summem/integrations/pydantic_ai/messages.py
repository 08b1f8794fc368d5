"""pydantic-ai messages as summem messages and back, without loss.

Each request part becomes one message (consecutive system prompt parts one system message;
parts with no chat form, such as instruction deltas, ride along with a neighbour), each response
one assistant message with its tool calls; pydantic-ai's own serialisation of the parts is kept
in the message's ``meta`` under ``"pydantic_ai"`` (never sent to a provider) and given back.
Re-exported by :mod:`summem.integrations.pydantic_ai`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from summem.errors import MessageValidationError
from summem.formats.compaction import ANTHROPIC, OPENAI, PROVIDER_SUMMARY, provider_summary_items
from summem.integrations._shared import missing, split_head
from summem.messages import PROVIDER_ITEM, Message

try:
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
except ImportError as exc:  # pragma: no cover - exercised with the package hidden
    raise missing("pydantic-ai", "pydantic-ai", exc) from exc

__all__ = ["META_KEY", "SUMMARY_KEY", "from_pydantic_ai", "to_pydantic_ai"]

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
    meta: dict[str, Any] = {META_KEY: {"response": _dump(response)}}
    compaction = next(
        (p for p in response.parts if isinstance(p, CompactionPart) and p.provider_name), None
    )
    if compaction is not None:  # a provider compacted: the twin is due (see formats.compaction)
        meta[PROVIDER_ITEM] = {
            "provider": compaction.provider_name,
            "kind": "compaction",
            "id": compaction.id,
            "carried": True,
        }
    return Message.from_openai(data).with_meta(**meta)


def _is_summary(message: ModelMessage) -> bool:
    """Whether it is summem's own summary (a request) or provider compaction (a response)."""
    return SUMMARY_KEY in (message.metadata or {})


def _provider_summary(summary: Message) -> ModelResponse | None:
    """A delegated summary's provider compaction as pydantic-ai's ``CompactionPart``.

    OpenAI's item (``/responses/compact``, summem's ``OpenAICompaction``) or Claude's block
    (``AnthropicCompaction``), in a response of that provider after the summary's request:
    pydantic-ai sends it to that provider only, which drops what comes before it (the twin
    among them); every other model gets the twin. ``None``: a summary of summem's own.
    """
    part: CompactionPart | None = None
    items = provider_summary_items(summary)
    if items is not None:
        item = items[-1]
        item_id = item.get("id") if isinstance(item.get("id"), str) else None
        part = CompactionPart(None, id=item_id, provider_name=OPENAI, provider_details=dict(item))
    else:
        info = summary.summary_info
        held = info.extra.get(PROVIDER_SUMMARY) if info is not None else None
        block = held.get("block") if isinstance(held, dict) else None
        if isinstance(held, dict) and held.get("provider") == ANTHROPIC and isinstance(block, dict):
            details = {k: block[k] for k in ("encrypted_content", "signature") if block.get(k)}
            part = CompactionPart(
                block.get("content"), provider_name=ANTHROPIC, provider_details=details or None
            )
    if part is None or part.provider_name is None:
        return None
    return ModelResponse(
        parts=[part], provider_name=part.provider_name, metadata={SUMMARY_KEY: summary.id}
    )


def from_pydantic_ai(messages: Sequence[ModelMessage]) -> list[Message]:
    """pydantic-ai messages as summem messages (lossless); summem's own summary is left out.

    Raises:
        MessageValidationError: a part that is not valid chat-completions input (naming it).
    """
    out: list[Message] = []
    for message in messages:
        if _is_summary(message):
            continue
        if isinstance(message, ModelResponse):
            out.append(_from_response(message))
        else:
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
    :func:`from_pydantic_ai` leaves it out when the view comes back; a delegated summary's
    provider compaction follows it as that provider's ``CompactionPart``, marked the same way.
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
                compacted = _provider_summary(summary)
                if compacted is not None:
                    requests.emit(compacted)
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
