"""Tables in tool results: the header and the rows that matter, as one compact record.

A tool result that is a table (a markdown table, CSV or TSV text, columns padded with spaces as
command-line tools print them, an HTML ``<table>``, JSON ``{"columns": [...], "rows": [[...],
...]}`` or a list of records with the same keys, in JSON (a nested object's fields are columns
``outer.inner``; the list may sit under one or two keys) or YAML) loses its meaning when it is
flattened field by field: a cell without its column, or the last row without the others. So a
table becomes ``[col | col | col] cell | cell | cell; cell | cell | cell (+n rows)``: the header,
then first the rows a later message of the span refers to (one of its cells said again later, every
word of it: "book the 14:20 one"), then the other rows in order,
while they fit in the record's characters; how many rows were left out is said. Tables printed
by programs (psql, MySQL, pandas, ``df -h``, ``docker ps``, a spreadsheet's TSV...) are read by
:mod:`.text_tables`, JSON Lines here. A message names a row by saying a cell no other row has
in its column, all its words in that one message, accents folded and a possessive dropped
(:func:`said_words`); a user's message naming no row so may describe one ("the cheaper of the
two Lisbon hotels", "the Quayside one": :mod:`.described`).
"""

from __future__ import annotations

import contextlib
import contextvars
import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from summem._message_checks import load_json
from summem._yaml import parse_yaml
from summem.summarizers.extractive.described import TableWords, described_row, pointers
from summem.summarizers.extractive.facts import fold as fold
from summem.summarizers.extractive.facts import tokenize
from summem.summarizers.extractive.lexicon import MONTH_WORDS, MONTH_WORDS_WITH_DIGIT, STOPWORDS
from summem.summarizers.extractive.text_tables import TEXT_READERS, Table, shown, text_table
from summem.summarizers.extractive.text_tables import cell as _cell

__all__ = [
    "MAX_CITED",
    "MAX_REMEMBERED",
    "READERS",
    "Echoed",
    "Said",
    "compact_table",
    "find_table",
    "fold",
    "key_columns",
    "named_by",
    "parse_record",
    "readers",
    "recall_table",
    "referred_rows",
    "remember",
    "said_words",
    "shown",
    "table_words_scope",
    "updated_rows",
]

_ROW_KEYS = ("rows", "data", "values", "records", "items")
_HEADER_KEYS = ("columns", "headers", "header", "fields", "cols")
_HTML_TABLE_RE = re.compile(r"<table\b[^>]*>(.*?)</table>", re.IGNORECASE | re.DOTALL)
_HTML_ROW_RE = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.IGNORECASE | re.DOTALL)
_HTML_CELL_RE = re.compile(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(r"<[^>]+>")
_MAX_DEPTH = 2
"""Nesting read into a table: a record's objects' fields, and a list under two keys."""
_DEEP_DEPTH = 6
"""Nesting read into a record when ``deep_records`` reads it (see :func:`_deep_records`)."""
_MAX_LEAVES = 12
"""Values of a nested list's item written in its one cell."""
READERS = frozenset(
    {
        "table_shapes",
        "deep_records",
        "transposed_tables",
        "small_tables",
        "whole_cells",
        *TEXT_READERS,
    }
)
"""The table reader's rules an ablation may switch off by name (:func:`readers`)."""
_YAML_ITEM_RE = re.compile(r"^\s*- [\w .-]+:(?: |$)", re.MULTILINE)
"""A YAML list item that is a mapping (``- name: Ana``): the text may be records."""
_MAX_YAML_CHARS = 64 * 1024
_MAX_JSON_LINES = 2000
_MIN_KEYED = 4
"""Objects keyed by name that make a table (fewer is an envelope or a config)."""
_BLOCK_RULE_RE = re.compile(r"-{3,}|\*{3,}|={3,}")
_SECTION_RE = re.compile(r"\[([^\[\]=]{1,60})\]")
_FIELD_RE = re.compile(r"([A-Za-z][\w .()/-]{0,40}?)\s*(?::(?=\s|$)|=)(.*)")
"""A ``Key: value`` or ``key = value`` line (``http://...`` is no key: ``:`` needs a space)."""
_LOGFMT_RE = re.compile(r'(?:^|\s)([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|[^\s"]*)')


def _flat(
    record: Mapping[Any, Any], prefix: str = "", depth: int = 0, deep: bool = False
) -> dict[str, Any] | None:
    """A record with its nested objects' fields as ``outer.inner`` columns.

    A list of plain values is one cell (``"a, b"``), and so is a list of flat objects, each
    as its values (an order's items: ``"SKU-4821 2, SKU-1190 1"``); an object nesting deeper
    than that, or than :data:`_MAX_DEPTH`, is no row of a table (None). With ``deep`` (see
    :func:`_deep_records`), objects are read down to :data:`_DEEP_DEPTH`, a list of one object
    that nests is read as that object (a pod's one container), and a list of several is one
    cell of their values.
    """
    out: dict[str, Any] = {}
    limit = _DEEP_DEPTH if deep else _MAX_DEPTH
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            inner = _flat(value, f"{name}.", depth + 1, deep) if depth < limit else None
            if inner is None:
                return None
            out.update(inner)
        elif isinstance(value, list):
            if all(isinstance(v, Mapping) for v in value):  # an order's items: one cell
                items = [_scalars(v) for v in value]
                if any(i is None for i in items):
                    if not deep:
                        return None
                    if len(value) == 1 and depth < limit:  # a pod's one container
                        inner = _flat(value[0], f"{name}.", depth + 1, deep)
                        if inner is None:
                            return None
                        out.update(inner)
                        continue
                    items = [" ".join(_leaf_values(v)) for v in value]
                out[name] = ", ".join(i for i in items if i)
            elif any(isinstance(v, (Mapping, list)) for v in value):
                if not deep:
                    return None
                out[name] = " ".join(_leaf_values(value))
            else:
                out[name] = ", ".join(_cell(v) for v in value)
        else:
            out[name] = value
    return out


def _leaf_values(value: Any) -> list[str]:
    """The first :data:`_MAX_LEAVES` plain values nested in ``value``, in document order."""
    out: list[str] = []
    stack: list[Any] = [value]
    seen = 0
    while stack and len(out) < _MAX_LEAVES and seen < 20 * _MAX_LEAVES:
        node = stack.pop()
        seen += 1
        if isinstance(node, Mapping):
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
        elif node is not None and node != "":
            out.append(_cell(node))
    return out


def _scalars(item: Mapping[Any, Any]) -> str | None:
    """A small record inside a record (an order's item) as its values, or None if it nests.

    ``{"sku": "SKU-4821", "qty": 2}`` is ``SKU-4821 2``.
    """
    if any(isinstance(v, (Mapping, list)) for v in item.values()):
        return None
    return " ".join(_cell(v) for v in item.values() if v is not None and v != "")


def _records(value: Any, deep: bool = False) -> Table | None:
    """A list of at least two objects sharing their keys (nested objects' fields as columns).

    Records may leave out a field others have (an empty cell), as long as most of the
    columns are in every record: records of different kinds are no table. With ``deep``,
    records nesting deeper are read too (:func:`_deep_records`).
    """
    if not isinstance(value, list) or len(value) < 2:
        return None
    if not all(isinstance(v, Mapping) for v in value):
        return None
    flat = [_flat(v) for v in value]
    if any(f is None for f in flat) and deep:
        return _deep_records(value)
    if any(f is None or not f for f in flat):
        return None
    table = _table_of([f for f in flat if f is not None])
    if deep and table is not None and _wide(table[0]):
        return _telling(table) or table  # one varying column: the table as it is
    return table


_WIDE_HEADER = 100
"""Characters of nested columns' names past which their table is read as a deep one."""


def _wide(header: Sequence[str]) -> bool:
    """Whether nested records' header takes a quarter of a record (see :func:`_telling`)."""
    return any("." in h for h in header) and sum(len(h) + 3 for h in header) > _WIDE_HEADER


def _table_of(records: Sequence[Mapping[str, Any]]) -> Table | None:
    header = list(dict.fromkeys(k for r in records for k in r))
    common = set(header).intersection(*(set(r) for r in records))
    if 2 * len(common) <= len(header):
        return None
    return header, [[_cell(r.get(k, "")) for k in header] for r in records]


def _deep_records(value: list[Any]) -> Table | None:
    """Records nesting deeper than :data:`_MAX_DEPTH` (the ``deep_records`` rule).

    An API's records often sit three levels down or more (a CRM's ``properties.client.value``,
    an orchestrator's ``spec.containers[0].resources.limits.memory``); read two levels deep,
    such a list was no table at all, and its fields were flattened one by one, the names apart
    from their values. Read down to :data:`_DEEP_DEPTH` (see :func:`_flat`), each column is
    named by the last parts of its path that tell it from the others (``client.value``,
    ``memory``), so the record has room for its rows; a column the same in every record
    stays unless a column before it says the same value (:func:`_telling`; so is a table of
    nested records whose header is wider than :data:`_WIDE_HEADER`).
    """
    flat = [_flat(v, deep=True) for v in value]
    if any(f is None or not f for f in flat):
        return None
    table = _table_of([f for f in flat if f is not None])
    return _telling(table) if table is not None else None


def _telling(table: Table) -> Table | None:
    """``table`` with each column named by its telling last parts; None below two varying.

    For nested records (:func:`_deep_records`, or a header of nested names wider than
    :data:`_WIDE_HEADER`): ``[id | client.value | source | invoice.value | ...]``, not
    ``[id | properties.client.value | properties.client.source | ...]``. A column equal in
    every row stays when its value is one no column before it holds: one customer's address,
    the currency, the carrier are facts the user may ask about, and no other line of the
    summary holds them (review12). Only a repeat goes: an API's ``"source": "import"`` on
    every field stays as one column, and a column empty in every row goes. No value is lost.
    A table with fewer than two columns that vary tells no rows apart: None.
    """
    header, rows = table
    varying = {j for j in range(len(header)) if len({r[j] for r in rows}) > 1}
    if len(varying) < 2:
        return None
    said: set[str] = set()
    keep = []
    for j in range(len(header)):
        value = rows[0][j]  # two varying columns: there are rows
        if j in varying or (value and value not in said):
            keep.append(j)
            said.add(value)
    return _short_names([header[j] for j in keep]), [[r[j] for j in keep] for r in rows]


def _short_names(paths: Sequence[str]) -> list[str]:
    """Each dotted path as its fewest last parts that no other path ends with."""
    parts = [p.split(".") for p in paths]
    out = []
    for mine in parts:
        n = 1
        while n < len(mine) and sum(1 for o in parts if o[-n:] == mine[-n:]) > 1:
            n += 1
        out.append(".".join(mine[-n:]))
    return out


def _json_table(
    value: Any, depth: int = 0, *, shapes: bool = True, deep: bool = False
) -> Table | None:
    table = _records(value, deep)
    if table is not None or not isinstance(value, Mapping):
        return table
    header = next((value[k] for k in _HEADER_KEYS if isinstance(value.get(k), list)), None)
    rows = next((value[k] for k in _ROW_KEYS if isinstance(value.get(k), list)), None)
    if header and rows and all(isinstance(r, list) and len(r) == len(header) for r in rows):
        return [_cell(h) for h in header], [[_cell(c) for c in r] for r in rows]
    lists = [v for v in value.values() if isinstance(v, list)]
    if len(lists) == 1:  # {"results": [{...}, {...}], "page": 1}
        return _records(lists[0], deep)
    if lists and shapes:  # {"results": [{...}, ...], "warnings": ["..."]}: one list of records
        found = [t for t in (_records(v, deep) for v in lists) if t is not None]
        return found[0] if len(found) == 1 else None
    keyed = _keyed_records(value) if shapes else None
    if keyed is not None:
        return keyed
    inner = [v for v in value.values() if isinstance(v, Mapping)]
    if lists or depth >= _MAX_DEPTH or (len(inner) > 1 and depth > 0):
        return None
    # {"data": {"orders": [...]}, "meta": {"page": 1}}: the one object holding a table; side
    # by side only at the top (an API's envelope), not inside a record's own objects
    found = [t for t in (_json_table(v, depth + 1, shapes=shapes, deep=deep) for v in inner) if t]
    return found[0] if len(found) == 1 else None


def _keyed_records(value: Mapping[Any, Any]) -> Table | None:
    """Records keyed by their name (``{"api": {"port": 80}, "db": {...}, ...}``), the key a column.

    At least :data:`_MIN_KEYED` of them, every value an object: an API's envelope
    (``{"data": {...}, "meta": {...}}``) has two or three objects of different keys.
    """
    if len(value) < _MIN_KEYED or not all(isinstance(v, Mapping) for v in value.values()):
        return None
    if any("key" in v for v in value.values()):
        return None
    return _records([{"key": k, **v} for k, v in value.items()])


def _record_blocks(text: str) -> Table | None:
    """Records as ``key: value`` or ``key = value`` lines, or ``key=value`` pairs on one line.

    ``Name: api`` blocks (``kubectl describe``, ``apt show``) separated by a blank line, a
    rule or a key said again; INI sections (``[api]`` over ``port = 80``), the section a
    column; logfmt lines (``name=api port=80 level=info msg="up"``), one record a line. Any
    other line means it is no such text.
    """
    lines = text.strip().splitlines()
    if len(lines) < 3 or len(lines) > _MAX_JSON_LINES:
        return None
    records: list[dict[str, str]] = []
    current: dict[str, str] = {}

    def close() -> None:
        nonlocal current
        if current:
            records.append(current)
        current = {}

    for raw in lines:
        line = raw.strip()
        if not line or _BLOCK_RULE_RE.fullmatch(line):
            close()
            continue
        section = _SECTION_RE.fullmatch(line)
        if section is not None:
            close()
            current = {"section": section.group(1).strip()}
            continue
        pairs = _LOGFMT_RE.findall(line)
        if len(pairs) >= 2 and _LOGFMT_RE.sub("", line).strip() == "":
            close()
            records.append({k: v[1:-1] if v.startswith('"') else v for k, v in pairs})
            continue
        field = _FIELD_RE.fullmatch(line)
        if field is None or len(field.group(1).split()) > 4:
            return None
        key, val = field.group(1).strip(), field.group(2).strip()
        if key in current:
            close()
        current[key] = val
    close()
    if len(records) < 2 or any(len(r) < 2 for r in records):
        return None
    return _records(records)


def _xml_table(text: str) -> Table | None:
    """Records as XML: an element's children of one tag, each its attributes and leaf children.

    At the top or one or two elements down (``<response><orders><order>``). A document with
    a declaration of its own (``<!DOCTYPE``, ``<!ENTITY``) is not read: no entity expands.
    """
    if "<!" in text or len(text) > _MAX_YAML_CHARS:
        return None
    try:
        root = ET.fromstring(text.strip())
    except ET.ParseError:
        return None
    level = [root]
    for _ in range(_MAX_DEPTH + 1):
        for element in level:
            children = list(element)
            if len(children) >= 2 and len({c.tag for c in children}) == 1:
                records = [_xml_record(c) for c in children]
                if all(r is not None for r in records):
                    return _records(records)
        level = [c for e in level for c in e]
    return None


def _xml_record(element: ET.Element) -> dict[str, str] | None:
    """An element's attributes and leaf children's texts, or None if a child nests."""
    out = dict(element.attrib)
    for child in element:
        if len(child):
            return None
        out[child.tag] = (child.text or "").strip()
    return out if len(out) >= 2 else None


def _yaml_table(text: str, deep: bool = False) -> Table | None:
    """A YAML list of records (``- name: ...`` blocks), at the top or under one key."""
    if len(text) > _MAX_YAML_CHARS or not _YAML_ITEM_RE.search(text):
        return None
    try:
        value = parse_yaml(text, limit=_MAX_YAML_CHARS)
    except ValueError:  # not YAML, or not acceptable YAML (see summem._yaml)
        return None
    return _json_table(value, deep=deep) if isinstance(value, (list, Mapping)) else None


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


def _text_table(text: str, on: AbstractSet[str]) -> Table | None:
    shapes = "table_shapes" in on
    if "<table" in text.lower():
        return _upright(_html_table(text), on)
    records = _xml_table(text) if shapes and text.lstrip().startswith("<") else None
    if records is not None:
        return records
    records = _yaml_table(text, "deep_records" in on)
    if records is not None:
        return records
    records = _json_lines(text)
    if records is not None:
        return records
    return _upright(text_table(text, on), on) or (_record_blocks(text) if shapes else None)


def _upright(table: Table | None, on: AbstractSet[str]) -> Table | None:
    """``table``, or the table it holds on its side (:func:`_transposed`)."""
    if table is None or "transposed_tables" not in on:
        return table
    return _transposed(table) or table


def _kind(cell: str) -> str:
    """A cell's kind: a number or an amount, a value with digits in it (a code, a date), words.

    A field holds one kind down a table's records; a record mixes them.
    """
    if not any(c.isalnum() for c in cell):
        return ""  # empty, or a placeholder ("-", "?"): no kind
    if _NUMBER_RE.fullmatch(cell):
        return "number"
    return "digits" if any(c.isdigit() for c in cell) else "words"


_NUMBER_RE = re.compile(r"[-+$€£]?\d[\d.,:/%-]*[a-zA-Z%]{0,3}")
"""A number, an amount, a time or a size (``120Mi``, ``4.5%``): one kind of value."""


def _transposed(table: Table) -> Table | None:
    """A table printed on its side, one record a column, read as one record a row; or None.

    Comparisons are often printed so (``|  | Plumbfast | AquaFix | Drainmasters |`` over a
    ``price`` row, a ``quote ref`` row...), and pandas prints a ``DataFrame.T`` so: read as
    they stand, the records are the header, and the row a user names ("go with AquaFix") is
    no row. It is on its side when its first column names fields (distinct words, none a
    value), at least three columns follow, and each row is of one kind (:func:`_kind`: a
    row of prices, a row of dates) while each column mixes kinds, rows of two kinds or more:
    a table of records has it the other way round, and a grid of one kind (a rota of shifts
    by day) can be read either way, so it is left as it is (the ``transposed_tables`` rule).
    A row of one value repeated (a record's ``n/a`` or ``discontinued`` in every field, or a
    field the same in every record) tells neither way and is not read for kinds: a table of
    prices with one discontinued product stands upright.
    """
    header, rows = table
    records = header[1:]
    labels = [r[0] for r in rows]
    if len(records) < 3 or len(rows) < 2 or not all(records):
        return None
    if len(set(records)) < len(records) or len(set(labels)) < len(labels):
        return None
    if not all(label and _kind(label) == "words" for label in labels):
        return None
    telling = [r for r in rows if len({c for c in r[1:] if _kind(c)}) > 1]
    if len(telling) < 2:
        return None
    kinds = [[_kind(c) for c in r[1:]] for r in telling]
    row_kinds = [{k for k in ks if k} for ks in kinds]
    if any(len(k) != 1 for k in row_kinds) or len(set().union(*row_kinds)) < 2:
        return None
    if any(len({ks[j] for ks in kinds if ks[j]}) < 2 for j in range(len(records))):
        return None
    return [header[0], *labels], [[rec, *(r[j + 1] for r in rows)] for j, rec in enumerate(records)]


def _json_lines(text: str) -> Table | None:
    """Records one JSON object a line (JSON Lines, a log's ``jq -c`` output)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 2 or len(lines) > _MAX_JSON_LINES:
        return None
    if not all(line.startswith("{") and line.endswith("}") for line in lines):
        return None
    try:
        return _records([load_json(line) for line in lines])
    except ValueError:
        return None


def said_words(text: str) -> frozenset[str]:
    """A message's words as a reference to a row reads them.

    Lower-cased (:func:`tokenize`), with accents folded ("Gdansk" names "Gdańsk", and the
    other way round) and each also without a possessive ("Quarry Lane's invoice" names
    "Quarry Lane"); and ``word one`` for a word said just before ``one`` ("the Alfama one",
    :func:`.described.pointers`), by which a description picks a row.
    """
    folded = fold(text)
    out: set[str] = pointers(folded)
    for word in tokenize(folded):
        out.add(word)
        for end in ("'s", "'"):
            if word.endswith(end) and len(word) > len(end) + 1:
                out.add(word[: -len(end)])
    return frozenset(out)


class Echoed(frozenset[str]):
    """The words of a message that may name a row by a cell but describe none.

    An assistant's: its "the newest one" or "a cheaper option" speaks of its own tool output
    or of anything; a user coming back to a row is what a description reads.
    """


Said = Callable[[str], bool] | Sequence[AbstractSet[str]]
"""What later messages say: one test for every word of them, or each message's words
(:func:`said_words`), so a row is named by one message saying all of a cell."""


def _cell_words(cell: str) -> list[str] | None:
    """The words a message must say to name ``cell``, accents folded; None if none tells.

    A telling word has three letters or more and is not a stopword, or is a number of two
    characters or more; a one-digit number is a word to say too, but tells nothing alone
    ("Kestrel Freight 1" is not "Kestrel Freight 12"; a cell "3" is named by no message).
    """
    words = [w for w in tokenize(fold(cell)) if len(w) >= 2 or w.isdigit()]
    telling = [
        w
        for w in words
        if len(w) >= 2 and (any(c.isdigit() for c in w) or (len(w) >= 3 and w not in STOPWORDS))
    ]
    return words if telling else None


def readers(off: AbstractSet[str]) -> frozenset[str]:
    """The reader's rules (:data:`READERS`) an ablation ``off`` leaves on."""
    return READERS - frozenset(off)


def find_table(parsed: Any, text: str, *, shapes: bool | AbstractSet[str] = True) -> Table | None:
    """The table in a tool result, parsed JSON (or None) and its text, if it is one.

    ``shapes``: the reader's rules on (:func:`readers`; True is all, False none of them).
    Without ``table_shapes`` it reads neither records as text (``key: value`` blocks, INI
    sections, logfmt, XML) nor JSON records keyed by name or beside other lists; without
    ``deep_records`` no records nesting deeper than two levels (:func:`_deep_records`);
    without ``transposed_tables`` no table on its side (:func:`_transposed`); without
    ``whole_cells`` each cell cut as a record shows it (:func:`shown`), named so.
    """
    on = (READERS if shapes else frozenset()) if isinstance(shapes, bool) else shapes
    if parsed is not None and not isinstance(parsed, str):
        table = _json_table(parsed, shapes="table_shapes" in on, deep="deep_records" in on)
    else:
        table = _text_table(text, on)
    if table is None or "whole_cells" in on:
        return table
    return [shown(h) for h in table[0]], [[shown(c) for c in r] for r in table[1]]


def compact_table(
    table: Table,
    max_chars: int,
    referred: Said | None = None,
    picked: Sequence[int] = (),
    nouns: AbstractSet[str] = frozenset(),
) -> str:
    """``[header] row; row (+n rows)``: the rows a later message refers to, else every row.

    When a later message refers to rows (says one of their cells again), the record is the
    header and those rows alone: what the conversation went on to use, short enough to last.
    Otherwise the rows are written in order while they fit, and how many did not is said.
    ``nouns``: what the rows are called (:func:`.described.row_nouns`), for descriptions.
    """
    header, rows = table
    head = "[" + " | ".join(shown(h) for h in header) + "]"
    lines = [" | ".join(shown(c) for c in r) for r in rows]
    cited = list(picked) or (_cited(table, referred, nouns) if referred is not None else [])
    order = cited if cited and len(cited) < len(rows) else list(range(len(rows)))
    chosen: list[int] = []
    size = len(head)
    for i in order:
        if size + len(lines[i]) + 2 > max_chars - 12:
            continue
        chosen.append(i)
        size += len(lines[i]) + 2
    body = "; ".join(lines[i] for i in sorted(chosen))
    more = f" (+{len(rows) - len(chosen)} rows)" if len(chosen) < len(rows) else ""
    return f"{head} {body}{more}".strip()


def referred_rows(table: Table, referred: Said, nouns: AbstractSet[str] = frozenset()) -> int:
    """How many rows of ``table`` a later message refers to (see :func:`_cited`)."""
    return len(_cited(table, referred, nouns))


def _cited(table: Table, referred: Said, nouns: AbstractSet[str] = frozenset()) -> list[int]:
    """The rows later messages name: one says a cell that no other row has in that column.

    A cell shared by several rows ("late", "open") names none of them. More than
    :data:`MAX_CITED` rows named by one message, or by all of them, or by the words of all
    of them together, is not a reference to rows but words in common: none. Given each
    message's words, a cell is named by one message saying all its words (two messages each
    saying half of it name nothing).
    """
    if callable(referred):
        named = _named(table, [referred])
    else:
        named = _named(table, [m.__contains__ for m in referred], referred, nouns=nouns)
    cited: set[int] = set().union(*named)
    return sorted(cited) if len(cited) <= MAX_CITED else []


def named_by(
    table: Table,
    said: Sequence[AbstractSet[str]],
    keys: bool = False,
    rare: bool = False,
    nouns: AbstractSet[str] = frozenset(),
    names: bool = False,
    apart: bool = False,
) -> list[set[int]]:
    """The rows each message names (see :func:`_cited`): none when it names too many.

    With ``keys``, only by a cell of a key column (:func:`key_columns`): the row's name, not
    a value that happens to be its alone ("thermostatic head" in a parcel's contents). With
    ``rare`` as well, only by a key cell that is a code or a name of two words or more
    (:func:`_rare`): "Tanaka Design", "Parcelwise 3", "QX-5503", not "Okonkwo" or "Ana", nor
    a time, amount or date ("10:30"), which a message may say in passing. ``nouns``: what
    the rows are called (:func:`.described.row_nouns`): "that crashing pod". With ``names``,
    only by a cell that is a name or a code (:func:`_name_like`: "Okonkwo", "pipe clip",
    "QX-5503"), not a number, amount, time or date, which says nothing of which row it is when
    a record shows one row. With ``apart``, each message is read alone: not also all of
    them together, whose words in common name too many rows (:func:`_cited`); for reading one
    table for many messages at once, as each of them alone would.
    """
    tests = [m.__contains__ for m in said]
    return _named(table, tests, said, keys, rare, nouns, names, apart)


def _name_like(words: Sequence[str]) -> bool:
    """Whether a cell's words name something, not count or date it.

    A code, or a word of 3 letters or more that is neither a month nor a stopword
    ("Okonkwo", "pipe clip", "QX-5503"; not "12", "1,250.00", "3 May 2024").
    """
    if any(any(c.isdigit() for c in w) and any(c.isalpha() for c in w) for w in words):
        return True
    return any(len(w) >= 3 and w.isalpha() and w not in MONTHS | STOPWORDS for w in words)


MONTHS = MONTH_WORDS | MONTH_WORDS_WITH_DIGIT
"""Month names, whole and short ("may", "mar" included): a date's words, not a name's."""


def _rare(words: Sequence[str]) -> bool:
    """Whether a cell's words are unlikely said in passing.

    A code, or two words or more of which one is a word of 3 letters or more that is not a
    month ("Tanaka Design", "Parcelwise 3"); not a time, an amount, a date or a quantity
    ("10:30", "1,250.00", "3 May 2024", "12 kg"), which a passing remark says as easily.
    """
    if any(any(c.isdigit() for c in w) and any(c.isalpha() for c in w) for w in words):
        return True
    named = [w for w in words if len(w) >= 3 and w.isalpha() and w not in MONTHS]
    return len(words) >= 2 and bool(named)


def key_columns(table: Table) -> set[int]:
    """The columns whose cells are all different and none empty: what names a row."""
    header, rows = table
    return {
        j
        for j in range(len(header))
        if all(len(r) > j and r[j] for r in rows) and len({r[j] for r in rows}) == len(rows)
    }


def _named(
    table: Table,
    tests: Sequence[Callable[[str], bool]],
    said: Sequence[AbstractSet[str]] | None = None,
    keys: bool = False,
    rare: bool = False,
    nouns: AbstractSet[str] = frozenset(),
    names: bool = False,
    apart: bool = False,
) -> list[set[int]]:
    """The rows each test names (see :func:`_cited`).

    Given each message's words (``said``), a message that names no row by a cell may
    describe one (:func:`.described.described_row`). With ``keys``, a cell names its row only
    in a key column (:func:`key_columns`).
    """
    header, rows = table
    counts: list[dict[str, int]] = [{} for _ in header]
    for r in rows:
        for j, c in enumerate(r[: len(counts)]):
            counts[j][c] = counts[j].get(c, 0) + 1
    key = key_columns(table) if keys else set(range(len(header)))
    unique = [
        (i, words, j in key and (not rare or _rare(words)))
        for i, r in enumerate(rows)
        for j, c in enumerate(r[: len(counts)])
        if counts[j].get(c) == 1
        and (words := _cell_words(c)) is not None
        and (not names or _name_like(words))
    ]
    # given each message's words, a cell is looked up by its first word: a message not
    # saying it names nothing by that cell (the same hits as every cell tested, cheaper)
    by_first: dict[str, list[tuple[int, list[str], bool]]] = {}
    if said is not None:
        for entry in unique:
            by_first.setdefault(entry[1][0], []).append(entry)
    out: list[set[int]] = []
    table_words: TableWords | None = None  # the table's words for descriptions, read once
    for m, test in enumerate(tests):
        if said is not None:
            message = said[m]
            firsts = (
                [w for w in message if w in by_first]
                if len(message) < len(by_first)
                else [w for w in by_first if w in message]
            )
            hits = [
                (i, keyed)
                for w in firsts
                for i, words, keyed in by_first[w]
                if all(x in message for x in words)
            ]
        else:
            hits = [(i, keyed) for i, words, keyed in unique if all(test(w) for w in words)]
        named = {i for i, _ in hits}
        if not named and said is not None and not isinstance(said[len(out)], Echoed):
            if table_words is None:
                table_words = _table_words(tuple(header), tuple(tuple(r) for r in rows))
            row = described_row(table, said[len(out)], nouns, table_words)
            named = {row} if row is not None else set()
        elif keys:
            named = {i for i, keyed in hits if keyed} if len(named) <= MAX_CITED else set()
        out.append(named if len(named) <= MAX_CITED else set())
    if len(tests) > 1 and not apart:  # the words together naming too many rows: in common
        if said is not None:  # each test is a message's words: together, their union
            union: set[str] = set().union(*said)
            together = {i for i, words, _ in unique if all(w in union for w in words)}
        else:
            together = {i for i, words, _ in unique if all(any(t(w) for t in tests) for w in words)}
        if len(together) > MAX_CITED:
            return [set() for _ in tests]
    return out


_TableKey = tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]
_TABLE_WORDS: contextvars.ContextVar[dict[_TableKey, TableWords] | None] = contextvars.ContextVar(
    "summem_table_words", default=None
)
"""The tables read in the summary being built (:func:`table_words_scope`), by content."""


@contextlib.contextmanager
def table_words_scope() -> Iterator[None]:
    """Read each table's words once while the block runs (one summary being built).

    The tables are a conversation's tool results: kept for the one summary, not in a cache
    of the process (a long-running server summarizing many sessions held up to 256 tables of
    any size, whatever session they came from). A scope per context: threads and tasks
    summarizing at once each have their own.
    """
    token = _TABLE_WORDS.set({})
    try:
        yield
    finally:
        _TABLE_WORDS.reset(token)


def _table_words(header: tuple[str, ...], rows: tuple[tuple[str, ...], ...]) -> TableWords:
    """A table's :class:`.described.TableWords`, read once a table in a scope.

    Each caller reads the table again; within :func:`table_words_scope` they share one
    reading, outside one it is read afresh.
    """
    scope = _TABLE_WORDS.get()
    key = (header, rows)
    found = scope.get(key) if scope is not None else None
    if found is None:
        found = TableWords((list(header), [list(r) for r in rows]))
        if scope is not None:
            scope[key] = found
    return found


MAX_CITED = 3
"""The most rows of one table a message can name; more is words in common."""
MAX_REMEMBERED = 6
"""Tables a summary remembers (the latest) to bring back the rows a later turn names."""
_REMEMBERED_CHARS = 2400
"""The most characters of one remembered table's cells."""


def remember(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[Any] | None:
    """A table as a summary's ``extra`` keeps it: ``[header, rows]``, rows cut to fit.

    Cells are kept whole (a later message names a row by any word of one) and counted as a
    record shows them (:func:`shown`): the same rows are kept as of cut cells.
    """
    kept: list[list[str]] = []
    size = sum(len(shown(h)) for h in header)
    for r in rows:
        size += sum(len(shown(c)) + 1 for c in r)
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


def updated_rows(older: Table, newer: Table) -> list[tuple[int, int]]:
    """The rows of ``older`` a newer fetch of the same table shows changed: (older, newer).

    The same table: the same columns. The same row: a key cell (:func:`key_columns` of both)
    in common and at least half the cells equal ("Mossgrove" with a new amount); a row that
    shares its key alone is another record of a list that happens to have it. A row shown
    again unchanged is not listed: its older version is not stale.
    """
    if list(older[0]) != list(newer[0]):
        return []
    keys = sorted(key_columns(older) & key_columns(newer))
    width = len(older[0])
    index: dict[tuple[int, str], int] = {}
    for j, row in enumerate(newer[1]):
        for c in keys:
            index.setdefault((c, row[c]), j)
    out: list[tuple[int, int]] = []
    for i, row in enumerate(older[1]):
        for c in keys:
            at = index.get((c, row[c]))
            if at is None:
                continue
            same = sum(1 for a, b in zip(row, newer[1][at], strict=False) if a == b)
            if 2 * same >= width:
                if same < width:
                    out.append((i, at))
                break
    return out
