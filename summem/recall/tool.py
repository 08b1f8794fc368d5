"""Recall as a tool a model can call: an OpenAI tool schema and its handler.

    tool = memory.recall_tool()
    client.chat.completions.create(..., tools=[tool.schema])
    # when the reply calls it:
    content = tool(call.function.arguments)         # AsyncMemory: await tool.acall(...)
    memory.add({"role": "tool", "tool_call_id": call.id, "content": content})

The handler takes the call's JSON arguments (``query``, or ``message_id`` to fetch one message
the summary points to) and returns JSON: the original messages, best first, with their ids,
positions in the conversation and timestamps, capped in tokens. A bad call gets a JSON error the
model can read, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from summem._message_checks import check_values, load_json
from summem.errors import MessageValidationError
from summem.formats.compaction import provider_item, without_provider_items
from summem.formats.responses import OPAQUE_FIELD
from summem.messages import Message
from summem.recall.index import RecallHit
from summem.recall.names import RECALL_TOOL_NAME
from summem.summarizers.render import (
    message_timestamp,
    part_text,
    scrub_binary,
    scrub_data_urls,
)

__all__ = ["RECALL_TOOL_NAME", "REPLY_FLOOR_CHARS", "RecallTool", "hits_json"]


_DESCRIPTION = (
    "Search the earlier conversation, which is no longer shown in full (only summarized), and "
    "get the original messages back, word for word. Use it for exact values the summary "
    "lacks: numbers, codes, names, dates, file paths, what a tool returned. Pass a few "
    "keywords as `query`, or a `message_id` to fetch one message."
)


_CHARS_PER_TOKEN = 4
"""How many characters of a result one token of the tool's budget pays for (a safe average)."""

REPLY_FLOOR_CHARS = 400
"""The smallest reply a budget gets, in characters: room for one result's id and role, and a
note saying what was left out (a budget of a few tokens could hold nothing useful)."""

_MARK = 48
"""Characters kept free for a mark saying what was cut (``... [clipped: N more characters]``,
``[N more items left out]``)."""

_ENVELOPE = len('{"results": []}')
_SHARE_FLOOR = 240
"""The least room a result is offered (when many share the budget, some are left out)."""
_NOTE_ROOM = 160
"""Characters kept for the reply's note when results are left out."""


def _json_len(value: Any) -> int:
    """Characters ``value`` takes in the reply (a scalar; strings with their quotes)."""
    return len(json.dumps(value, ensure_ascii=False))


def _fit_text(text: str, room: int) -> tuple[str, int]:
    """``text`` within ``room`` characters of JSON, data URLs as placeholders.

    Whole when it fits: a key or a hash that looks like base64 is an exact value recall is
    for. Only when it must be clipped do base64-looking runs become placeholders first.
    """
    text = scrub_data_urls(text)
    n = _json_len(text)
    if n <= room:
        return text, n
    text = scrub_binary(text)
    n = _json_len(text)
    if n <= room:
        return text, n
    cut = max(0, room - _MARK)
    while True:  # escapes make the JSON longer than the text: shorten until it fits
        out = f"{text[:cut]}... [clipped: {len(text) - cut} more characters]"
        n = _json_len(out)
        if n <= room or cut == 0:
            return out, n
        cut = max(0, cut - (n - room))


def _fit_scalar(value: Any, room: int) -> tuple[Any, int]:
    try:
        n = _json_len(value)
    except ValueError:  # an integer too long for str() (sys.int_info.str_digits_check_threshold)
        digits = value.bit_length() * 3 // 10
        return _fit_text(f"[a number of about {digits} digits]", room)
    if n <= room:
        return value, n
    return _fit_text(json.dumps(value), room)


def _fit(value: Any, room: int) -> tuple[Any, int]:
    """``value`` (JSON data) within ``room`` characters of JSON, and the characters it takes.

    Strings are clipped, saying how much was cut; lists and objects keep what fits and say
    how many items or fields were left out. Every character counts: keys, punctuation,
    numbers, each nested part.
    """
    if isinstance(value, str):
        return _fit_text(value, room)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        used = 2  # {}
        items = list(value.items())
        for i, (key, item) in enumerate(items):
            name, key_len = _fit_text(str(key), max(0, room - used - _MARK))
            cost = key_len + 4  # ": " and ", "
            last = i == len(items) - 1  # else room stays for the mark of what follows
            if used + cost + (_MARK if last else 2 * _MARK) > room:
                mark = f"{len(items) - i} more field(s) left out"
                n = _json_len("_left_out") + 4 + _json_len(mark)
                if used + n <= room:
                    out["_left_out"], used = mark, used + n
                break
            item, n = _fit(item, room - used - cost - (0 if last else _MARK))
            out[name] = item
            used += cost + n
        return out, used
    if isinstance(value, list | tuple):
        parts: list[Any] = []
        used = 2  # []
        for i, item in enumerate(value):
            last = i == len(value) - 1  # else room stays for the mark of what follows
            if used + 2 + (_MARK if last else 2 * _MARK) > room:
                mark = f"[{len(value) - i} more item(s) left out]"
                n = _json_len(mark) + 2
                if used + n <= room:
                    parts.append(mark)
                    used += n
                break
            item, n = _fit(item, room - used - 2 - (0 if last else _MARK))
            parts.append(item)
            used += n + 2
        return parts, used
    return _fit_scalar(value, room)


def _media_placeholders(content: Any) -> Any:
    """Content parts with images, audio and files as short placeholders (never their data)."""
    if not isinstance(content, list):
        return content
    out = []
    for part in content:
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind in ("image_url", "input_audio", "file"):
            part = {"type": kind, "placeholder": part_text(part)}
        out.append(part)
    return out


def _result(hit: RecallHit) -> dict[str, Any]:
    data: dict[str, Any] = {"id": hit.message.id, "position": hit.position}
    data.update(_readable(hit.message))
    if "content" in data:
        data["content"] = _media_placeholders(data["content"])
    when = message_timestamp(hit.message)
    if when:
        data["timestamp"] = when
    return data


def _readable(message: Message) -> dict[str, Any]:
    """``message``'s chat form without what only a provider reads (its compaction item).

    An OpenAI compaction item (or an SDK's opaque item) is its label, never its encrypted
    JSON; a reply carrying Anthropic compaction blocks is its own text and calls.
    """
    if provider_item(message) is not None:
        kept, _ = without_provider_items([message])
        message = kept[0] if kept else message
    data = message.to_openai()
    data.pop(OPAQUE_FIELD, None)
    return data


def hits_json(hits: list[RecallHit], *, max_tokens: int | None = None) -> str:
    """The hits as the tool's JSON reply, within ``max_tokens`` (four characters each) in all.

    Every part of every result counts against the one budget: content text and parts, tool
    calls' names and arguments, names, ids, provider extra fields, the JSON around them.
    Images, audio and files are placeholders, base64 in text too. Past the budget, strings
    are clipped (saying how much was left out), and once it is spent the remaining results
    are left out with a note saying how many: the reply is at most
    ``max(4 * max_tokens, REPLY_FLOOR_CHARS)`` characters, whatever the history holds.
    """
    if not hits:
        return json.dumps({"results": [], "note": "nothing in the earlier conversation matches"})
    if max_tokens is None:
        results = [_fit(_result(hit), 1 << 62)[0] for hit in hits]
        return json.dumps({"results": results}, ensure_ascii=False)
    room = max(max_tokens * _CHARS_PER_TOKEN, REPLY_FLOOR_CHARS) - _ENVELOPE - _NOTE_ROOM
    # the matches first, best first, then the rest of their tool groups; each gets at most
    # an equal part of what is left, so one huge message cannot crowd out the others
    order = sorted(range(len(hits)), key=lambda i: not hits[i].matched)
    fitted: dict[int, Any] = {}
    for rank, i in enumerate(order):
        if fitted and room < 2 + 2 * _MARK:
            break
        share = max(room // (len(order) - rank), _SHARE_FLOOR)
        data, used = _fit(_result(hits[i]), min(room, share) - (2 if fitted else 0))
        fitted[i] = data
        room -= used + (2 if len(fitted) > 1 else 0)
    out = [fitted[i] for i in sorted(fitted)]
    left = len(hits) - len(out)
    reply: dict[str, Any] = {"results": out}
    if left:
        reply["note"] = (
            f"{left} more result(s) left out: the reply's budget is spent; "
            "search again with other keywords, or fetch one by message_id"
        )
    return json.dumps(reply, ensure_ascii=False)


class RecallTool:
    """The recall tool of one memory: ``schema`` for the request, a call for each use."""

    name = RECALL_TOOL_NAME

    def __init__(self, memory: Any, *, k: int = 5, max_tokens: int = 2000) -> None:
        self._memory = memory
        self.k = k
        self.max_tokens = max_tokens

    @property
    def schema(self) -> dict[str, Any]:
        """The tool, as chat completions' ``tools=[...]`` takes it."""
        return {
            "type": "function",
            "function": {
                "name": RECALL_TOOL_NAME,
                "description": _DESCRIPTION,
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {
                            "type": "string",
                            "description": "keywords to look for, e.g. an order number or a name",
                        },
                        "message_id": {
                            "type": "string",
                            "description": "the id of one message to fetch",
                        },
                    },
                    "additionalProperties": False,
                },
            },
        }

    def _arguments(self, arguments: str | Mapping[str, Any]) -> dict[str, Any] | str:
        try:  # the model wrote them: any problem is an answer to the model, never an exception
            if isinstance(arguments, str):
                arguments = load_json(arguments or "{}", field="arguments")
            elif isinstance(arguments, Mapping):
                check_values(arguments, None)
        except MessageValidationError as exc:
            return f"unusable arguments: {exc.reason}"
        if not isinstance(arguments, Mapping):
            return "arguments must be a JSON object"
        query, message_id = arguments.get("query"), arguments.get("message_id")
        if query is not None and not isinstance(query, str):
            return "query must be a string"
        if message_id is not None and not isinstance(message_id, str):
            return "message_id must be a string"
        if not (query or "").strip() and not message_id:
            return "pass a query (a few keywords) or a message_id"
        return {"query": query if not message_id else None, "id": message_id or None}

    def __call__(self, arguments: str | Mapping[str, Any]) -> str:
        """Answer one call (sync :class:`~summem.memory.Memory`)."""
        args = self._arguments(arguments)
        if isinstance(args, str):
            return json.dumps({"error": args})
        hits = self._memory.recall(
            args["query"], id=args["id"], k=self.k, max_tokens=self.max_tokens
        )
        return hits_json(hits, max_tokens=self.max_tokens)

    async def acall(self, arguments: str | Mapping[str, Any]) -> str:
        """Answer one call (:class:`~summem.async_memory.AsyncMemory`)."""
        args = self._arguments(arguments)
        if isinstance(args, str):
            return json.dumps({"error": args})
        hits = await self._memory.recall(
            args["query"], id=args["id"], k=self.k, max_tokens=self.max_tokens
        )
        return hits_json(hits, max_tokens=self.max_tokens)
