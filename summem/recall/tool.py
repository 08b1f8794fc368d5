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
from summem.recall.index import RecallHit
from summem.summarizers.render import message_timestamp

__all__ = ["RECALL_TOOL_NAME", "RecallTool", "hits_json"]

RECALL_TOOL_NAME = "recall_conversation"

_DESCRIPTION = (
    "Search the earlier conversation, which is no longer shown in full (only summarized), and "
    "get the original messages back, word for word. Use it for exact values the summary "
    "lacks: numbers, codes, names, dates, file paths, what a tool returned. Pass a few "
    "keywords as `query`, or a `message_id` to fetch one message."
)


_CHARS_PER_TOKEN = 4
"""How many characters of a result one token of the tool's budget pays for (a safe average)."""


def _clip(value: Any, room: int) -> tuple[Any, int]:
    """``value`` (a message's content) within ``room`` characters, and what it used."""
    if isinstance(value, str):
        if len(value) <= room:
            return value, len(value)
        cut = max(0, room)
        return f"{value[:cut]}... [clipped: {len(value) - cut} more characters]", cut
    if isinstance(value, list):
        out, used = [], 0
        for part in value:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                text, n = _clip(part["text"], room - used)
                part = {**part, "text": text}
                used += n
            out.append(part)
        return out, used
    return value, 0


def hits_json(hits: list[RecallHit], *, max_tokens: int | None = None) -> str:
    """The hits as the tool's JSON reply, their text within ``max_tokens`` (about) in all.

    A single huge message (a 10 MB tool result) is clipped, saying how much was left out:
    the reply never carries more than the budget into the model's next request.
    """
    room = None if max_tokens is None else max_tokens * _CHARS_PER_TOKEN
    results = []
    for hit in hits:
        data: dict[str, Any] = {"id": hit.message.id, "position": hit.position}
        data.update(hit.message.to_openai())
        if room is not None:
            data["content"], used = _clip(data.get("content"), room)
            room = max(0, room - used)
        when = message_timestamp(hit.message)
        if when:
            data["timestamp"] = when
        results.append(data)
    if not results:
        return json.dumps({"results": [], "note": "nothing in the earlier conversation matches"})
    return json.dumps({"results": results}, ensure_ascii=False)


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
