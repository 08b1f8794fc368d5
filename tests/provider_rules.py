"""What each provider accepts, as small checkers over the request body litellm sent.

Each ``check_*`` function takes the JSON body of one request and returns the list of rules it
breaks (empty when the provider would accept it). They encode the rules that decide whether a
summarized view is accepted as a whole; they are not full schema validators.

OpenAI (chat completions): every assistant ``tool_calls`` entry is answered by a ``tool``
message, and those tool messages come directly after the call (results in any order); a tool
message never answers a call it does not follow; messages carry only chat-completions keys.

Anthropic (messages API): system text goes in the top-level ``system``, never in ``messages``;
``messages`` starts with ``user`` and alternates ``user``/``assistant``; every ``tool_use`` is
answered by a ``tool_result`` in the very next (user) message, tool results first in it; a
``tool_result`` answers a ``tool_use`` of the message just before; text blocks are non-empty;
``tools`` is defined when tool blocks appear; ``max_tokens`` is set.

Gemini (generateContent): system text goes in ``system_instruction`` (or, for models litellm
does not know to support it, the first user turn); ``contents`` starts with ``user`` and uses
only the roles ``user`` and ``model``; every ``model`` turn with ``function_call`` parts is
followed by a ``user`` turn whose ``function_response`` parts answer those calls (by name, one
each); a ``function_response`` never appears without that call turn; a response is an object.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

__all__ = ["all_strings", "check_anthropic", "check_gemini", "check_openai"]

OPENAI_MESSAGE_KEYS = frozenset(
    {"role", "content", "name", "tool_calls", "tool_call_id", "refusal", "audio"}
)


def all_strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (to check no text was lost on the way)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from all_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from all_strings(item)


# -- OpenAI ---------------------------------------------------------------------------------


def check_openai(body: dict[str, Any]) -> list[str]:
    """Rules a chat-completions request breaks."""
    problems: list[str] = []
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return ["messages must be a non-empty list"]
    open_ids: set[str] = set()  # calls of the assistant message the tool messages follow
    in_group = False
    for i, msg in enumerate(messages):
        role = msg.get("role")
        extra = set(msg) - OPENAI_MESSAGE_KEYS
        if extra:
            problems.append(f"messages[{i}]: unknown keys {sorted(extra)}")
        if role == "tool":
            call_id = msg.get("tool_call_id")
            if not in_group or call_id not in open_ids:
                problems.append(
                    f"messages[{i}]: tool result {call_id!r} does not directly follow its call"
                )
            open_ids.discard(call_id)
            continue
        if open_ids:
            problems.append(f"messages[{i}]: tool calls {sorted(open_ids)} were never answered")
        open_ids = set()
        in_group = False
        if role == "assistant" and msg.get("tool_calls"):
            open_ids = {c["id"] for c in msg["tool_calls"]}
            in_group = True
        elif role not in ("system", "developer", "user", "assistant"):
            problems.append(f"messages[{i}]: unknown role {role!r}")
    if open_ids:
        problems.append(f"end: tool calls {sorted(open_ids)} were never answered")
    return problems


# -- Anthropic ------------------------------------------------------------------------------


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list) else []


def check_anthropic(body: dict[str, Any]) -> list[str]:
    """Rules an Anthropic messages request breaks."""
    problems: list[str] = []
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return ["messages must be a non-empty list"]
    if "max_tokens" not in body:
        problems.append("max_tokens is required")
    system = body.get("system")
    if system is not None and not isinstance(system, (str, list)):
        problems.append("system must be a string or a list of text blocks")
    if messages[0].get("role") != "user":
        problems.append(
            f"messages[0]: first message must use the user role, not {messages[0].get('role')!r}"
        )
    uses_tools = False
    previous_role = None
    pending: set[str] = set()
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role not in ("user", "assistant"):
            problems.append(f"messages[{i}]: role {role!r} is not allowed (system goes top-level)")
        elif role == previous_role:
            problems.append(f"messages[{i}]: roles must alternate, two {role!r} messages in a row")
        previous_role = role
        blocks = _blocks(msg.get("content"))
        if not blocks:
            problems.append(f"messages[{i}]: content must not be empty")
        results = [b for b in blocks if b.get("type") == "tool_result"]
        answered = {str(b.get("tool_use_id")) for b in results}
        if pending:
            missing = pending - answered
            if role != "user" or missing:
                problems.append(
                    f"messages[{i}]: tool_use {sorted(missing or pending)} not answered "
                    "by a tool_result in the next message"
                )
            first_other = next(
                (j for j, b in enumerate(blocks) if b.get("type") != "tool_result"), len(blocks)
            )
            if any(b.get("type") == "tool_result" for b in blocks[first_other:]):
                problems.append(f"messages[{i}]: tool_result blocks must come first")
        stray = answered - pending
        if stray:
            problems.append(
                f"messages[{i}]: tool_result {sorted(stray)} answers no tool_use just before"
            )
        pending = set()
        for b in blocks:
            kind = b.get("type")
            if kind == "text" and not str(b.get("text", "")).strip():
                problems.append(f"messages[{i}]: text content blocks must be non-empty")
            if kind in ("tool_use", "tool_result"):
                uses_tools = True
            if kind == "tool_use":
                if role != "assistant":
                    problems.append(f"messages[{i}]: tool_use in a {role!r} message")
                call_id = str(b.get("id"))
                if call_id in pending:
                    problems.append(f"messages[{i}]: duplicate tool_use id {call_id!r}")
                pending.add(call_id)
    if pending:
        problems.append(f"end: tool_use {sorted(pending)} not answered by a tool_result")
    if uses_tools and not body.get("tools"):
        problems.append("tools must be defined when messages hold tool_use or tool_result")
    return problems


# -- Gemini ---------------------------------------------------------------------------------


def _part(part: dict[str, Any], snake: str, camel: str) -> Any:
    return part.get(snake, part.get(camel))


def check_gemini(body: dict[str, Any]) -> list[str]:
    """Rules a Gemini generateContent request breaks."""
    problems: list[str] = []
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return ["contents must be a non-empty list"]
    system = body.get("system_instruction", body.get("systemInstruction"))
    if system is not None and not (isinstance(system, dict) and system.get("parts")):
        problems.append("system_instruction must hold parts")
    if contents[0].get("role") != "user":
        problems.append(
            f"contents[0]: first content must use the user role, not {contents[0].get('role')!r}"
        )
    pending: Counter[str] = Counter()
    for i, content in enumerate(contents):
        role = content.get("role")
        if role not in ("user", "model"):
            problems.append(f"contents[{i}]: role {role!r} is not allowed (only user and model)")
        parts = content.get("parts")
        if not isinstance(parts, list) or not parts:
            problems.append(f"contents[{i}]: parts must be a non-empty list")
            parts = []
        calls = Counter(
            str(_part(p, "function_call", "functionCall").get("name"))
            for p in parts
            if _part(p, "function_call", "functionCall") is not None
        )
        responses: Counter[str] = Counter()
        for p in parts:
            response = _part(p, "function_response", "functionResponse")
            if response is None:
                continue
            responses[str(response.get("name"))] += 1
            if not isinstance(response.get("response"), dict):
                problems.append(f"contents[{i}]: a function_response's response must be an object")
        if pending and (role != "user" or responses != pending):
            problems.append(
                f"contents[{i}]: function_call {sorted(pending.elements())} not answered by "
                f"function_response parts in the next turn (got {sorted(responses.elements())})"
            )
        elif responses and not pending:
            problems.append(f"contents[{i}]: function_response without a function_call just before")
        if calls and role != "model":
            problems.append(f"contents[{i}]: function_call in a {role!r} turn")
        pending = calls
    if pending:
        problems.append(f"end: function_call {sorted(pending.elements())} never answered")
    return problems
