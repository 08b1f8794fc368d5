"""Tables in tool results: the header and the rows that matter, as one compact record.

A tool result that is a table (a markdown table, CSV or TSV text, columns padded with spaces as
command-line tools print them, an HTML ``<table>``, JSON ``{"columns": [...], "rows": [[...],
...]}`` or a list of records with the same keys, in JSON (a nested object's fields are columns
``outer.inner``; the list may sit under one or two keys) or YAML) loses its meaning when it is
flattened field by field: a cell without its column, or the last row without the others. So a
table becomes ``[col | col | col] cell | cell | cell; cell | cell | cell (+n rows)``: the header,
then first the rows a later message of the span refers to (one of its cells said again later, every
word of it: "book the 14:20 one"), then the other rows in order,
while they fit in the record's characters; how many rows were left out is said.
"""

from __future__ import annotations

import csv
import html
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from summem._yaml import parse_yaml
from summem.summarizers.extractive.facts import tokenize
from summem.summarizers.extractive.lexicon import STOPWORDS

__all__ = [
    "MAX_CITED",
    "MAX_REMEMBERED",
    "compact_table",
    "find_table",
    "parse_record",
    "recall_table",
    "referred_rows",
    "remember",
]

Table = tuple[list[str], list[list[str]]]

_ROW_KEYS = ("rows", "data", "values", "records", "items")
_HEADER_KEYS = ("columns", "headers", "header", "fields", "cols")
_SEPARATOR_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_MAX_CELL = 40
_GAP_RE = re.compile(r" {2,}")
_CELL_RE = re.compile(r"\S+(?: \S+)*")
_NUMBER_RE = re.compile(r"[-+]?[\d.,:%]+")
_HTML_TABLE_RE = re.compile(r"<table\b[^>]*>(.*?)</table>", re.IGNORECASE | re.DOTALL)
_HTML_ROW_RE = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.IGNORECASE | re.DOTALL)
_HTML_CELL_RE = re.compile(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(r"<[^>]+>")
_MAX_DEPTH = 2
"""Nesting read into a table: a record's objects' fields, and a list under two keys."""
_YAML_ITEM_RE = re.compile(r"^\s*- [\w .-]+:(?: |$)", re.MULTILINE)
"""A YAML list item that is a mapping (``- name: Ana``): the text may be records."""
_MAX_YAML_CHARS = 64 * 1024


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    if isinstance(value, bool):
        text = "true" if value else "false"
    text = " ".join(text.split()).replace("|", "/")
    return text if len(text) <= _MAX_CELL else text[: _MAX_CELL - 1] + "\u2026"


def _flat(record: Mapping[Any, Any], prefix: str = "", depth: int = 0) -> dict[str, Any] | None:
    """A record with its nested objects' fields as ``outer.inner`` columns.

    A list of plain values is one cell (``"a, b"``); a list of objects, or nesting deeper
    than :data:`_MAX_DEPTH`, is no row of a table (None).
    """
    out: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            inner = _flat(value, f"{name}.", depth + 1) if depth < _MAX_DEPTH else None
            if inner is None:
                return None
            out.update(inner)
        elif isinstance(value, list):
            if any(isinstance(v, (Mapping, list)) for v in value):
                return None
            out[name] = ", ".join(_cell(v) for v in value)
        else:
            out[name] = value
    return out


def _records(value: Any) -> Table | None:
    """A list of at least two objects sharing their keys (nested objects' fields as columns).

    Records may leave out a field others have (an empty cell), as long as most of the
    columns are in every record: records of different kinds are no table.
    """
    if not isinstance(value, list) or len(value) < 2:
        return None
    if not all(isinstance(v, Mapping) for v in value):
        return None
    flat = [_flat(v) for v in value]
    if any(f is None or not f for f in flat):
        return None
    records = [f for f in flat if f is not None]
    header = list(dict.fromkeys(k for r in records for k in r))
    common = set(header).intersection(*(set(r) for r in records))
    if 2 * len(common) <= len(header):
        return None
    return header, [[_cell(r.get(k, "")) for k in header] for r in records]


def _json_table(value: Any, depth: int = 0) -> Table | None:
    table = _records(value)
    if table is not None or not isinstance(value, Mapping):
        return table
    header = next((value[k] for k in _HEADER_KEYS if isinstance(value.get(k), list)), None)
    rows = next((value[k] for k in _ROW_KEYS if isinstance(value.get(k), list)), None)
    if header and rows and all(isinstance(r, list) and len(r) == len(header) for r in rows):
        return [_cell(h) for h in header], [[_cell(c) for c in r] for r in rows]
    lists = [v for v in value.values() if isinstance(v, list)]
    if len(lists) == 1:  # {"results": [{...}, {...}], "page": 1}
        return _records(lists[0])
    inner = [v for v in value.values() if isinstance(v, Mapping)]
    if not lists and len(inner) == 1 and depth < _MAX_DEPTH:  # {"data": {"orders": [...]}}
        return _json_table(inner[0], depth + 1)
    return None


def _yaml_table(text: str) -> Table | None:
    """A YAML list of records (``- name: ...`` blocks), at the top or under one key."""
    if len(text) > _MAX_YAML_CHARS or not _YAML_ITEM_RE.search(text):
        return None
    try:
        value = parse_yaml(text, limit=_MAX_YAML_CHARS)
    except ValueError:  # not YAML, or not acceptable YAML (see summem._yaml)
        return None
    return _json_table(value) if isinstance(value, (list, Mapping)) else None


def _html_table(text: str) -> Table | None:
    """The first ``<table>`` of an HTML text: its header cells and data rows."""
    body = _HTML_TABLE_RE.search(text)
    if body is None:
        return None
    rows = [
        [_cell(html.unescape(_TAG_RE.sub("", c)).strip()) for c in _HTML_CELL_RE.findall(r)]
        for r in _HTML_ROW_RE.findall(body.group(1))
    ]
    rows = [r for r in rows if r]
    if len(rows) < 2 or len({len(r) for r in rows}) != 1 or len(rows[0]) < 2:
        return None
    return rows[0], rows[1:]


def _aligned_table(lines: list[str]) -> Table | None:
    """Columns padded with spaces (``kubectl get``, ``df``, ``ps``): two or more apart.

    Every line splits into the header's number of cells, each cell starting or ending where
    its header does (columns are left- or right-aligned), and no header cell is a number or
    ends a sentence: prose with two spaces after a full stop is no table.
    """
    spans = [[(m.start(), m.end()) for m in _CELL_RE.finditer(line)] for line in lines]
    width = len(spans[0])
    if width < 2 or any(len(row) != width for row in spans):
        return None
    for row in spans[1:]:
        for (start, end), (head_start, head_end) in zip(row, spans[0], strict=True):
            if start != head_start and end != head_end:
                return None
    split = [[_cell(line[a:b]) for a, b in row] for line, row in zip(lines, spans, strict=True)]
    if any(_NUMBER_RE.fullmatch(c) or c.endswith((".", "!", "?")) for c in split[0]):
        return None  # a header is names, not numbers nor sentences
    return split[0], split[1:]


def _text_table(text: str) -> Table | None:
    if "<table" in text.lower():
        return _html_table(text)
    records = _yaml_table(text)
    if records is not None:
        return records
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 3:
        return None
    aligned = [line for line in lines if _GAP_RE.search(line.strip())]
    if len(aligned) == len(lines) and not any(sep in lines[0] for sep in "|\t,;"):
        return _aligned_table(lines)
    lines = [line.strip() for line in lines]
    if all("|" in line for line in lines[:2]) and _SEPARATOR_RE.match(lines[1]):
        split = [[_cell(c) for c in line.strip().strip("|").split("|")] for line in lines]
        header, rows = split[0], [r for r in split[2:] if len(r) == len(split[0])]
        return (header, rows) if rows else None
    for sep in ("\t", ",", ";"):
        if sep not in lines[0]:
            continue
        try:  # quoted cells may hold the separator ("July 16, 2027")
            split = [[_cell(c) for c in row] for row in csv.reader(lines, delimiter=sep)]
        except csv.Error:
            continue
        widths = {len(row) for row in split}
        header_row = not any(any(ch.isdigit() for ch in c) for c in split[0])
        if len(widths) == 1 and widths != {1} and header_row:
            return split[0], split[1:]
    return None


def _said(cell: str, referred: Callable[[str], bool]) -> bool:
    """Whether a later message says ``cell``: all its words, one of them telling.

    A telling word has three letters or more and is not a stopword, or is a number.
    """
    words = [w for w in tokenize(cell) if len(w) >= 2]
    telling = [
        w for w in words if any(c.isdigit() for c in w) or (len(w) >= 3 and w not in STOPWORDS)
    ]
    return bool(telling) and all(referred(w) for w in words)


def find_table(parsed: Any, text: str) -> Table | None:
    """The table in a tool result, parsed JSON (or None) and its text, if it is one."""
    if parsed is not None and not isinstance(parsed, str):
        return _json_table(parsed)
    return _text_table(text)


def compact_table(
    table: Table, max_chars: int, referred: Callable[[str], bool] | None = None
) -> str:
    """``[header] row; row (+n rows)``: the rows a later message refers to, else every row.

    When a later message refers to rows (says one of their cells again), the record is the
    header and those rows alone: what the conversation went on to use, short enough to last.
    Otherwise the rows are written in order while they fit, and how many did not is said.
    """
    header, rows = table
    head = "[" + " | ".join(header) + "]"
    shown = [" | ".join(r) for r in rows]
    cited = _cited(table, referred) if referred is not None else []
    order = cited if cited and len(cited) < len(rows) else list(range(len(rows)))
    chosen: list[int] = []
    size = len(head)
    for i in order:
        if size + len(shown[i]) + 2 > max_chars - 12:
            continue
        chosen.append(i)
        size += len(shown[i]) + 2
    body = "; ".join(shown[i] for i in sorted(chosen))
    more = f" (+{len(rows) - len(chosen)} rows)" if len(chosen) < len(rows) else ""
    return f"{head} {body}{more}".strip()


def referred_rows(table: Table, referred: Callable[[str], bool]) -> int:
    """How many rows of ``table`` a later message refers to (see :func:`_cited`)."""
    return len(_cited(table, referred))


def _cited(table: Table, referred: Callable[[str], bool]) -> list[int]:
    """The rows a message names: it says a cell that no other row has in that column.

    A cell shared by several rows ("late", "open") names none of them. More than
    :data:`MAX_CITED` rows named is not a reference to rows but words in common: none.
    """
    rows = table[1]
    counts: list[dict[str, int]] = [{} for _ in table[0]]
    for r in rows:
        for j, c in enumerate(r[: len(counts)]):
            counts[j][c] = counts[j].get(c, 0) + 1
    cited = [
        i
        for i, r in enumerate(rows)
        if any(counts[j].get(c) == 1 and _said(c, referred) for j, c in enumerate(r[: len(counts)]))
    ]
    return cited if len(cited) <= MAX_CITED else []


MAX_CITED = 3
"""The most rows of one table a message can name; more is words in common."""
MAX_REMEMBERED = 6
"""Tables a summary remembers (the latest) to bring back the rows a later turn names."""
_REMEMBERED_CHARS = 2400
"""The most characters of one remembered table's cells."""


def remember(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[Any] | None:
    """A table as a summary's ``extra`` keeps it: ``[header, rows]``, rows cut to fit."""
    kept: list[list[str]] = []
    size = sum(len(h) for h in header)
    for r in rows:
        size += sum(len(c) + 1 for c in r)
        if size > _REMEMBERED_CHARS:
            break
        kept.append(list(r))
    return [list(header), kept] if kept else None


def recall_table(raw: Any) -> Table | None:
    """A remembered table read back from ``extra`` (None when it is not one)."""
    if not (isinstance(raw, list) and len(raw) == 2 and isinstance(raw[0], list)):
        return None
    header = [str(h) for h in raw[0]]
    rows = raw[1] if isinstance(raw[1], list) else []
    good = [[str(c) for c in r] for r in rows if isinstance(r, list) and len(r) == len(header)]
    return (header, good) if header and good else None


_RECORD_RE = re.compile(r"^\[(?P<head>[^\]]*)\] (?P<rows>.*?)(?: \(\+\d+ rows\))?$")


def parse_record(record: str) -> Table | None:
    """The table a :func:`compact_table` record shows (its rows left out aside), or None.

    Only rows with as many cells as the header are read back; ``None`` when there is none.
    """
    m = _RECORD_RE.match(record.strip())
    if m is None:
        return None
    header = [c.strip() for c in m.group("head").split(" | ")]
    rows = [[c.strip() for c in r.split(" | ")] for r in m.group("rows").split("; ")]
    rows = [r for r in rows if len(r) == len(header)]
    return (header, rows) if len(header) > 1 and rows else None
