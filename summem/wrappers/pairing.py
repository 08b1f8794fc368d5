"""The view as it goes out, with every tool call next to its results, as providers require.

OpenAI's chat completions (and Anthropic's messages) accept an assistant message with
``tool_calls`` only when the tool results answering all of its calls follow it at once, and a
tool result only right after its call (llama.cpp's server does not check). A session may hold
other orders: a call the application never answered (its tool failed, the user moved on)
followed by more turns, or a result that arrived after other messages. Sent as stored to a
provider that checks, such a view would be refused on every turn from then on.
:func:`paired_for_provider` renders it so that it is accepted, in the request only (no stored
message changes, and ``memory.messages()`` stays the view as stored):

* a result that came late stays where it is, so the model reads it where it arrived: its
  call is moved down to it, taken out of its assistant message (left out if nothing else is
  left in it) and sent in an assistant message of its own right before the result;
* a second result for a call answered already (a tool retried) is sent the same way, after
  a copy of its call;
* a call the conversation went past with no result (anything but tool results after it) is
  kept, followed after its call group by a stub result saying no result was recorded;
* a call still awaiting its results at the end of the view (the application is running its
  tools) stays as it is.

Calls are matched to results by id, each call to the first result with its id after it and
before the next call reusing the id (some servers number the calls of every turn ``call_0``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["NO_RESULT", "paired_for_provider", "paired_items"]

NO_RESULT = "No result was recorded for this tool call."
"""The content of the stub result sent for a call the conversation went past unanswered."""


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    if message.get("role") != "assistant":
        return []
    return [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]


def _is_result(message: dict[str, Any]) -> bool:
    return message.get("role") == "tool" and message.get("tool_call_id") is not None


def _match(
    messages: Sequence[dict[str, Any]],
) -> tuple[dict[tuple[int, int], int], dict[int, tuple[int, int]]]:
    """Which result answers which call, and which results answer a call answered already.

    The first maps (call's message, call's place in it) to its result's position, the second
    a second result (a tool retried) to that call. A result answers the latest call with its
    id before it that has no result yet.
    """
    waiting: dict[str, tuple[int, int]] = {}  # id -> its latest call, while unanswered
    latest: dict[str, tuple[int, int]] = {}  # id -> its latest call
    matched: dict[tuple[int, int], int] = {}
    again: dict[int, tuple[int, int]] = {}  # a second result for a call -> the call
    for i, m in enumerate(messages):
        for k, c in enumerate(_calls(m)):
            # a reused id: the earlier call stays as it is
            waiting[str(c.get("id"))] = latest[str(c.get("id"))] = (i, k)
        if _is_result(m):
            call_id = str(m["tool_call_id"])
            at = waiting.pop(call_id, None)
            if at is not None:
                matched[at] = i
            elif call_id in latest:
                again[i] = latest[call_id]
    return matched, again


def _run_end(messages: Sequence[dict[str, Any]], i: int) -> int:
    """Where the tool results right after message ``i`` end."""
    j = i + 1
    while j < len(messages) and messages[j].get("role") == "tool":
        j += 1
    return j


def _call_message(original: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    """An assistant message carrying just ``calls``, its content as the style rendered it.

    A rendering with string contents (the compat styles: llama.cpp refuses ``null`` beside
    ``tool_calls``) gets ``""``; the default one ``null``.
    """
    content = "" if isinstance(original.get("content"), str) else None
    return {"role": "assistant", "content": content, "tool_calls": calls}


def paired_for_provider(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with each tool call followed at once by its results (see the module)."""
    if not _needs_pairing(messages):
        return list(messages)
    matched, again = _match(messages)
    late: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {  # result -> (message, call)
        j: (messages[i], _calls(messages[i])[k]) for j, (i, k) in again.items()
    }
    in_group: set[int] = set()
    out: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        calls = _calls(m)
        if not calls:
            if i in late:
                original, c = late[i]
                out.append(_call_message(original, [c]))
                out.append(m)
            elif i not in in_group:
                out.append(m)
            continue
        end = _run_end(messages, i)
        pending = end == len(messages)  # nothing but results after it: tools running
        kept: list[dict[str, Any]] = []
        results: list[int] = []
        stubs: list[dict[str, Any]] = []
        for k, c in enumerate(calls):
            at = matched.get((i, k))
            if at is not None and at >= end:
                late[at] = (m, c)  # sent right before its result
                continue
            kept.append(c)
            if at is not None:
                results.append(at)
            elif not pending:
                stubs.append({"role": "tool", "tool_call_id": c.get("id"), "content": NO_RESULT})
        if kept:
            out.append(m if len(kept) == len(calls) else {**m, "tool_calls": kept})
        elif m.get("content"):
            out.append({k: v for k, v in m.items() if k != "tool_calls"})
        in_group.update(results)
        out.extend(messages[j] for j in sorted(results))
        out.extend(stubs)
    return out


def _needs_pairing(messages: Sequence[dict[str, Any]]) -> bool:
    """Whether some call's results do not follow it at once, or some result its call.

    The common view: no, and it goes out as it is.
    """
    group: set[str] = set()  # the ids of the calls the results in a row may answer
    for m in messages:
        if m.get("role") == "tool":
            call_id = str(m.get("tool_call_id"))
            if call_id not in group:
                return True  # a result away from its call, or a second one
            group.discard(call_id)
            continue
        if group:
            return True  # something else follows before every call is answered
        group = {str(c.get("id")) for c in _calls(m)}
    return False


def paired_items(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Responses API ``input`` items repaired like :func:`paired_for_provider` repairs messages.

    A run of ``function_call`` items is one assistant turn's calls (parallel calls: the model
    emits them together, then their outputs), each answered by the ``function_call_output``
    with its ``call_id``: the same rules apply, a late output's call moved down to it, a stub
    output after a call gone past unanswered. A valid input comes back as it is.
    """
    as_chat: list[dict[str, Any]] = []
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            call = {"id": item.get("call_id"), "item": item}
            last = as_chat[-1] if as_chat else None
            if last is not None and last.get("role") == "assistant":
                last["tool_calls"].append(call)  # the same turn's next call
            else:
                as_chat.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            as_chat.append({"role": "tool", "tool_call_id": item.get("call_id"), "item": item})
        else:
            as_chat.append({"role": "other", "item": item})
    if not _needs_pairing(as_chat):
        return list(items)
    out: list[dict[str, Any]] = []
    for m in paired_for_provider(as_chat):
        if "item" in m:
            out.append(m["item"])
        elif m.get("role") == "tool":  # a stub
            call_id = m["tool_call_id"]
            out.append({"type": "function_call_output", "call_id": call_id, "output": NO_RESULT})
        else:  # a turn's calls (those left in place, or one moved down)
            out.extend(c["item"] for c in m["tool_calls"])
    return out
