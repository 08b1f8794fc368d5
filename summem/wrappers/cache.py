"""Prompt-cache breakpoints on the view sent to Anthropic models (``cache_control``).

Anthropic caches a prompt only up to the blocks marked ``cache_control: {"type": "ephemeral"}``
(at most four per request); a later request whose prefix matches reads it at a tenth of the
price, and pays 1.25 times for what it writes. summem's view has three natural places: the
system message (with the tool definitions before it, it survives every reduction), the
summary (it changes only when a reduction commits) and the last message (the next turn reads
everything up to it). The wrappers mark them on each request, recomputed from the view as it
is then, so they stay valid across reductions; markers already in the recorded messages count
towards the limit of four (ours give way: the last message first kept, then the system, then
the summary).

litellm turns these markers into Anthropic's: on a text part of a system, user or assistant
message, on a tool result (the tool message's own ``cache_control``) and on an assistant's
last tool call. Other providers get nothing: OpenAI caches prefixes by itself.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Literal

from summem.errors import ConfigurationError

__all__ = [
    "BREAKPOINT_PLACES",
    "DEFAULT_BREAKPOINTS",
    "EPHEMERAL",
    "MAX_BREAKPOINTS",
    "BreakpointPlace",
    "check_breakpoints",
    "is_claude",
    "with_breakpoints",
]

BreakpointPlace = Literal["system", "summary", "last"]
BREAKPOINT_PLACES: tuple[BreakpointPlace, ...] = ("system", "summary", "last")
DEFAULT_BREAKPOINTS: tuple[BreakpointPlace, ...] = BREAKPOINT_PLACES
"""Where the wrappers put breakpoints for Anthropic models unless told otherwise."""
MAX_BREAKPOINTS = 4
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
_PRIORITY: tuple[BreakpointPlace, ...] = ("last", "system", "summary")


def check_breakpoints(places: Sequence[str] | None) -> tuple[BreakpointPlace, ...] | None:
    """``places`` checked: ``None`` (automatic), or some of ``system``, ``summary``, ``last``.

    Raises:
        ConfigurationError: an unknown place, or a string instead of a sequence.
    """
    if places is None:
        return None
    if isinstance(places, str):
        raise ConfigurationError(
            f"cache_breakpoints must be a sequence of places, e.g. ('system', 'last'), got "
            f"{places!r}"
        )
    unknown = [p for p in places if p not in BREAKPOINT_PLACES]
    if unknown:
        raise ConfigurationError(
            f"cache_breakpoints: unknown place(s) {unknown}; use {', '.join(BREAKPOINT_PLACES)}"
        )
    return tuple(p for p in BREAKPOINT_PLACES if p in places)


def is_claude(model: str | None) -> bool:
    """True for an Anthropic model, by its name (``anthropic/...``, ``claude-...``, Bedrock's)."""
    return isinstance(model, str) and "claude" in model.lower()


def with_breakpoints(
    messages: list[dict[str, Any]],
    places: Sequence[BreakpointPlace],
    *,
    summary_text: str | None,
) -> list[dict[str, Any]]:
    """``messages`` with ``cache_control`` on the messages at ``places`` (copies; at most 4)."""
    if not messages or not places:
        return messages
    found: dict[BreakpointPlace, int] = {}
    if "last" in places:
        found["last"] = len(messages) - 1
    if "system" in places and messages[0].get("role") in ("system", "developer"):
        found["system"] = 0
    if "summary" in places and summary_text:
        for i, message in enumerate(messages):
            if summary_text in _text(message):
                found["summary"] = i
                break
    room = MAX_BREAKPOINTS - sum(_marks(m) for m in messages)
    marked: set[int] = set()
    for place in _PRIORITY:
        index = found.get(place)
        if index is None or index in marked or _marks(messages[index]):
            continue
        if len(marked) >= room:
            break
        marked.add(index)
    return [_marked(m) if i in marked else m for i, m in enumerate(messages)]


def _marked(message: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(message)
    content = out.get("content")
    if out.get("role") == "tool":
        out["cache_control"] = dict(EPHEMERAL)
    elif isinstance(content, str) and content:
        out["content"] = [{"type": "text", "text": content, "cache_control": dict(EPHEMERAL)}]
    elif isinstance(content, list) and content and isinstance(content[-1], dict):
        content[-1]["cache_control"] = dict(EPHEMERAL)
    elif out.get("tool_calls"):
        out["tool_calls"][-1]["cache_control"] = dict(EPHEMERAL)
    return out


def _marks(message: dict[str, Any]) -> int:
    """Breakpoints a message already carries."""
    count = int("cache_control" in message)
    content = message.get("content")
    if isinstance(content, list):
        count += sum(isinstance(p, dict) and "cache_control" in p for p in content)
    for call in message.get("tool_calls") or ():
        count += isinstance(call, dict) and "cache_control" in call
    return count


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""
