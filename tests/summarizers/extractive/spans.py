"""Spans of messages written by hand for the table tests, and one summary of them."""

from __future__ import annotations

import json
from typing import Any

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.tokens.base import ApproxCounter


def call(id: str, call_id: str, name: str, args: dict[str, Any]) -> Message:
    """An assistant message calling one tool."""
    fn = {"name": name, "arguments": json.dumps(args)}
    raw = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": fn}],
    }
    return Message.from_openai(raw, id=id)


def msg(id: str, content: str, role: str = "user", **extra: Any) -> Message:
    """A message of ``role`` (a tool result with ``tool_call_id=``)."""
    return Message.from_openai({"role": role, "content": content, **extra}, id=id)


def summarize(messages: list[Message], max_tokens: int, **kw: Any) -> SummaryOutput:
    """The default extractive summary of ``messages`` (``previous_summary=`` and the rest)."""
    kw.setdefault("previous_summary", None)
    request = SummaryRequest(
        messages=messages, max_tokens=max_tokens, token_counter=ApproxCounter(), **kw
    )
    return run_sync(ExtractiveSummarizer().summarize(request))
