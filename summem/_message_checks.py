"""What a chat-completions dict must pass to become a :class:`~summem.messages.Message`.

These checks say what each field holds (``Message`` is a plain class, not a pydantic model)
and what OpenAI requires beyond that (a ``tool`` message needs its ``tool_call_id``, tool
calls only on ``assistant``, a part of a known type needs its payload...). Each error names
the message's index in its batch and the field at fault, e.g.
``message 3, field 'content[1].image_url.url'``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from summem._words import a
from summem.errors import MessageTypeError, MessageValidationError

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "ROLES",
    "check_message",
    "check_part",
    "check_values",
    "expect_batch",
    "load_json",
    "stored_values",
]

ROLES: frozenset[str] = frozenset(("system", "developer", "user", "assistant", "tool"))

# Required keys (and their types) for the content part types summem knows. Unknown part types
# are kept as they are, so a provider's new part type does not break summem.
_PART_FIELDS: dict[str, tuple[str, type]] = {
    "text": ("text", str),
    "image_url": ("image_url", dict),
    "input_audio": ("input_audio", dict),
    "file": ("file", dict),
    "refusal": ("refusal", str),
}


_EXACT_SCALARS = frozenset((str, int, float, bool, type(None)))

MAX_DEPTH = 64
"""Deepest nesting of lists and mappings a message may have (a message is a few levels deep)."""

MAX_INT_DIGITS = 640
"""Most decimal digits an integer may have: the smallest limit Python lets a process set on
``str(int)`` (``sys.set_int_max_str_digits``), so a value accepted here is written as JSON by
every store, in every process."""

_INT_BOUND = 10**MAX_INT_DIGITS

_STORED: ContextVar[bool] = ContextVar("summem_stored_values", default=False)


@contextmanager
def stored_values() -> Iterator[None]:
    """Check values summem wrote itself (a store's record, a :meth:`to_dict` session).

    :data:`MAX_INT_DIGITS` is an entry limit for new input: a record an earlier release stored
    may hold a longer integer (up to Python's own limit, which ``json.loads`` applies when it
    reads the record), and it must stay readable. Every other rule still holds.
    """
    token = _STORED.set(True)
    try:
        yield
    finally:
        _STORED.reset(token)


def _int_problem(value: int) -> str | None:
    if -_INT_BOUND < value < _INT_BOUND or _STORED.get():
        return None
    return f"an integer of more than {MAX_INT_DIGITS} digits cannot be stored as JSON"


def check_values(data: Mapping[str, Any], index: int | None) -> bool:
    """Every value is storable as strict JSON, the same on every store; True if any is nested.

    No text with lone surrogates (they cannot be encoded as UTF-8: SQLite and Redis would fail
    where the memory store would not), no ``NaN`` or infinite number (not JSON), no key that is
    not a string, no nesting deeper than :data:`MAX_DEPTH` (a recursion bomb), no integer
    longer than :data:`MAX_INT_DIGITS` (``str()`` refuses it), and only JSON types. Walks
    iteratively: a hostile message cannot exhaust the stack here.

    Returns:
        True when a copy must go deeper than the top level: a value is a list, a mapping or a
        subclass of a scalar type; False when every value is an exact ``str``, ``int``,
        ``float``, ``bool`` or ``None``.

    Raises:
        MessageValidationError: naming the field, e.g. ``content[0].text``;
            :class:`~summem.errors.MessageTypeError` (also a ``TypeError``) for a value or
            key of a type JSON cannot hold.
    """
    stack: list[tuple[Any, str, int]] = []
    for key, value in data.items():
        if not isinstance(key, str):
            raise MessageTypeError(f"keys must be strings, got {key!r}", index=index)
        kind = type(value)  # the common top-level values are settled here, without the stack
        if (kind is str and value.isascii()) or value is None or kind is bool:
            continue
        if kind is int and -_INT_BOUND < value < _INT_BOUND:
            continue
        stack.append((value, key, 1))
    nested = False
    while stack:
        value, where, depth = stack.pop()
        kind = type(value)
        if kind not in _EXACT_SCALARS:
            nested = True  # a container, or a subclass of a scalar type: copied deeply
        if isinstance(value, str):
            if not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    raise MessageValidationError(
                        "text is not valid Unicode (a lone surrogate): it cannot be stored",
                        index=index,
                        field=where,
                    ) from None
        elif isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise MessageValidationError(
                    f"{value!r} is not a JSON number", index=index, field=where
                )
        elif value is None or kind is bool:
            continue
        elif isinstance(value, int):
            problem = _int_problem(value)
            if problem is not None:
                raise MessageValidationError(problem, index=index, field=where)
        elif isinstance(value, (Mapping, list, tuple)):
            if depth >= MAX_DEPTH:
                shown = where if len(where) <= 60 else where[:57] + "..."
                raise MessageValidationError(
                    f"nested deeper than {MAX_DEPTH} levels", index=index, field=shown
                )
            if isinstance(value, Mapping):
                for k, v in value.items():
                    if not isinstance(k, str):
                        raise MessageTypeError(
                            f"keys must be strings, got {k!r}", index=index, field=where
                        )
                    stack.append((v, f"{where}.{k}", depth + 1))
            else:
                stack.extend((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value))
        else:
            raise MessageTypeError(
                f"{type(value).__name__} is not a JSON value", index=index, field=where
            )
    return nested


def expect_batch(items: object, what: str = "messages") -> None:
    """``items`` can be a batch: an iterable, not a string, bytes or a single mapping.

    Raises:
        MessageValidationError: naming what was passed instead.
    """
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise MessageValidationError(f"expected a list of {what}, got {type(items).__name__}")


def _bounded_int(digits: str) -> int:
    if len(digits) > MAX_INT_DIGITS + 1:  # checked before the conversion, which is quadratic
        raise ValueError(f"an integer of more than {MAX_INT_DIGITS} digits")
    return int(digits)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json(text: str | bytes, *, index: int | None = None, field: str = "json") -> Any:
    """Parse JSON text summem did not write (a model's tool arguments, a tool's result, a file).

    The value is held to :func:`check_values`' rules (depth, integer size, strict JSON), so a
    hostile text gives an error naming it, never a ``RecursionError`` from the parser or from
    whatever walks the value later.

    Raises:
        MessageValidationError: (a ``ValueError``) the text is not JSON, or not such a value;
            ``index`` and ``field`` say where the text came from.
    """
    try:
        value = json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except RecursionError:
        raise MessageValidationError(
            f"nested deeper than {MAX_DEPTH} levels",
            index=index,
            field=field,
        ) from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, the hooks above
        raise MessageValidationError(
            f"not valid JSON: {str(exc)[:200]}", index=index, field=field
        ) from exc
    check_values({field: value}, index)
    return value


_LEGACY_RESULT = (
    "role 'function' (the legacy result of function {name!r}) is not supported: a legacy "
    "result names no call, so summem cannot keep it paired with its call. Send the pair in "
    "tool form instead: the assistant message with "
    '"tool_calls": [{{"id": "call_1", "type": "function", "function": {{"name": ..., '
    '"arguments": ...}}}}] in place of "function_call", then '
    '{{"role": "tool", "tool_call_id": "call_1", "content": ...}} (and tools= in place of '
    "functions=)"
)
"""The error for a legacy ``{"role": "function", ...}`` result (OpenAI's deprecated form)."""


def check_message(data: Mapping[str, Any], index: int | None) -> bool:
    """Every check of one message (field types and OpenAI's rules); each error names the field.

    Returns:
        True when a value is nested (see :func:`check_values`).
    """
    nested = check_values(data, index)
    role = data.get("role")
    if "role" not in data:
        hint = ""
        if isinstance(data.get("type"), str):  # e.g. {"type": "function_call", ...}
            hint = f" (a Responses API {data['type']!r} item? add those with add_items)"
        raise MessageValidationError("missing required field" + hint, index=index, field="role")
    if role == "function":
        raise MessageValidationError(_LEGACY_RESULT.format(name=data.get("name")), index=index)
    if not isinstance(role, str) or role not in ROLES:
        raise MessageValidationError(
            f"unknown role {role!r}; expected one of {sorted(ROLES)}", index=index, field="role"
        )
    content = data.get("content")
    if content is not None and not isinstance(content, (str, list)):
        raise MessageValidationError(
            f"must be a string, a list of content parts or null, got {type(content).__name__}",
            index=index,
            field="content",
        )
    if content is None and role in ("system", "developer", "user", "tool"):
        raise MessageValidationError(f"required for role {role!r}", index=index, field="content")
    if isinstance(content, list):
        for i, part in enumerate(content):
            check_part(part, index, i)
    if role == "tool":
        tcid = data.get("tool_call_id")
        if not isinstance(tcid, str) or not tcid:
            raise MessageValidationError(
                "required (a non-empty string) for role 'tool'", index=index, field="tool_call_id"
            )
    elif data.get("tool_call_id") is not None:
        raise MessageValidationError(
            f"only allowed on role 'tool', not {role!r}", index=index, field="tool_call_id"
        )
    calls = data.get("tool_calls")
    if calls is not None:
        if role != "assistant":
            raise MessageValidationError(
                f"only allowed on role 'assistant', not {role!r}", index=index, field="tool_calls"
            )
        if not isinstance(calls, list):
            raise MessageValidationError("must be a list", index=index, field="tool_calls")
        seen: set[str] = set()
        for i, call in enumerate(calls):
            where = f"tool_calls[{i}]"
            if not isinstance(call, Mapping):
                raise MessageValidationError("must be a mapping", index=index, field=where)
            cid = call.get("id")
            if not isinstance(cid, str) or not cid:
                raise MessageValidationError(
                    "must be a non-empty string", index=index, field=f"{where}.id"
                )
            if cid in seen:
                raise MessageValidationError(
                    f"duplicate tool call id {cid!r}", index=index, field=f"{where}.id"
                )
            seen.add(cid)
            fn = call.get("function")
            if call.get("type", "function") == "function":
                if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
                    raise MessageValidationError(
                        "must be a mapping with a string 'name'",
                        index=index,
                        field=f"{where}.function",
                    )
                args = fn.get("arguments", "")
                if not isinstance(args, str):
                    raise MessageValidationError(
                        f"must be a JSON string, got {type(args).__name__}",
                        index=index,
                        field=f"{where}.function.arguments",
                    )
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise MessageValidationError(
            f"must be a string, got {type(name).__name__}", index=index, field="name"
        )
    return nested


def check_part(part: object, index: int | None, i: int) -> None:
    """Check content part ``i`` of message ``index``: a mapping with a type and its payload."""
    where = f"content[{i}]"
    if not isinstance(part, Mapping):
        raise MessageValidationError(
            f"a content part must be a mapping, got {type(part).__name__}",
            index=index,
            field=where,
        )
    ptype = part.get("type")
    if not isinstance(ptype, str):
        raise MessageValidationError(
            "a content part needs a string 'type'", index=index, field=f"{where}.type"
        )
    spec = _PART_FIELDS.get(ptype)
    if spec is None:
        return
    key, kind = spec
    if not isinstance(part.get(key), kind):
        raise MessageValidationError(
            f"{a(repr(ptype))} part needs {key!r} as {a(kind.__name__)}",
            index=index,
            field=f"{where}.{key}",
        )
    if ptype == "image_url" and not isinstance(part[key].get("url"), str):
        raise MessageValidationError(
            "an image part needs a string 'url'", index=index, field=f"{where}.image_url.url"
        )
