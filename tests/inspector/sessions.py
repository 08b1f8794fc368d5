"""Sessions for the inspector's tests: reductions, tool calls, hostile content, a branch.

:func:`write_session` adds a conversation through a real :class:`~summem.memory.Memory`
(foreground reductions, a small token budget, the offline extractive summarizer) and records
after which message each reduction committed, so the inspector's reconstruction can be
checked against what happened.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from summem.events import ReductionCommitted
from summem.memory import Memory
from summem.reducers.summarization import SummarizationReducer
from summem.stores.base import Store

THRESHOLD = 400
TARGET = 250
SCRIPT = "<script>window.__pwned = 1; alert('pwned')</script>"
IMG = "<img src=x onerror=\"window.__pwned = 2; alert('img')\">"
HOSTILE = f'Hello {SCRIPT} and {IMG} & "quotes" \' <b>bold</b>'


def reducer() -> SummarizationReducer:
    return SummarizationReducer(
        threshold_tokens=THRESHOLD, target_tokens=TARGET, summary_max_tokens=120
    )


def config_text() -> str:
    """A summem.yaml with the same budget (the inspector reads its budget from one)."""
    return f"budget:\n  threshold: {THRESHOLD}\n  target: {TARGET}\n  summary_max_tokens: 120\n"


def conversation(turns: int, *, tool_padding: int = 0) -> list[dict[str, object]]:
    """``turns`` exchanges: a user asks, the assistant looks an order up with a tool, answers."""
    messages: list[dict[str, object]] = []
    for i in range(turns):
        messages.append(
            {
                "role": "user",
                "content": f"Where is order BW-{1000 + i}? {HOSTILE if i == 2 else ''}",
            }
        )
        call = f"call_{i}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {
                            "name": "lookup_order",
                            "arguments": json.dumps({"order_id": f"BW-{1000 + i}"}),
                        },
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call,
                "content": json.dumps(
                    {
                        "status": "shipped",
                        "eta": f"2025-03-{10 + i % 18}",
                        **(
                            {"notes": " ".join(["warehouse scan"] * tool_padding)}
                            if tool_padding
                            else {}
                        ),
                    }
                ),
            }
        )
        messages.append(
            {"role": "assistant", "content": f"Order BW-{1000 + i} ships on day {10 + i % 18}."}
        )
    return messages


@dataclass
class Written:
    """What :func:`write_session` did."""

    session_id: str
    length: int
    turns: list[int] = field(default_factory=list)
    """The position of the message after whose addition each reduction committed."""


def write_session(
    store: Store, session_id: str, *, turns: int = 12, system: bool = True, tool_padding: int = 0
) -> Written:
    written = Written(session_id, 0)
    position = {"now": -1}

    def on_event(event: object) -> None:
        if isinstance(event, ReductionCommitted):
            written.turns.append(position["now"])

    memory = Memory(session_id, reducer=reducer(), store=store, background=False, hooks=[on_event])
    if system:
        memory.add({"role": "system", "content": "You are a support assistant. <i>Be kind</i>."})
    for message in conversation(turns, tool_padding=tool_padding):
        position["now"] += 1
        memory.add(message)
    written.length = position["now"] + 1
    return written
