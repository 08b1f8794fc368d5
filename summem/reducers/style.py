"""How the view is rendered for a provider or a chat template; the history never changes.

Some servers and chat templates accept less than OpenAI does. Templates of Gemma, Mistral and
Llama-2-style models raise "Conversation roles must alternate user/assistant/..." when two user
messages follow each other: a summary sent as a ``user`` message before a kept user turn, or a
failed call that left a user message without its reply. llama.cpp's server rejects
``content: null`` beside ``tool_calls``, content given as a list of parts, and the ``developer``
role. A :class:`ViewStyle` renders the view so they accept it, from the same stored messages:

* ``alternating``: after the system message, user and assistant turns alternate, starting with
  a user turn, whatever the cut: adjacent messages of one role are merged (their text joined),
  and where merging cannot help (a view that starts with an assistant turn, two user turns
  separated only by tool traffic) a minimal placeholder turn is inserted. Tool calls and their
  results are skipped by the alternation (as Mistral's template does) unless
  ``tools_as_text`` turns them into plain turns (for templates without tool support, such as
  Gemma's, which check every message).
* ``tools_as_text``: an assistant's tool calls become a line of its text, and each result a
  user turn naming the tool; nothing of either is dropped.
* ``empty_null_content``: ``content: null`` is sent as ``""``.
* ``text_content``: content parts are sent as one string (text parts joined; other parts as a
  short placeholder such as ``[image]``).
* ``developer_as_system``: the ``developer`` role is sent as ``system``.
* ``reply_as_text``: an assistant reply with no text and no tool calls that carries only a
  ``refusal`` or an ``audio`` reply is sent with that as its content: the refusal's text, the
  audio's transcript (in the message or in its ``meta["audio"]``), or ``[audio reply]``.
  Servers that do not know those fields (litellm's Anthropic and Gemini routes) would
  otherwise drop the turn; the fields stay.

:meth:`ViewStyle.compat` bundles what OpenAI-compatible servers commonly need (strings only, no
null content, no developer role, replies as text); :meth:`ViewStyle.strict` adds strict
alternation with tool traffic as text, for any chat template. The litellm wrapper turns
``reply_as_text`` on by itself unless litellm routes the call to OpenAI or Azure (see
:func:`summem.wrappers.turn.reply_text_needed`); its ``reply_as_text=False`` argument turns
that off, and so does a style that sets ``reply_as_text`` (left unset, ``None``, it is off and
the wrapper decides by the route).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from summem.messages import Message

__all__ = [
    "AUDIO_PLACEHOLDER",
    "PLACEHOLDER_ASSISTANT",
    "PLACEHOLDER_USER",
    "ViewStyle",
    "apply_style",
    "audio_transcripts",
    "expired_audio_as_text",
]

PLACEHOLDER_USER = "(The earlier conversation continues.)"
"""The user turn inserted when a view would otherwise start with the assistant."""
PLACEHOLDER_ASSISTANT = "(No reply.)"
"""The assistant turn inserted between two user turns that merging cannot join."""
AUDIO_PLACEHOLDER = "[audio reply]"
"""The content ``reply_as_text`` gives an audio reply that came without a transcript."""


@dataclass(frozen=True)
class ViewStyle:
    """How the view is rendered (see the module docstring); the default changes nothing."""

    alternating: bool = False
    tools_as_text: bool = False
    empty_null_content: bool = False
    text_content: bool = False
    developer_as_system: bool = False
    reply_as_text: bool | None = None
    """``None``: not set (off; the litellm wrapper may turn it on by the call's route)."""

    @classmethod
    def compat(cls) -> ViewStyle:
        """Strings only, no ``null`` content, ``system`` not ``developer`` (llama.cpp, vLLM...)."""
        return cls(
            empty_null_content=True,
            text_content=True,
            developer_as_system=True,
            reply_as_text=True,
        )

    @classmethod
    def strict(cls) -> ViewStyle:
        """:meth:`compat` plus strict user/assistant alternation, tool traffic as text."""
        return cls(
            alternating=True,
            tools_as_text=True,
            empty_null_content=True,
            text_content=True,
            developer_as_system=True,
            reply_as_text=True,
        )

    @property
    def is_plain(self) -> bool:
        """True when this style changes nothing (``reply_as_text=False`` is plain too)."""
        return not self.reply_as_text and replace(self, reply_as_text=None) == _PLAIN


_PLAIN = ViewStyle()


def audio_transcripts(messages: Iterable[Message]) -> dict[str, str]:
    """The transcripts kept in ``meta["audio"]`` of audio replies, by the audio's id.

    A wrapper stores an audio reply as ``audio: {"id": ...}`` (what a request takes) and its
    transcript in the message's meta (see :func:`summem.wrappers.stream.request_form`).
    """
    out: dict[str, str] = {}
    for msg in messages:
        audio = (msg.model_extra or {}).get("audio")
        kept = msg.meta.get("audio") if isinstance(audio, dict) else None
        transcript = kept.get("transcript") if isinstance(kept, dict) else None
        if isinstance(transcript, str) and transcript and isinstance(audio, dict):
            out[str(audio.get("id"))] = transcript
    return out


def expired_audio_as_text(
    sent: Sequence[dict[str, Any]], messages: Iterable[Message], now: float
) -> list[dict[str, Any]]:
    """``sent`` with each expired audio reply as its transcript (content, no ``audio``).

    Expired: ``meta["audio"]["expires_at"]`` is ``<= now`` (seconds since the epoch). The
    provider forgets the audio then, and may refuse a request naming it. A reply that has
    text content keeps it; one with no transcript gets :data:`AUDIO_PLACEHOLDER`. The dicts
    given are not changed.
    """
    expired: dict[str, str] = {}
    for msg in messages:
        audio = (msg.model_extra or {}).get("audio")
        kept = msg.meta.get("audio")
        if not isinstance(audio, dict) or not isinstance(kept, dict):
            continue
        expires = kept.get("expires_at")
        if isinstance(expires, (int, float)) and not isinstance(expires, bool) and expires <= now:
            text = kept.get("transcript")
            expired[str(audio.get("id"))] = text if isinstance(text, str) and text else ""
    if not expired:
        return list(sent)
    out: list[dict[str, Any]] = []
    for one in sent:
        audio = one.get("audio")
        if isinstance(audio, dict) and str(audio.get("id")) in expired:
            text = expired[str(audio.get("id"))] or AUDIO_PLACEHOLDER
            content = one.get("content") if _text(one.get("content")) else text
            one = {k: v for k, v in one.items() if k != "audio"} | {"content": content}
        out.append(one)
    return out


def apply_style(
    messages: Sequence[dict[str, Any]],
    style: ViewStyle,
    *,
    transcripts: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """``messages`` rendered in ``style``; the dicts given are not changed.

    ``transcripts``: audio transcripts by audio id (:func:`audio_transcripts`), for
    ``reply_as_text`` when an audio reply carries only its id.
    """
    if style.is_plain:
        return list(messages)
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for original in messages:
        msg = dict(original)
        if style.developer_as_system and msg.get("role") == "developer":
            msg["role"] = "system"
        if style.reply_as_text:
            msg = _reply_as_text(msg, transcripts or {})
        if style.tools_as_text:
            msg = _tool_as_text(msg, names)
        if style.text_content and isinstance(msg.get("content"), list):
            msg["content"] = _flatten(msg["content"])
        if style.empty_null_content and msg.get("content") is None:
            msg["content"] = ""
        out.append(msg)
    if style.alternating:
        out = _alternate(out)
    return out


def _reply_as_text(msg: dict[str, Any], transcripts: Mapping[str, str]) -> dict[str, Any]:
    """An assistant reply with only a refusal or audio, with that as its content."""
    if msg.get("role") != "assistant" or msg.get("tool_calls") or _text(msg.get("content")):
        return msg
    refusal = msg.get("refusal")
    audio = msg.get("audio")
    if isinstance(refusal, str) and refusal:
        text = refusal
    elif isinstance(audio, dict) and audio:
        transcript = audio.get("transcript") or transcripts.get(str(audio.get("id")))
        text = transcript if isinstance(transcript, str) and transcript else AUDIO_PLACEHOLDER
    else:
        return msg
    return {**msg, "content": text}


def _tool_as_text(msg: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    calls = msg.get("tool_calls")
    if msg.get("role") == "assistant" and calls:
        lines = [_text(msg.get("content"))] if _text(msg.get("content")) else []
        for call in calls:
            fn = call.get("function") or {}
            names[str(call.get("id"))] = str(fn.get("name"))
            lines.append(f"[called {fn.get('name')}({fn.get('arguments') or ''})]")
        return {"role": "assistant", "content": "\n".join(lines)}
    if msg.get("role") == "tool":
        name = names.get(str(msg.get("tool_call_id")), "tool")
        return {"role": "user", "content": f"[{name} returned] {_text(msg.get('content'))}"}
    return msg


def _flatten(parts: list[Any]) -> str:
    out: list[str] = []
    for part in parts:
        if not isinstance(part, dict):
            out.append(str(part))
        elif part.get("type") == "text":
            out.append(str(part.get("text", "")))
        elif part.get("type") == "refusal":
            out.append(str(part.get("refusal", "")))
        else:
            out.append(f"[{str(part.get('type', 'part')).replace('_url', '')}]")
    return "\n".join(out)


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return _flatten(content)
    return json.dumps(content, ensure_ascii=False)


def _is_tool_traffic(msg: dict[str, Any]) -> bool:
    return msg.get("role") == "tool" or bool(
        msg.get("role") == "assistant" and msg.get("tool_calls")
    )


def _merge(into: dict[str, Any], msg: dict[str, Any]) -> None:
    first, second = into.get("content"), msg.get("content")
    if isinstance(first, list) or isinstance(second, list):
        parts = first if isinstance(first, list) else [{"type": "text", "text": _text(first)}]
        more = second if isinstance(second, list) else [{"type": "text", "text": _text(second)}]
        into["content"] = [*parts, *more]
    else:
        joined = [t for t in (_text(first), _text(second)) if t]
        into["content"] = "\n\n".join(joined)


def _alternate(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """User/assistant alternation after the leading system messages (see the module docstring)."""
    lead = 0
    while lead < len(messages) and messages[lead].get("role") in ("system", "developer"):
        lead += 1
    out = messages[:lead]
    expected = "user"
    last_plain: dict[str, Any] | None = None
    adjacent = False  # the last message out is ``last_plain`` (nothing between)
    for msg in messages[lead:]:
        role = msg.get("role")
        if _is_tool_traffic(msg) or role not in ("user", "assistant"):
            if role == "assistant" and expected == "user":
                out.append({"role": "user", "content": PLACEHOLDER_USER})
                expected = "assistant"
            out.append(msg)
            adjacent = False
            continue
        if role == expected:
            out.append(msg)
            last_plain, adjacent = msg, True
            expected = "assistant" if role == "user" else "user"
        elif adjacent and last_plain is not None:
            _merge(last_plain, msg)
        else:
            filler = PLACEHOLDER_USER if expected == "user" else PLACEHOLDER_ASSISTANT
            out.append({"role": expected, "content": filler})
            out.append(msg)
            last_plain, adjacent = msg, True
    return out
