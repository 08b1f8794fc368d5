"""The view's parts: system message, rolling summary, conversation; taken apart and rendered.

A reducer's input may be a view it produced before, as plain dicts: :func:`split_view` finds the
system message and the previous summary in it (by summem's marker, or by the summary prefix
when the marker was lost), and :func:`render_view` gives the provider-ready dicts back with the
summary in its placement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from summem.conversation import apply_system
from summem.messages import Message

__all__ = [
    "DEFAULT_SUMMARY_PREFIX",
    "SummaryPlacement",
    "ViewParts",
    "render_view",
    "split_view",
]

SummaryPlacement = Literal["after_system", "system_suffix"]
DEFAULT_SUMMARY_PREFIX = "Summary of the earlier conversation:\n"


@dataclass
class ViewParts:
    """A view taken apart: system message, previous summary, conversation."""

    system: Message | None
    summary: Message | None
    conversation: list[Message]
    placement: SummaryPlacement = "after_system"
    """Where the input had its summary: its own message, or appended to the system message."""


def split_view(
    messages: Sequence[Message], *, summary_prefix: str = DEFAULT_SUMMARY_PREFIX
) -> ViewParts:
    """Separate system message, previous summary and conversation.

    The system rules apply in order: a later system (or developer) message with different
    content replaces the earlier one; the result is kept first. The previous summary is the
    message carrying summem's summary marker or, for plain dicts that lost the marker, the
    first message before the conversation whose text starts with ``summary_prefix``, whatever
    its role (a ``system`` summary is not a new system prompt). A summary rendered with
    ``placement="system_suffix"`` is split off the system message it was appended to, so the
    next reduction replaces it instead of keeping it inside the system prompt.
    """
    system: Message | None = None
    summary: Message | None = None
    conversation: list[Message] = []
    placement: SummaryPlacement = "after_system"
    for msg in messages:
        before_conversation = summary is None and not conversation
        if msg.is_summary or (
            before_conversation
            and msg.role != "tool"
            and summary_prefix
            and msg.text.startswith(summary_prefix)
        ):
            summary = msg
        elif msg.is_system:
            suffix = _summary_suffix(msg, summary_prefix) if before_conversation else None
            if suffix is not None:
                msg, summary = suffix
                placement = "system_suffix"
            system = apply_system(system, msg)
        else:
            conversation.append(msg)
    return ViewParts(system, summary, conversation, placement)


def _summary_suffix(message: Message, prefix: str) -> tuple[Message, Message] | None:
    """``(system, summary)`` when ``message`` is a system message with a summary appended."""
    if not prefix or not isinstance(message.content, str):
        return None
    at = message.content.find("\n\n" + prefix)
    if at < 0:
        return None
    system = Message.from_openai({**message.to_openai(), "content": message.content[:at]})
    summary = Message.from_openai({"role": message.role, "content": message.content[at + 2 :]})
    return system, summary


def render_view(
    system: Message | None,
    summary: Message | None,
    tail: Iterable[Message],
    *,
    placement: SummaryPlacement = "after_system",
) -> list[dict[str, Any]]:
    """The provider-ready dicts for ``[system] + [summary]? + tail``.

    With ``placement="system_suffix"`` the summary is appended to the system message's text
    (one system message; useful for providers that want the conversation to start with the
    user) instead of standing as its own message after it.
    """
    out: list[dict[str, Any]] = []
    if placement == "system_suffix" and summary is not None:
        base = system.to_openai() if system is not None else {"role": "system", "content": ""}
        text = system.text if system is not None else ""
        base["content"] = (text + "\n\n" if text else "") + summary.text
        out.append(base)
    else:
        if system is not None:
            out.append(system.to_openai())
        if summary is not None:
            out.append(summary.to_openai())
    out.extend(m.to_openai() for m in tail)
    return out
