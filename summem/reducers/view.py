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
    "PLACEMENTS",
    "SUMMARY_END",
    "SummaryPlacement",
    "ViewParts",
    "merge_into_first_user",
    "merge_summary",
    "render_view",
    "split_view",
]

SummaryPlacement = Literal["after_system", "system_suffix", "first_user"]
"""Where the summary goes: its own message after the system message, appended to the system
message, or merged into the view's first message when that is a user message (else a user
message of its own before it)."""
PLACEMENTS: tuple[SummaryPlacement, ...] = ("after_system", "system_suffix", "first_user")
DEFAULT_SUMMARY_PREFIX = "Summary of the earlier conversation:\n"
SUMMARY_END = "\n[end of summary]\n\n"
"""Ends a summary merged into the first user message (``first_user``), before the user's text."""


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
        merged = _merged_summary(msg, summary_prefix) if before_conversation else None
        if merged is not None:
            summary, user = merged
            conversation.append(user)
            placement = "first_user"
        elif msg.is_summary or (
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


def _merged_summary(message: Message, prefix: str) -> tuple[Message, Message] | None:
    """``(summary, user message)`` when a user message starts with a merged summary."""
    if message.role != "user" or not prefix or not message.text.startswith(prefix):
        return None
    content = message.content
    if isinstance(content, str):
        at = content.find(SUMMARY_END)
        if at < 0:
            return None
        text, rest = content[:at], content[at + len(SUMMARY_END) :]
        user = Message.from_openai({**message.to_openai(), "content": rest}, id=message.id)
    elif (
        isinstance(content, list)
        and content
        and str(content[0].get("text", "")).endswith(SUMMARY_END)
    ):
        text = str(content[0]["text"])[: -len(SUMMARY_END)]
        user = Message.from_openai({**message.to_openai(), "content": content[1:]}, id=message.id)
    else:
        return None
    return Message.from_openai({"role": "user", "content": text}), user


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
    (one system message); with ``"first_user"`` it goes before the text of the tail's first
    message when that is a user message, ended by :data:`SUMMARY_END`, and is a user message
    of its own otherwise. Both keep the conversation opening with one user turn.
    """
    out: list[dict[str, Any]] = []
    if system is not None:
        out.append(system.to_openai())
    rendered = [m.to_openai() for m in tail]
    if summary is None:
        return out + rendered
    if placement == "system_suffix":
        base = out[0] if out else {"role": "system", "content": ""}
        text = system.text if system is not None else ""
        base["content"] = (text + "\n\n" if text else "") + summary.text
        return [base, *rendered]
    if placement == "first_user":
        return out + merge_into_first_user(summary.text, rendered)
    return [*out, summary.to_openai(), *rendered]


def merge_into_first_user(summary_text: str, tail: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tail with the summary merged into its first message when that is a user message.

    Otherwise (the cut left an assistant turn or tool traffic first, or nothing) the summary
    comes first as a user message of its own: either way the conversation opens with a single
    user turn, which alternating chat templates require.
    """
    if tail and tail[0].get("role") == "user":
        return [merge_summary(summary_text, tail[0]), *tail[1:]]
    return [{"role": "user", "content": summary_text}, *tail]


def merge_summary(summary_text: str, message: dict[str, Any]) -> dict[str, Any]:
    """``message`` (a user message) with the summary before its content."""
    merged = dict(message)
    content = message.get("content")
    if isinstance(content, list):
        merged["content"] = [{"type": "text", "text": summary_text + SUMMARY_END}, *content]
    else:
        merged["content"] = summary_text + SUMMARY_END + (content or "")
    return merged
