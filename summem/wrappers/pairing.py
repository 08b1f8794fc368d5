"""The view as it goes out, with every tool call next to its results, as providers require.

OpenAI's chat completions (and Anthropic's messages) accept an assistant message with
``tool_calls`` only when the tool results answering all of its calls follow it at once
(llama.cpp's server does not check). A session may hold other orders: a call the application
never answered (its tool failed, the user moved on) followed by more turns, or a result that
arrived after other messages. Sent as stored to a provider that checks, such a view would be
refused on every turn from then on. :func:`paired_for_provider` renders it so that
it is accepted, changing no stored message: each call's results are moved up to follow it,
and a call with no result that the conversation went past (anything but its own results after
it) is left out of the request; an assistant message left with no call and no content is
left out too. A call still awaiting its results at the end of the view (the application is
running its tools) stays as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["paired_for_provider"]


def _call_ids(message: dict[str, Any]) -> list[str]:
    return [str(c.get("id")) for c in message.get("tool_calls") or [] if isinstance(c, dict)]


def paired_for_provider(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with each tool call followed at once by its results (see the module)."""
    results: dict[str, int] = {}  # tool_call_id -> position of its result
    for i, m in enumerate(messages):
        if m.get("role") == "tool" and m.get("tool_call_id") is not None:
            results.setdefault(str(m["tool_call_id"]), i)
    if not _needs_pairing(messages):
        return list(messages)
    out: list[dict[str, Any]] = []
    moved: set[int] = set()
    for i, m in enumerate(messages):
        if i in moved:
            continue
        ids = _call_ids(m) if m.get("role") == "assistant" else []
        if not ids:
            out.append(m)
            continue
        answered = [c for c in ids if c in results and results[c] > i]
        at_tail = all(messages[j].get("role") == "tool" for j in range(i + 1, len(messages)))
        if at_tail or len(answered) == len(ids):
            out.append(m)
        else:  # the conversation went past the unanswered calls: leave them out
            kept = [c for c in m["tool_calls"] if str(c.get("id")) in answered]
            if kept:
                out.append({**m, "tool_calls": kept})
            elif m.get("content"):
                out.append({k: v for k, v in m.items() if k != "tool_calls"})
        for c in answered:
            moved.add(results[c])
            out.append(messages[results[c]])
    return out


def _needs_pairing(messages: Sequence[dict[str, Any]]) -> bool:
    """Whether some call's results do not follow it at once (the common view: no)."""
    for i, m in enumerate(messages):
        ids = _call_ids(m) if m.get("role") == "assistant" else []
        if not ids:
            continue
        j = i + 1
        while j < len(messages) and messages[j].get("role") == "tool":
            j += 1
        block = {str(messages[k].get("tool_call_id")) for k in range(i + 1, j)}
        if j < len(messages) and not set(ids) <= block:
            return True  # something else follows before every call is answered (or at all)
    return False
