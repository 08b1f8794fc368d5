r"""Render an evicted span as a plain-text transcript a summarizer can read safely.

The prompt embeds the span between ``<transcript>`` tags, so the rendering has three jobs:
keep what the model needs (who said what and when, tool calls, tool results), drop what only
costs tokens (base64 images, audio, huge tool payloads) and keep the conversation from escaping
its block (any prompt delimiter inside a message is neutralized, see
:func:`summem.prompts.neutralize_delimiters`: ``</transcript>`` becomes ``<\/transcript>``).

A rendered transcript looks like this::

    [user (Caroline) @ 2023-05-08 13:56]: Where is my order A17?

    [assistant]: Let me check.
    -> call lookup_order(order_id="A17")

    [tool: lookup_order]: {"status": "shipped", "eta": ... [840 more characters elided]

The helpers (:func:`message_timestamp`, :func:`content_text`, :func:`format_call`,
:func:`tool_names`) are shared with the extractive summarizer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from summem._delimiters import DEFAULT_DELIMITERS, neutralize_delimiters
from summem._message_checks import load_json
from summem.formats.compaction import skipped_text
from summem.messages import Message

__all__ = [
    "DEFAULT_DELIMITERS",
    "TIMESTAMP_KEYS",
    "content_text",
    "elide",
    "format_call",
    "message_timestamp",
    "part_text",
    "render_transcript",
    "scrub_binary",
    "scrub_data_urls",
    "speaker_label",
    "tool_names",
]

TIMESTAMP_KEYS: tuple[str, ...] = ("timestamp", "date", "datetime", "created_at", "time")
"""Provider extras read as a message's time, first match wins."""

_DATA_URL_RE = re.compile(
    r"data:(?P<mime>[\w.+-]+/[\w.+-]+)?(?:;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/=]+"
)
_BASE64_RUN_RE = re.compile(r"[A-Za-z0-9+/]{200,}={0,2}")
_SPACE_RE = re.compile(r"\s+")
_UPPER_RE = re.compile(r"[A-Z]")
_LOWER_RE = re.compile(r"[a-z]")
_DIGIT_RE = re.compile(r"[0-9]")


def render_transcript(
    messages: Sequence[Message],
    *,
    tool_result_max_chars: int = 2000,
    delimiters: Sequence[str] = DEFAULT_DELIMITERS,
    message_max_chars: int = -1,
) -> str:
    """Render ``messages`` as one labelled block per message, blocks separated by a blank line.

    Args:
        messages: the span, in order.
        tool_result_max_chars: cap on each tool result and each call's arguments; the rest is
            replaced by ``... [N more characters elided]``.
        message_max_chars: cap on any message's share (-1: none): its text, and its text
            and tool calls together, for a single message too large for the summarizer's
            context.
        delimiters: the prompt's block delimiters (``PromptTemplate.delimiters``); any
            occurrence inside the conversation is neutralized.

    Returns:
        The transcript, never containing base64 payloads or an intact delimiter.
    """
    names = tool_names(messages)
    blocks: list[str] = []
    for message in messages:
        if skipped_text(message):  # a provider's compaction item: nothing to read
            continue
        body: list[str] = []
        text = elide(content_text(message), message_max_chars)
        if message.role == "tool":
            body.append(elide(text, tool_result_max_chars))
        else:
            if text:
                body.append(text)
            for call in _calls_of(message):
                body.append("-> call " + format_call(call, max_chars=tool_result_max_chars))
        label = speaker_label(message, names)
        # the cap is the message's whole share: its text and all its calls together
        blocks.append(f"[{label}]: " + elide("\n".join(body), message_max_chars))
    return neutralize_delimiters("\n\n".join(blocks), delimiters)


def speaker_label(message: Message, names: Mapping[str, str] | None = None) -> str:
    """``user (Caroline) @ 2023-05-08``, ``assistant``, ``tool: lookup_order``, ``summary``."""
    if message.is_summary:
        label = "summary"
    elif message.role == "tool":
        tool = (names or {}).get(message.tool_call_id or "")
        label = f"tool: {_inline(tool, 64)}" if tool else "tool"
    else:
        label = message.role
    if message.name:
        label += f" ({_inline(message.name, 64)})"
    when = message_timestamp(message)
    if when:
        label += f" @ {when}"
    return label


def message_timestamp(message: Message) -> str | None:
    """The message's own time, from a provider extra such as ``timestamp`` or ``date``.

    Strings are kept as written (whitespace collapsed, at most 40 characters); numbers are read
    as Unix seconds (milliseconds when very large) and shown as ``YYYY-MM-DD HH:MM`` UTC.
    """
    extra = message.model_extra or {}
    for key in TIMESTAMP_KEYS:
        value = extra.get(key)
        if value is None or isinstance(value, bool):
            continue
        if isinstance(value, datetime):
            return value.isoformat(sep=" ", timespec="minutes")
        if isinstance(value, (int, float)):
            seconds = value / 1000 if value > 1e11 else value
            try:
                when = datetime.fromtimestamp(seconds, tz=timezone.utc)
            except (OverflowError, OSError, ValueError):
                return None
            return when.strftime("%Y-%m-%d %H:%M")
        if isinstance(value, str) and value.strip():
            return _inline(value, 40)
    return None


def content_text(message: Message) -> str:
    """The message's content as text: parts in order, media as placeholders, no base64.

    Images become ``[image]``, audio ``[audio: wav]``, files ``[file: name.pdf]``; data URLs
    and long base64 runs inside text are replaced too (see :func:`scrub_binary`). A provider's
    compaction item has no text (:func:`~summem.formats.compaction.skipped_text`): what it
    stands for is summarized from the messages it replaced, never from the item.
    """
    if skipped_text(message):
        return ""
    content = message.content
    pieces: list[str] = []
    if isinstance(content, str):
        pieces.append(content)
    elif isinstance(content, list):
        pieces.extend(part_text(p) for p in content)
    extra = message.model_extra or {}
    refusal = extra.get("refusal")
    if isinstance(refusal, str) and refusal:
        pieces.append(f"[refusal] {refusal}")
    audio = extra.get("audio")
    if audio:
        pieces.append(_audio_text(audio, message.meta.get("audio")))
    return scrub_binary("\n".join(p for p in pieces if p))


def _audio_text(audio: Any, kept: Any) -> str:
    """An audio reply: ``[audio]`` and its transcript (in the message, or in its meta)."""
    for where in (audio, kept):
        transcript = where.get("transcript") if isinstance(where, dict) else None
        if isinstance(transcript, str) and transcript.strip():
            return f"[audio] {transcript}"
    return "[audio]"


def scrub_binary(text: str) -> str:
    """Replace data URLs and base64-looking runs (200+ characters) with a short placeholder."""
    if len(text) < 64:
        return text
    return _BASE64_RUN_RE.sub(_binary_placeholder, scrub_data_urls(text))


def scrub_data_urls(text: str) -> str:
    """Replace data URLs (``data:...;base64,...``, inline media) with a short placeholder."""
    if len(text) < 64 or "data:" not in text:
        return text
    return _DATA_URL_RE.sub(lambda m: f"[inline data: {m.group('mime') or 'binary'}]", text)


def _binary_placeholder(m: re.Match[str]) -> str:
    run = m.group(0)
    # Real base64 mixes cases and digits; "xxxx..." or a long word is left alone.
    if not (_UPPER_RE.search(run) and _LOWER_RE.search(run) and _DIGIT_RE.search(run)):
        return run
    return f"[binary data: {len(run)} characters]"


def format_call(call: Mapping[str, Any], *, max_chars: int = 2000) -> str:
    """A tool call as ``name(key="value", n=3)``; arguments capped at ``max_chars``."""
    fn = call.get("function")
    if not isinstance(fn, Mapping):  # a non-function tool type: show its type
        return f"{_inline(str(call.get('type', 'tool')), 64)}()"
    name = _inline(str(fn.get("name", "?")), 64)
    raw = fn.get("arguments", "")
    args = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
    try:
        parsed = load_json(args) if args.strip() else {}
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        rendered = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in parsed.items())
    else:
        rendered = args.strip()
    return f"{name}({elide(scrub_binary(rendered), max_chars)})"


def tool_names(messages: Sequence[Message]) -> dict[str, str]:
    """Map each tool call id in ``messages`` to the called function's name."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.tool_calls or ():
            fn = call.get("function")
            if isinstance(fn, Mapping) and "id" in call:
                names[str(call["id"])] = str(fn.get("name", "tool"))
    return names


def elide(text: str, max_chars: int) -> str:
    """``text`` cut to ``max_chars`` with ``... [N more characters elided]`` when longer."""
    if max_chars < 0 or len(text) <= max_chars:
        return text
    return f"{text[:max_chars]} ... [{len(text) - max_chars} more characters elided]"


def _calls_of(message: Message) -> list[Mapping[str, Any]]:
    calls: list[Mapping[str, Any]] = list(message.tool_calls or ())
    legacy = (message.model_extra or {}).get("function_call")
    if isinstance(legacy, Mapping):
        calls.append({"type": "function", "function": legacy})
    return calls


def part_text(part: Mapping[str, Any]) -> str:
    """A content part as text: its text, or a placeholder for media (``[image]``)."""
    kind = part.get("type")
    if kind == "text":
        return str(part.get("text", ""))
    if kind == "refusal":
        return f"[refusal] {part.get('refusal', '')}"
    if kind == "image_url":
        return "[image]"
    if kind == "input_audio":
        audio = part.get("input_audio")
        fmt = audio.get("format") if isinstance(audio, Mapping) else None
        return f"[audio: {_inline(str(fmt), 16)}]" if fmt else "[audio]"
    if kind == "file":
        file = part.get("file")
        fname = file.get("filename") if isinstance(file, Mapping) else None
        return f"[file: {_inline(str(fname), 80)}]" if fname else "[file]"
    return f"[{_inline(str(kind), 32)}]"


def _inline(value: str, cap: int) -> str:
    """One line, no brackets (they would fake a label), at most ``cap`` characters."""
    text = _SPACE_RE.sub(" ", value).strip().replace("[", "(").replace("]", ")")
    return text if len(text) <= cap else text[: cap - 3] + "..."
