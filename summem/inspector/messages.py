"""Messages as the pages show them: plain values for the templates, never markup.

Every string here is conversation content or derived from it, and the templates escape it
(Jinja2's autoescape); nothing is marked safe. A tool call and its results share a pair
number, so the page draws them in the same colour and links one to the other.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from summem.messages import Message

__all__ = ["CallView", "MessageView", "message_views", "part_label"]

PAIR_COLOURS = 6
"""How many colours tool-call pairs cycle through (``pair-0`` ... ``pair-5`` in the CSS)."""
LONG_TEXT = 4000
"""Characters shown before a message's text is cut (the rest behind "show all")."""


@dataclass(frozen=True)
class CallView:
    """One tool call of an assistant message."""

    call_id: str
    name: str
    arguments: str


@dataclass
class MessageView:
    """One message, ready for a template.

    Attributes:
        position: its index in history (``None``: the system message or a summary).
        id: the message id.
        role: its role (``name`` appended when it has one).
        text: its text (parts that are not text as placeholders).
        more: the rest of a long text (shown on request).
        calls: its tool calls.
        answers: for a tool result, the call it answers (``None`` otherwise).
        pair: the colour index shared by a call and its results (``None``: no tool call).
        evicted: the current summary stands for it (it is no longer in the view).
        stub: what the view shows instead of it, when masking replaces it.
        note: a short remark (e.g. "summary").
    """

    position: int | None
    id: str
    role: str
    text: str
    more: str = ""
    calls: list[CallView] = field(default_factory=list)
    answers: CallView | None = None
    pair: int | None = None
    evicted: bool = False
    stub: str | None = None
    note: str = ""


def part_label(part: Any) -> str:
    """A content part that is not text, as a placeholder (images and audio never inline)."""
    kind = part.get("type", "part") if isinstance(part, dict) else "part"
    return f"[{kind}]"


def _text(message: Message) -> str:
    if isinstance(message.content, list):
        pieces = []
        for part in message.content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                pieces.append(part["text"])
            else:
                pieces.append(part_label(part))
        return "\n".join(pieces)
    return message.text


def _calls(message: Message) -> list[CallView]:
    calls: list[CallView] = []
    for call in message.tool_calls or ():
        fn = call.get("function") if isinstance(call.get("function"), dict) else {}
        arguments = fn.get("arguments", "") if fn else ""
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        name = fn.get("name") if fn else None
        calls.append(CallView(str(call.get("id", "")), str(name or "?"), arguments))
    return calls


def message_views(
    items: Sequence[tuple[int | None, Message]],
    *,
    watermark: int = 0,
    stubs: dict[str, str] | None = None,
    known_calls: dict[str, tuple[CallView, int]] | None = None,
) -> list[MessageView]:
    """The views of ``items`` (``(position, message)``), tool calls paired with their results.

    ``known_calls`` maps call ids seen before this list (e.g. on the previous page) to their
    call and pair number, so a result whose call is elsewhere still names it; it is extended
    with the calls found here.
    """
    stubs = stubs or {}
    calls_seen = known_calls if known_calls is not None else {}
    out: list[MessageView] = []
    for position, message in items:
        text = _text(message)
        more = ""
        if len(text) > LONG_TEXT:
            text, more = text[:LONG_TEXT], text[LONG_TEXT:]
        role = message.role + (f" ({message.name})" if message.name else "")
        view = MessageView(
            position=position,
            id=message.id,
            role=role,
            text=text,
            more=more,
            evicted=position is not None and position < watermark,
            stub=stubs.get(message.id),
        )
        view.calls = _calls(message)
        if view.calls:
            view.pair = (position if position is not None else 0) % PAIR_COLOURS
            for call in view.calls:
                calls_seen[call.call_id] = (call, view.pair)
        if message.role == "tool" and message.tool_call_id:
            found = calls_seen.get(message.tool_call_id)
            if found is not None:
                view.answers, view.pair = found
            else:
                view.answers = CallView(message.tool_call_id, "?", "")
        if message.is_summary:
            view.note = "summary"
        out.append(view)
    return out
