"""Tool calls and results as compact facts for the extractive summarizer.

A tool result is what an assistant most often needs again (a refund's reference, an order's
status, a balance), and the most wasteful text to keep whole (JSON keys, quotes, echoes of the
call's own arguments). So one call and its result become one line such as
``create_refund(order_id=BW-58214-K, amount=37.5) -> refund_id=RF-22907; status=approved;
expected_by=2025-03-21``: the call's arguments, identifying ones first, unquoted when that is
unambiguous; then the result's scalar fields at any depth, the ones whose value and key tell
most (codes, dates, names, amounts) first, minus any field that only repeats an argument.
Pure functions, linear in their input (a result's walk reads at most ``_MAX_NODES`` nodes).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from summem._message_checks import load_json
from summem.summarizers.extractive.described import row_nouns
from summem.summarizers.extractive.facts import value_signal
from summem.summarizers.extractive.tables import (
    READERS,
    Said,
    compact_table,
    find_table,
    parse_record,
    referred_rows,
)

__all__ = [
    "MIN_TABLE_ROWS",
    "call_arguments",
    "compact_call",
    "flatten_json",
    "min_rows",
    "read_table",
    "table_referred",
    "table_size",
    "tool_body",
]

_KEY_PRIORITY_RE = re.compile(
    r"(?:^|[._-])(?:id|code|no|num|number|status|state|date|time|eta|total|amount|price|cost"
    r"|balance|name|email|phone|address|city|country|result|error|message|count|qty|quantity"
    r"|sku|order|booking|ref|reference|url|due|deadline|temperature|value|points|expires?"
    r"|expected|expected_by|by|until|valid|tracking|window|currency)(?:$|[._-])",
    re.IGNORECASE,
)
_SPACE_RE = re.compile(r"\s+")
_BARE_VALUE_RE = re.compile(r"[^,()=;\"\n]{1,60}")
MIN_TABLE_ROWS = 4
SMALL_TABLE_ROWS = 3
"""Rows a table of records needs with ``small_tables`` on (see :func:`min_rows`)."""
"""A result of fewer rows is a record or two, flattened field by field like any other; a
table's rows are what a user picks from."""
_MAX_PAIRS = 12
_MAX_NODES = 2000
"""Objects, lists and scalars read in one result: the work is bounded, not the depth."""
_KEY_BONUS = 0.75
"""What an identifying key (``_KEY_PRIORITY_RE``) adds to its value's signal."""
_MIN_SIGNAL = 1.0
"""In a result with more than ``_MAX_PAIRS`` fields, the value signal a field needs to be
kept: small counts, shares, flags, lower-case words and machine ids are left out."""
"""What an identifying key (``_KEY_PRIORITY_RE``) adds to its value's signal."""
_MAX_VALUE_CHARS = 80
_MAX_RESULT_CHARS = 400
_MAX_ARGS_CHARS = 90
_MAX_NAME_CHARS = 64
_MAX_TEXT_CHARS = 300


def tool_body(
    head: str,
    args: Mapping[str, str],
    result: str,
    referred: Said | None = None,
    *,
    tables: bool = True,
    shapes: bool | AbstractSet[str] = True,
) -> str:
    """One tool result as ``head -> key=value; ...`` (see the module docstring).

    Args:
        head: the call as :func:`compact_call` shows it (or the tool's name alone).
        args: the call's arguments as :func:`call_arguments` gives them: result fields equal
            to one of them are not repeated.
        result: the result's text.
        referred: what later messages say (each one's words, or one test for any word): the
            rows of a table they name come first (see :mod:`.tables`).
        tables: read a table as a compact record (:mod:`.tables`); off, it is flattened
            field by field like any other result.
        shapes: the table reader's rules on (:func:`.tables.readers`; True is all): records
            as text, JSON records keyed by name or nested deep, tables on their side
            (:func:`.tables.find_table`).
    """
    try:
        parsed: Any = load_json(result)
    except ValueError:
        parsed = None
    table = find_table(parsed, result, shapes=shapes) if tables else None
    if table is not None and len(table[1]) >= min_rows(shapes, len(result)):
        nouns = row_nouns(head)
        body = compact_table(table, _MAX_RESULT_CHARS, referred, nouns=nouns)
    elif isinstance(parsed, (dict, list)):
        new = [f"{k}={v}" for k, v in flatten_json(parsed, skip=args)]
        body = "; ".join(new) if new else ("done" if _leaves(parsed) else "(empty result)")
    elif parsed is not None and not isinstance(parsed, str):
        body = json.dumps(parsed)
    else:
        body = _clip(_SPACE_RE.sub(" ", result).strip(), _MAX_TEXT_CHARS) or "(empty result)"
    return f"{head} -> {_clip(body, _MAX_RESULT_CHARS)}"


def min_rows(shapes: bool | AbstractSet[str] = True, size: int | None = None) -> int:
    """Rows a table needs to be read as one (a record or two are fields, not rows to pick).

    :data:`MIN_TABLE_ROWS`; with the ``small_tables`` rule, :data:`SMALL_TABLE_ROWS` for a
    table whose text (``size`` characters; None: a record already shown) is longer than a
    result's clipped text (:data:`_MAX_TEXT_CHARS`): a tool lists three jobs as it lists five, and
    three records as text (``key: value`` blocks, XML, columns) are cut off in a clipped line,
    the row a user names with them. Three short records fit the line whole and stay so.
    """
    on = shapes if not isinstance(shapes, bool) else (READERS if shapes else frozenset())
    if "small_tables" in on and (size is None or size > _MAX_TEXT_CHARS):
        return SMALL_TABLE_ROWS
    return MIN_TABLE_ROWS


def table_size(table: tuple[list[str], list[list[str]]]) -> int:
    """About how many characters ``table``'s text had: its cells and a separator each."""
    return sum(len(c) + 3 for row in [table[0], *table[1]] for c in row)


def read_table(
    result: str, *, shapes: bool | AbstractSet[str] = True
) -> tuple[list[str], list[list[str]]] | None:
    """The table a tool result's text holds, if it is one (see :mod:`.tables`)."""
    try:
        parsed: Any = load_json(result)
    except ValueError:
        parsed = None
    return find_table(parsed, result, shapes=shapes)


def table_referred(body: str, referred: Said) -> str | None:
    """A table record (``head -> [header] rows``) cut to the rows ``referred`` says, or None.

    None when ``body`` holds no table record, or when no row, or every row, is referred to.
    """
    head, sep, record = body.partition(" -> ")
    table = parse_record(record) if sep else None
    if table is None:
        return None
    nouns = row_nouns(head)
    n = referred_rows(table, referred, nouns)
    if not n or n == len(table[1]):
        return None
    return f"{head} -> {compact_table(table, _MAX_RESULT_CHARS, referred, nouns=nouns)}"


def call_arguments(raw: Any) -> dict[str, str] | None:
    """A call's arguments as ``{key: shown value}``, or ``None`` when they are not an object."""
    if isinstance(raw, str):
        try:
            raw = load_json(raw) if raw.strip() else {}
        except ValueError:
            return None
    if not isinstance(raw, Mapping):
        return None
    return {str(k): _scalar(v) for k, v in raw.items() if v is not None and v != ""}


def compact_call(name: str, args: Mapping[str, str]) -> str:
    """``name(key=value, ...)``: identifying arguments first, about 90 characters at most.

    The name and the keys are clipped too (a model or an application may make them huge).
    """
    name = _clip(name, _MAX_NAME_CHARS)
    items = [(_clip(k, _MAX_NAME_CHARS), v) for k, v in args.items()]
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


def flatten_json(value: Any, *, skip: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """Up to 12 ``(key, value)`` pairs of scalar fields, the most informative, in document order.

    Every level is read (at most ``_MAX_NODES`` objects, lists and scalars, in document order),
    so a field four levels down competes with the top ones. Each pair is ranked by its value
    (:func:`~summem.summarizers.extractive.facts.value_signal`: codes, dates, names, precise
    amounts over small counters, flags and lower-case words) plus a bonus for an identifying
    key; ties go to the earlier field. Pairs are taken in that order while they fit in the
    record's ``_MAX_RESULT_CHARS``; in a result with more than 12 fields, only those whose
    value tells something (``_MIN_SIGNAL``), unless none does. A key is its dotted path, or
    its last two parts when the path is deeper than three.

    Args:
        value: the parsed JSON.
        skip: the call's arguments: a field whose last key and value repeat one is left out.
    """
    pairs = _leaves(value)
    if skip:
        pairs = [(k, v) for k, v in pairs if skip.get(_last_key(k)) != v]
    signals = [value_signal(v) for _, v in pairs]
    scores = [s + _KEY_BONUS * _is_key(k) for s, (k, _) in zip(signals, pairs, strict=True)]
    ranked = sorted(range(len(pairs)), key=lambda i: (-scores[i], i))
    if len(pairs) > _MAX_PAIRS:  # a big result: only what tells something, if anything does
        ranked = [i for i in ranked if signals[i] >= _MIN_SIGNAL] or ranked
    chosen: list[int] = []
    size = 0
    for i in ranked:
        piece = len(pairs[i][0]) + len(pairs[i][1]) + 3
        if chosen and size + piece > _MAX_RESULT_CHARS:
            continue
        chosen.append(i)
        size += piece
        if len(chosen) == _MAX_PAIRS:
            break
    return [pairs[i] for i in sorted(chosen)]


def _leaves(value: Any) -> list[tuple[str, str]]:
    """Every scalar field of ``value`` as ``(shown key, value)``, within ``_MAX_NODES`` nodes.

    A list of scalars is one field (its first five values); a list of objects longer than
    three also says how long it is (``key.count``).
    """
    out: list[tuple[str, str]] = []
    stack: list[tuple[tuple[str, ...], Any]] = [((), value)]
    visited = 0
    while stack and visited < _MAX_NODES:
        path, node = stack.pop()
        visited += 1
        room = _MAX_NODES - visited
        if isinstance(node, Mapping):
            children = [((*path, str(k)), v) for k, v in itertools.islice(node.items(), room)]
            stack.extend(reversed(children))
        elif isinstance(node, list):
            head = node[:room]
            if all(not isinstance(v, (Mapping, list)) for v in head):
                shown = [_scalar(v) for v in head[:5] if v is not None]
                more = f", ...(+{len(node) - 5})" if len(node) > 5 else ""
                if shown:
                    out.append((_shown(path, "items"), ", ".join(shown) + more))
                continue
            at, name = path[:-1], path[-1] if path else ""
            if len(node) > 3:  # popped after the items: it closes the list
                stack.append(((*at, f"{name}.count" if name else "count"), str(len(node))))
            items = [((*at, f"{name}[{i}]"), v) for i, v in enumerate(head)]
            stack.extend(reversed(items))
        elif node is not None and node != "":
            out.append((_shown(path), _scalar(node)))
    return out


def _shown(path: tuple[str, ...], default: str = "result") -> str:
    """A field's key: its dotted path up to three levels, else its last two parts."""
    if not path:
        return default
    return ".".join(path if len(path) <= 3 else path[-2:])


def _last_key(key: str) -> str:
    return key.rpartition(".")[2]


def _is_key(key: str) -> bool:
    return _KEY_PRIORITY_RE.search(_last_key(key)) is not None


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
