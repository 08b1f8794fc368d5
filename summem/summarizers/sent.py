"""The view as the assistant last sent it: what a cache-reusing summarizer repeats.

Providers bill a repeated prompt prefix at a fraction of the price (OpenAI caches prefixes of
1,024 tokens and more automatically; Anthropic reads what its ``cache_control`` breakpoints
wrote). A summarizer given a prompt of its own pays for every token of it. A summarizer that
sends the assistant's last request unchanged (same model, same messages, same tools) and adds
one final instruction (summarize the messages at these positions) has that request's prefix
billed as a cache read instead.

The wrappers record each request they send with ``Memory.note_sent`` (an application calling
its model itself can too); the memory hands the last one to the summarizer with the span.
:func:`in_place` checks that the request still shows the span (and the previous summary) at
known positions, and builds the messages to send; when it does not (the view was reduced or
restyled since), it says why and the summarizer writes its usual prompt.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from summem.messages import Message

__all__ = ["STOP", "InPlace", "SentView", "forced_tool_choice", "in_place", "position_note"]


@dataclass(frozen=True)
class SentView:
    """One request as the assistant sent it.

    Attributes:
        model: the model it was sent to.
        messages: the messages exactly as sent (plain dicts, copied).
        ids: the id of the view message behind each sent message, when they correspond one to
            one (``None`` when a placement or a style merged some).
        tools: the tool definitions sent with it, if any.
        tool_choice: the ``tool_choice`` sent with it, if any.
        prompt_cache_key: OpenAI's ``prompt_cache_key`` sent with it, if any (it routes the
            request to the cache that holds its prefix).
    """

    model: str
    messages: tuple[dict[str, Any], ...]
    ids: tuple[str, ...] | None
    tools: tuple[dict[str, Any], ...] | None = None
    tool_choice: Any = None
    prompt_cache_key: str | None = None

    @classmethod
    def of(
        cls,
        messages: Sequence[dict[str, Any]],
        view: Sequence[Message],
        *,
        model: str,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        prompt_cache_key: str | None = None,
    ) -> SentView:
        """Record ``messages`` (rendered from ``view``) as sent to ``model``."""
        ids = tuple(m.id for m in view) if len(view) == len(messages) else None
        return cls(
            model=model,
            messages=tuple(copy.deepcopy(dict(m)) for m in messages),
            ids=ids,
            tools=tuple(copy.deepcopy(dict(t)) for t in tools) if tools else None,
            tool_choice=copy.deepcopy(tool_choice),
            prompt_cache_key=prompt_cache_key,
        )

    def __repr__(self) -> str:
        # Never print message bodies (conversation data).
        return f"SentView(model={self.model!r}, messages=<{len(self.messages)}>)"


@dataclass(frozen=True)
class InPlace:
    """A span found in a sent request.

    Attributes:
        messages: the sent messages, then any span messages sent since (never a copy of the
            sent ones changed: the prefix must stay byte-identical).
        first: the position of the span's first message among ``messages``.
        last: the position of its last one.
        summary_at: the position of the previous summary, if there is one.
    """

    messages: list[dict[str, Any]]
    first: int
    last: int
    summary_at: int | None


def in_place(
    sent: SentView, span: Sequence[Message], previous_summary: str | None
) -> InPlace | str:
    """Where ``span`` (and the previous summary) sit in ``sent``; or why they cannot be found."""
    if sent.ids is None:
        return "the request sent was restyled or merged the summary into another message"
    if not span:
        return "the span is empty"
    try:
        first = sent.ids.index(span[0].id)
    except ValueError:
        return "the request last sent does not hold the span (the view changed since)"
    held = sent.ids[first:]
    inside = min(len(held), len(span))
    if tuple(m.id for m in span[:inside]) != held[:inside]:
        return "the request last sent holds the span out of order"
    summary_at = None
    for i, message in enumerate(sent.messages[:first]):
        if message.get("role") in ("system", "developer"):
            continue
        if previous_summary and previous_summary in _text(message):
            summary_at = i
            continue
        return "the request last sent has other messages before the span"
    if previous_summary and summary_at is None:
        return "the request last sent does not hold the previous summary"
    later = [m.to_openai() for m in span[inside:]]
    messages = [*(copy.deepcopy(m) for m in sent.messages), *later]
    return InPlace(messages, first, first + len(span) - 1, summary_at)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


STOP = (
    "Stop the conversation here: do not answer it and do not call any tool. Your only task "
    "now is the one below, about the messages above, numbered from #0 (the first message)."
)


def position_note(found: InPlace) -> tuple[str, str]:
    """How the instruction names the previous summary and the span (by position)."""
    summary = f"(message #{found.summary_at} above)" if found.summary_at is not None else ""
    span = f"(messages #{found.first} to #{found.last} above, both included)"
    return summary, span


def forced_tool_choice(tool_choice: Any) -> bool:
    """True for a ``tool_choice`` that makes the model call a tool (no text reply)."""
    return tool_choice == "required" or isinstance(tool_choice, dict)
