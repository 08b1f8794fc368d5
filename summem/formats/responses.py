"""Responses API input items as summem messages, and back, losslessly.

summem reasons about chat-completions messages (groups, pending calls, budgets). A Responses
conversation is a list of *items*; each item becomes one :class:`~summem.messages.Message` whose
chat form says what the rules need (its role, its text, the tool call it makes or answers) and
whose ``meta`` carries the item exactly as given (:data:`ITEM_META`). :func:`to_items` gives the
originals back, so items in are items out; messages summem wrote itself (the summary) or that
came in chat form are converted.

==========================  ==================================================================
item                        message
==========================  ==================================================================
``message`` (any role)      that role; ``input_text``/``output_text`` parts as ``text`` parts
``function_call``           an assistant message with one tool call (``id`` = ``call_id``)
``function_call_output``    a ``tool`` message answering it (``tool_call_id`` = ``call_id``)
other ``*_call`` with       the same pair (``custom_tool_call``, ``computer_call``,
``call_id`` / its output    ``shell_call``...), arguments as JSON text
``tool_search_output`` ...  any other ``*_output`` item with a ``call_id``: the same answer
a ``*_call`` whose          standalone (nothing will answer it): as "anything else"
``call_id`` is ``None``
``compaction``              a provider item (:mod:`summem.formats.compaction`): a label as
                            text, the item as a counted extra; never summarized, sent to
                            OpenAI only
``reasoning``               an assistant message, its summary as text and any
                            ``encrypted_content`` as a string extra (opaque, counted); glued to
                            the item after it (:data:`~summem.messages.GLUED_TO_NEXT`)
anything else               an assistant message holding the item as JSON text (counted)
==========================  ==================================================================

Two options serve a session that must keep whatever it is given, as the Agents SDK's own
sessions do (``SummemSession``): ``system="in_place"`` keeps ``system`` / ``developer`` message
items as ordinary history where they arrived (:data:`~summem.messages.IN_PLACE`), instead of
making them the session's one head system message; ``unknown="opaque"`` keeps an item summem
cannot read (no ``type`` nor ``role``, as the SDK's ``EncryptedSession`` writes, or one that
fails the checks below) as an **opaque** message (:func:`opaque_message`): a placeholder text
for summaries and the item as a string extra (counted, never read), given back unchanged.

So the chat-completions invariants hold item by item: a ``function_call`` is never split from
its ``function_call_output``, a call whose output has not arrived is never evicted, and a
reasoning item stays with the call or reply it led to.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from summem._message_checks import check_values, expect_batch
from summem._words import a
from summem.errors import MessageValidationError
from summem.formats.compaction import (
    COMPACTION_WINDOW,
    openai_compaction_message,
    provider_summary_items,
)
from summem.messages import GLUED_TO_NEXT, IN_PLACE, Message, SDKMessage, copy_json

__all__ = [
    "ITEM_META",
    "OPAQUE_FIELD",
    "ResponseItem",
    "item_dict",
    "opaque_message",
    "standalone_message",
    "to_items",
    "to_messages",
]

ResponseItem = Mapping[str, Any] | SDKMessage
"""One Responses API input item: a dict, or an openai SDK item object (pydantic)."""

ITEM_META = "responses_item"
"""Key in ``Message.meta`` holding the Responses item the message was made from."""

OPAQUE_FIELD = "opaque_item"
"""The extra field of an opaque message's chat form: the item as JSON text (counted only)."""

_MESSAGE_ROLES = ("user", "assistant", "system", "developer")
_TEXT_PARTS = ("input_text", "output_text", "text", "summary_text", "reasoning_text")


def item_dict(item: Any, *, index: int | None = None) -> dict[str, Any]:
    """One item as a plain dict: a copy of a mapping, or an SDK object's fields as set.

    Raises:
        MessageValidationError: not a mapping nor an SDK model.
    """
    if isinstance(item, Message):
        raise MessageValidationError("expected a Responses item, got a summem Message", index=index)
    if isinstance(item, Mapping):
        check_values(item, index)  # before anything recursive walks it (depth, integers...)
        return dict(copy_json(item))
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        # warnings off: a parsed response's items hold the caller's own model in ``parsed``
        try:
            dumped = dump(mode="json", exclude_unset=True, warnings=False)
        except (RecursionError, ValueError) as exc:  # a recursion bomb, a 5,000-digit integer
            raise MessageValidationError(
                f"the {type(item).__name__} item cannot be read as JSON: {str(exc)[:200]}",
                index=index,
            ) from None
        if isinstance(dumped, dict):
            check_values(dumped, index)
            return dumped
    raise MessageValidationError(
        f"expected a Responses input item (a mapping), got {type(item).__name__}", index=index
    )


def _kind(item: Mapping[str, Any], index: int | None) -> str:
    kind = item.get("type")
    if kind is None and "role" in item:
        return "message"  # an "easy" input message: {"role": ..., "content": ...}
    if not isinstance(kind, str):
        raise MessageValidationError(
            "a Responses item needs a string 'type' (or a 'role')", index=index, field="type"
        )
    return kind


def _need_str(item: Mapping[str, Any], key: str, kind: str, index: int | None) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise MessageValidationError(
            f"{a(repr(kind))} item needs {key!r} as a non-empty string", index=index, field=key
        )
    return value


_PAIRED_FIELDS: dict[str, tuple[tuple[str, tuple[type, ...]], ...]] = {
    "function_call": (("call_id", (str,)), ("name", (str,)), ("arguments", (str,))),
    "function_call_output": (("call_id", (str,)), ("output", (str, list))),
    "custom_tool_call": (("call_id", (str,)), ("name", (str,)), ("input", (str,))),
    "custom_tool_call_output": (("call_id", (str,)), ("output", (str, list))),
    "computer_call": (("call_id", (str,)),),
    "computer_call_output": (("call_id", (str,)),),
    "local_shell_call": (("call_id", (str,)),),
    "shell_call": (("call_id", (str,)),),
    "shell_call_output": (("call_id", (str,)),),
    "apply_patch_call": (("call_id", (str,)),),
    "apply_patch_call_output": (("call_id", (str,)),),
}
"""What the API requires of the items paired by ``call_id``: an item without it would be
stored, sent back every turn and refused every time, until it was evicted."""

_NON_EMPTY = ("call_id", "name")


def _check_paired(item: Mapping[str, Any], kind: str, index: int | None) -> None:
    for key, types in _PAIRED_FIELDS.get(kind, ()):
        value = item.get(key)
        if not isinstance(value, types) or (key in _NON_EMPTY and not value):
            wanted = (
                "a non-empty string"
                if key in _NON_EMPTY
                else " or ".join(
                    "a string" if t is str else "a list of content parts" for t in types
                )
            )
            got = "missing" if key not in item else f"got {type(value).__name__}"
            raise MessageValidationError(
                f"a {kind!r} item needs {key!r} as {wanted} ({got})", index=index, field=key
            )


def _chat_parts(
    parts: Sequence[Any], index: int | None, field: str = "content"
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, part in enumerate(parts):
        if not isinstance(part, Mapping):
            raise MessageValidationError(
                f"a content part must be a mapping, got {type(part).__name__}",
                index=index,
                field=f"{field}[{i}]",
            )
        ptype = part.get("type")
        key = "refusal" if ptype == "refusal" else "text"
        if ptype in (*_TEXT_PARTS, "refusal") and not isinstance(part.get(key), str):
            raise MessageValidationError(
                f"a {ptype!r} part needs {key!r} as a string", index=index, field=f"{field}[{i}]"
            )
        if ptype in _TEXT_PARTS:
            out.append({"type": "text", "text": str(part.get("text", ""))})
        elif ptype == "refusal":
            out.append({"type": "refusal", "refusal": str(part.get("refusal", ""))})
        elif ptype == "input_image" and isinstance(part.get("image_url"), str):
            out.append({"type": "image_url", "image_url": {"url": part["image_url"]}})
        else:  # input_file, input_audio, a new part type: kept, counted by its strings
            out.append({**part, "type": str(ptype)})
    return out


def _content(value: Any, index: int | None, field: str) -> str | list[dict[str, Any]]:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return _chat_parts(value, index)
    raise MessageValidationError(
        f"must be a string or a list of content parts, got {type(value).__name__}",
        index=index,
        field=field,
    )


def _arguments(item: Mapping[str, Any]) -> str:
    for key in ("arguments", "input"):
        if isinstance(item.get(key), str):
            return str(item[key])
    rest = {k: v for k, v in item.items() if k not in ("type", "id", "call_id", "status")}
    return json.dumps(rest, ensure_ascii=False, sort_keys=True)


def _chat_form(item: dict[str, Any], index: int | None) -> dict[str, Any]:
    kind = _kind(item, index)
    if kind == "message":
        role = item.get("role")
        if role not in _MESSAGE_ROLES:
            raise MessageValidationError(
                f"a message item's role must be one of {list(_MESSAGE_ROLES)}, got {role!r}",
                index=index,
                field="role",
            )
        return {"role": role, "content": _content(item.get("content"), index, "content")}
    if kind == "reasoning":
        texts = [
            str(p.get("text", ""))
            for key in ("summary", "content")
            for p in item.get(key) or ()
            if isinstance(p, Mapping)
        ]
        out: dict[str, Any] = {"role": "assistant", "content": "\n".join(t for t in texts if t)}
        if isinstance(item.get("encrypted_content"), str):
            out["encrypted_content"] = item["encrypted_content"]  # opaque: counted, never read
        return out
    _check_paired(item, kind, index)
    paired = item.get("call_id") is not None  # a call_id of None: nothing pairs with it
    if kind.endswith("_output") and paired:
        call_id = _need_str(item, "call_id", kind, index)
        output = item.get("output") if "output" in item else _arguments(item)
        if isinstance(output, list):
            content: str | list[dict[str, Any]] = _chat_parts(output, index, "output")
        else:
            content = output if isinstance(output, str) else json.dumps(output, sort_keys=True)
        return {"role": "tool", "tool_call_id": call_id, "content": content}
    if kind.endswith("_call") and paired:
        call_id = _need_str(item, "call_id", kind, index)
        name = item.get("name") if isinstance(item.get("name"), str) else kind
        call = {"id": call_id, "type": "function", "function": {"name": name}}
        call["function"]["arguments"] = _arguments(item)  # type: ignore[index]
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    # hosted tool calls (web search, file search...), item references, compaction items:
    # standalone, their JSON as text so they are counted and summarized.
    return _standalone(kind, item)


def _standalone(kind: str, item: Mapping[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": f"[{kind}] {json.dumps(item, sort_keys=True)}"}


def standalone_message(item: Mapping[str, Any]) -> Message:
    """An item as a standalone message (its JSON as text), paired with nothing.

    For an output whose call the session never saw, or a call id already pending: kept in
    its place and given back unchanged by :func:`to_items`, as an item summem does not pair.

    Raises:
        MessageValidationError: not a mapping nor an SDK model, or not JSON.
    """
    data = item_dict(item)
    kind = data.get("type")
    chat = _standalone(kind if isinstance(kind, str) and kind else "item", data)
    return Message.from_openai(chat).with_meta(**{ITEM_META: data})


def opaque_message(item: Mapping[str, Any] | Any) -> Message:
    """An item summem does not read, as a standalone message that gives it back unchanged.

    Its chat form is an assistant message whose text only names the item's kind (a summary
    never quotes it) and whose :data:`OPAQUE_FIELD` extra holds the item as JSON (counted
    against the budget, never read); :func:`to_items` returns the item itself.

    Raises:
        MessageValidationError: not a mapping nor an SDK model, or not JSON.
    """
    data = item_dict(item)
    kind = data.get("type")
    label = kind if isinstance(kind, str) and kind else "unknown"
    chat = {
        "role": "assistant",
        "content": f"[{label} item, kept as it came]",
        OPAQUE_FIELD: json.dumps(data, sort_keys=True, ensure_ascii=False),
    }
    return Message.from_openai(chat).with_meta(**{ITEM_META: data})


def to_messages(
    items: Iterable[Any],
    *,
    system: Literal["head", "in_place"] = "head",
    unknown: Literal["refuse", "opaque"] = "refuse",
) -> list[Message]:
    """Responses input items as messages, each carrying its item in ``meta``.

    A bare string is one user message (as ``responses.create(input="...")`` takes it).

    Args:
        items: the items.
        system: ``"head"``: a ``system`` / ``developer`` item sets the session's system
            message; ``"in_place"``: it is ordinary history where it is.
        unknown: ``"refuse"``: an item summem cannot read raises; ``"opaque"``: it is kept
            as an opaque message (:func:`opaque_message`).

    Raises:
        MessageValidationError: an item is not valid, naming its index and field (with
            ``unknown="opaque"``, only an item that is not a mapping or not JSON).
    """
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    else:
        expect_batch(items, "items")
    out: list[Message] = []
    for i, raw in enumerate(items):
        item = item_dict(raw, index=i)
        if item.get("type") == "compaction":
            try:
                out.append(_compaction(item, i))
            except MessageValidationError:
                if unknown == "refuse":
                    raise
                out.append(opaque_message(item))
            continue
        try:
            msg = Message.from_openai(_chat_form(item, i), index=i)
        except MessageValidationError:
            if unknown == "refuse":
                raise
            out.append(opaque_message(item))
            continue
        meta: dict[str, Any] = {ITEM_META: item}
        if item.get("type") == "reasoning":
            meta[GLUED_TO_NEXT] = True
        elif system == "in_place" and msg.role in ("system", "developer"):
            meta[IN_PLACE] = True
        out.append(msg.with_meta(**meta))
    return out


def _compaction(item: dict[str, Any], index: int) -> Message:
    """An OpenAI compaction item: its ``encrypted_content`` is what the provider reads back."""
    _need_str(item, "encrypted_content", "compaction", index)
    if item.get("id") is not None and not isinstance(item.get("id"), str):
        raise MessageValidationError(
            "a 'compaction' item's 'id' must be a string", index=index, field="id"
        )
    return openai_compaction_message(item)


def _item_parts(parts: list[dict[str, Any]], role: str) -> list[dict[str, Any]]:
    text_type = "output_text" if role == "assistant" else "input_text"
    out: list[dict[str, Any]] = []
    for part in parts:
        if part.get("type") == "text":
            out.append({"type": text_type, "text": part.get("text", "")})
        elif part.get("type") == "image_url":
            out.append({"type": "input_image", "image_url": part["image_url"]["url"]})
        else:
            out.append(copy_json(part))
    return out


def _convert(msg: Message) -> list[dict[str, Any]]:
    """A chat message (summem's summary, or one added in chat form) as Responses items."""
    content = msg.content
    out: list[dict[str, Any]] = []
    if msg.role == "tool":
        text = content if isinstance(content, str) else msg.text
        return [{"type": "function_call_output", "call_id": msg.tool_call_id, "output": text}]
    if isinstance(content, list):
        out.append({"type": "message", "role": msg.role, "content": _item_parts(content, msg.role)})
    elif content or not msg.tool_calls:
        out.append({"type": "message", "role": msg.role, "content": content or ""})
    for call in msg.tool_calls or ():
        fn = call.get("function") or {}
        out.append(
            {
                "type": "function_call",
                "call_id": call.get("id"),
                "name": fn.get("name", ""),
                "arguments": fn.get("arguments", ""),
            }
        )
    return out


def to_items(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages (a view, a history) as Responses input items: originals given back as they came.

    A summary whose span OpenAI compacted (delegation) is the items OpenAI returned for it.
    Each dict is a fresh copy, the caller's to change.
    """
    out: list[dict[str, Any]] = []
    for msg in messages:
        if msg.is_summary:
            compacted = provider_summary_items(msg)  # OpenAI compacted this span itself
            if compacted is not None:
                out.extend(copy_json(i) for i in compacted)
                continue
        original = None if msg.is_summary else msg.meta.get(ITEM_META)
        if isinstance(original, dict):
            window = msg.meta.get(COMPACTION_WINDOW)  # what /responses/compact sent before it
            if isinstance(window, list):
                out.extend(copy_json(w) for w in window)
            out.append(copy_json(original))
        else:
            out.extend(_convert(msg))
    return out
