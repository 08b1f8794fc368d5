"""Tool calls and results as compact facts for the extractive summarizer.

A tool result is what an assistant most often needs again (a refund's reference, an order's
status, a balance), and the most wasteful text to keep whole (JSON keys, quotes, echoes of the
call's own arguments). So one call and its result become one line such as
``create_refund(order_id=BW-58214-K, amount=37.5) -> refund_id=RF-22907; status=approved;
expected_by=2025-03-21``: the call's arguments, identifying ones first, unquoted when that is
unambiguous; then the result's scalar fields, identifying keys first, minus any field that only
repeats an argument. Pure functions, linear in their input.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["call_arguments", "compact_call", "flatten_json", "tool_body"]

_KEY_PRIORITY_RE = re.compile(
    r"(?:^|[._-])(?:id|code|no|num|number|status|state|date|time|eta|total|amount|price|cost"
    r"|balance|name|email|phone|address|city|country|result|error|message|count|qty|quantity"
    r"|sku|order|booking|ref|reference|url|due|deadline|temperature|value|points|expires?"
    r"|expected|expected_by|by|until|valid|tracking|window|currency)(?:$|[._-])",
    re.IGNORECASE,
)
_SPACE_RE = re.compile(r"\s+")
_BARE_VALUE_RE = re.compile(r"[^,()=;\"\n]{1,60}")
_MAX_PAIRS = 12
_MAX_VALUE_CHARS = 80
_MAX_RESULT_CHARS = 400
_MAX_ARGS_CHARS = 90
_MAX_TEXT_CHARS = 300


def tool_body(head: str, args: Mapping[str, str], result: str) -> str:
    """One tool result as ``head -> key=value; ...`` (see the module docstring).

    Args:
        head: the call as :func:`compact_call` shows it (or the tool's name alone).
        args: the call's arguments as :func:`call_arguments` gives them: result fields equal
            to one of them are not repeated.
        result: the result's text.
    """
    try:
        parsed: Any = json.loads(result)
    except ValueError:
        parsed = None
    if isinstance(parsed, (dict, list)):
        pairs = flatten_json(parsed)
        new = [f"{k}={v}" for k, v in pairs if args.get(k.rpartition(".")[2]) != v]
        body = "; ".join(new) if new else ("done" if pairs else "(empty result)")
    elif parsed is not None and not isinstance(parsed, str):
        body = json.dumps(parsed)
    else:
        body = _clip(_SPACE_RE.sub(" ", result).strip(), _MAX_TEXT_CHARS) or "(empty result)"
    return f"{head} -> {_clip(body, _MAX_RESULT_CHARS)}"


def call_arguments(raw: Any) -> dict[str, str] | None:
    """A call's arguments as ``{key: shown value}``, or ``None`` when they are not an object."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return None
    if not isinstance(raw, Mapping):
        return None
    return {str(k): _scalar(v) for k, v in raw.items() if v is not None and v != ""}


def compact_call(name: str, args: Mapping[str, str]) -> str:
    """``name(key=value, ...)``: identifying arguments first, about 90 characters at most."""
    items = list(args.items())
    ranked = sorted(
        range(len(items)), key=lambda i: (_KEY_PRIORITY_RE.search(items[i][0]) is None, i)
    )
    chosen: list[int] = []
    size = 0
    for i in ranked:
        k, v = items[i]
        piece = len(k) + len(v) + 3
        if chosen and size + piece > _MAX_ARGS_CHARS:
            continue
        chosen.append(i)
        size += piece
    shown = [f"{items[i][0]}={_quote(items[i][1])}" for i in sorted(chosen)]
    more = ", ..." if len(chosen) < len(items) else ""
    return f"{name}({', '.join(shown)}{more})"


def flatten_json(value: Any) -> list[tuple[str, str]]:
    """Up to 12 ``(dotted.key, value)`` pairs of scalar fields, identifying keys first."""
    pairs: list[tuple[str, str]] = []
    _flatten(value, "", pairs, 0)
    if len(pairs) <= _MAX_PAIRS:
        return pairs
    ranked = sorted(
        range(len(pairs)), key=lambda i: (_KEY_PRIORITY_RE.search(pairs[i][0]) is None, i)
    )
    keep = sorted(ranked[:_MAX_PAIRS])
    return [pairs[i] for i in keep]


def _flatten(value: Any, prefix: str, out: list[tuple[str, str]], depth: int) -> None:
    if len(out) >= 4 * _MAX_PAIRS:
        return
    if isinstance(value, Mapping):
        if depth > 2:
            out.append((prefix, "{...}"))
            return
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out, depth + 1)
    elif isinstance(value, list):
        if all(not isinstance(v, (Mapping, list)) for v in value):
            shown = [_scalar(v) for v in value[:5] if v is not None]
            more = f", ...(+{len(value) - 5})" if len(value) > 5 else ""
            if shown:
                out.append((prefix or "items", ", ".join(shown) + more))
        elif depth <= 2:
            for i, v in enumerate(value[:3]):
                _flatten(v, f"{prefix}[{i}]", out, depth + 1)
            if len(value) > 3:
                out.append((f"{prefix}.count" if prefix else "count", str(len(value))))
    elif value is not None and value != "":
        out.append((prefix or "result", _scalar(value)))


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _clip(_SPACE_RE.sub(" ", value).strip(), _MAX_VALUE_CHARS)
    if isinstance(value, (int, float)):
        return repr(value)
    return _clip(json.dumps(value, default=str, ensure_ascii=False), _MAX_VALUE_CHARS)


def _quote(value: str) -> str:
    """A value as written in a call: bare when that cannot be misread, else JSON-quoted."""
    if _BARE_VALUE_RE.fullmatch(value) and value == value.strip():
        return value
    return json.dumps(value, ensure_ascii=False)


def _clip(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text.rfind(" ", 0, max_chars - 1)
    if cut < max_chars // 2:
        cut = max_chars - 1
    return text[:cut].rstrip(" ,;:") + "\u2026"
