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


SMALL_TALK = (
    "My sister Ingrid moved to Tromsø in March, the flat is on Storgata.",
    "The boiler engineer said the pressure valve was replaced for 185 pounds.",
    "Paid 62.40 for the parking permit renewal yesterday.",
    "Reminder that the quarterly VAT return is due on the 7th.",
    "Our office wifi password changed to heron-bastion-42.",
    "The van MOT is booked at Kwik Fit on 12 June.",
)
"""Small talk full of values, for a table's rows to compete with."""
PART_ROWS = (
    ("flexible hose", "NK645047", "11", "2026-06-02"),
    ("pipe clip", "ND856813", "36", "2028-02-25"),
    ("compression elbow", "QA118273", "8", "2027-01-03"),
    ("isolation valve", "ZP442190", "4", "2026-11-30"),
    ("brass tap washer", "WW902211", "120", "2027-05-09"),
    ("ptfe tape", "TT553201", "45", "2026-08-14"),
    ("radiator key", "RK100293", "9", "2029-03-12"),
)
"""A plumber's van stock: item, bin, quantity, reorder-by date."""


def talk(lines: tuple[str, ...] = SMALL_TALK) -> list[Message]:
    """``lines`` said in turn by an assistant and a user."""
    return [msg(f"s{i}", t, "user" if i % 2 else "assistant") for i, t in enumerate(lines)]
