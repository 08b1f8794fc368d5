"""Tables written as text: bordered with pipes, separated by a delimiter, or padded with spaces.

A tool's table comes as a program printed it, not only as markdown: ``psql`` (`` a | b`` over a
``---+---`` rule, or ``+---+`` borders all round), MySQL and reStructuredText grids, box-drawing
characters (``│``), Excel or a spreadsheet copied as TSV (CR LF line ends, empty cells,
``1,204,500``), CSV, and columns padded with spaces as ``kubectl get``, ``docker ps``, ``df -h``,
``ps aux`` or a pandas ``DataFrame`` print them, where a header may be two words one space apart
(``Mounted on``) and neighbouring columns may be one space apart (``Used Avail``). Each is read by
the cells' places, not by one separator, and a caption or a count around the table (``(4
rows)``, ``[10 rows x 3 columns]``, ``total 48``) is left out. Pure functions, linear in the text.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Sequence

__all__ = ["Table", "cell", "text_table"]

Table = tuple[list[str], list[list[str]]]

MAX_CELL = 40
_BOX = str.maketrans(dict.fromkeys("│┃║", "|"))
_RULE_RE = re.compile(r"^[\s|+:=\-─━═┌┐└┘├┤┬┴┼╔╗╚╝╠╣╦╩╬╞╡╪╒╕╘╛╤╧╟╢╫]+$")
"""A border or the line under a header: rule characters alone (``+----+``, ``|:---:|``)."""
_GAP_RE = re.compile(r"\S {2,}\S")
_VALUE_RE = re.compile(r"[-+$€£]?\d[\d.,:/%-]*")
"""A number, an amount, a time or a date: a data cell, never a column's name."""
_ELLIPSIS = frozenset({"..", "...", "\u2026"})
_MAX_AROUND = 2
"""Lines of caption or count (``(4 rows)``) a table may have around it, each short."""
_MAX_AROUND_CHARS = 80
_MAX_HEADER_WORDS = 4


def cell(value: object) -> str:
    """A cell as a record shows it: one line, no ``|``, at most :data:`MAX_CELL` characters."""
    text = "" if value is None else str(value)
    if isinstance(value, bool):
        text = "true" if value else "false"
    text = " ".join(text.split()).replace("|", "/")
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "\u2026"


def text_table(text: str) -> Table | None:
    """The table a text holds (pipes, a delimiter or padding; see the module), or None.

    The table may have up to two short lines around it (a caption, a row count): each way of
    leaving them out is tried, fewest first.
    """
    lines = [line.rstrip(" \r") for line in text.splitlines() if line.strip()]
    if len(lines) < 3:
        return None
    for body in _trimmed(lines):
        for parse in _PARSERS:
            table = parse(body)
            if table is not None:
                return table
    return None


def _trimmed(lines: list[str]) -> list[list[str]]:
    """``lines`` with up to two short lines left out at either end, fewest left out first."""
    out: list[list[str]] = []
    for dropped in range(2 * _MAX_AROUND + 1):
        for head in range(dropped + 1):
            tail = dropped - head
            if head > _MAX_AROUND or tail > _MAX_AROUND or len(lines) - dropped < 3:
                continue
            around = lines[:head] + lines[len(lines) - tail :]
            if all(len(line) <= _MAX_AROUND_CHARS for line in around):
                out.append(lines[head : len(lines) - tail])
    return out


def _header_ok(header: Sequence[str]) -> bool:
    """Whether ``header`` names columns: most named, shortly, none by a number or a sentence.

    A number is a data row (``ls -l``'s first line is no header); a sentence is prose.
    """
    named = [h for h in header if h]
    if len(named) < 2 or 2 * len(named) < len(header):
        return False
    return not any(
        _VALUE_RE.fullmatch(h) or h.endswith((".", "!", "?")) or len(h.split()) > _MAX_HEADER_WORDS
        for h in named
    )


def _pipe_table(lines: list[str]) -> Table | None:
    """Cells between pipes: markdown, psql, MySQL and RST grids, box-drawing characters.

    Border and rule lines are left out; the header is the first line of cells, and it must be
    followed by a rule unless every line has the same number of cells.
    """
    lines = [line.translate(_BOX).strip() for line in lines]
    rules = [bool(_RULE_RE.match(line)) and any(c in line for c in "-=─━═") for line in lines]
    cells = [_pipe_cells(line) for line, rule in zip(lines, rules, strict=True) if not rule]
    if len(cells) < 2 or any(len(row) < 2 for row in cells):
        return None
    first = rules.index(False)
    ruled = first + 1 < len(lines) and rules[first + 1]
    header, rows = cells[0], [r for r in cells[1:] if len(r) == len(cells[0])]
    if not ruled and len(rows) < len(cells) - 1:
        return None
    rows = [r for r in rows if not all(c in _ELLIPSIS or not c for c in r)]
    return (header, rows) if rows and _header_ok(header) else None


def _pipe_cells(line: str) -> list[str]:
    inner = line[1:] if line.startswith("|") else line
    inner = inner[:-1] if inner.endswith("|") else inner
    return [cell(c) for c in inner.split("|")] if "|" in line else []


def _delimited_table(lines: list[str]) -> Table | None:
    """CSV, TSV (a spreadsheet's copy) or ``;``-separated text, its header's separator.

    A quoted cell may hold the separator (``"July 16, 2027"``); a row may be an empty cell
    short of the header (a spreadsheet drops trailing tabs).
    """
    for sep in ("\t", ",", ";"):
        if sep not in lines[0]:
            continue
        try:
            split = [[cell(c) for c in row] for row in csv.reader(lines, delimiter=sep)]
        except csv.Error:
            continue
        width = len(split[0])
        if width < 2 or any(not width - 1 <= len(row) <= width for row in split):
            continue
        rows = [row + [""] * (width - len(row)) for row in split[1:]]
        if _header_ok(split[0]):
            return split[0], rows
    return None


def _aligned_table(lines: list[str]) -> Table | None:
    """Columns padded with spaces, read by where the cells are.

    A column ends where every line has a space. Then a stretch with no header word is part
    of the column on its left; a header word over no data, one space after the one before,
    is the second word of that header (``Mounted on``); a first column without a header is a
    ``DataFrame``'s index (dropped when it numbers the rows; its name may be on the next line);
    a row of ``...`` is a ``DataFrame``'s cut. Every line must have two spaces between words
    somewhere, and most cells start or end where their header does: prose is no table.
    """
    lines = [line.expandtabs() for line in lines if not _RULE_RE.match(line.strip())]
    if len(lines) < 3:
        return None
    named_index = lines[0].startswith(" ") and len(lines[1].split()) == 1
    if not all(_GAP_RE.search(line) or (i == 1 and named_index) for i, line in enumerate(lines)):
        return None
    width = max(len(line) for line in lines)
    blank = [all(p >= len(line) or line[p] == " " for line in lines) for p in range(width)]
    spans: list[list[int]] = []
    for p, free in enumerate(blank):
        if not free and (not spans or blank[p - 1]):
            spans.append([p, p + 1])
        elif not free:
            spans[-1][1] = p + 1

    def column(j: int) -> list[str]:
        a, b = spans[j]
        return [" ".join(line[a:b].split()) for line in lines]

    j = 1
    while j < len(spans):
        here = column(j)
        two_words = bool(here[0]) and not any(here[1:]) and spans[j][0] - spans[j - 1][1] == 1
        if not here[0] or two_words:
            spans[j - 1][1] = spans.pop(j)[1]
        else:
            j += 1
    if len(spans) < 2:
        return None
    columns = [column(j) for j in range(len(spans))]
    if not _mostly_aligned(lines, spans):
        return None
    grid = [[cell(c[i]) for c in columns] for i in range(len(lines))]
    return _indexed(grid)


def _mostly_aligned(lines: list[str], spans: list[list[int]]) -> bool:
    """Whether most data cells start or end where their header word does (or lie under it)."""
    head = lines[0]
    bounds = []
    for a, b in spans:
        text = head[a:b]
        start = a + len(text) - len(text.lstrip())
        bounds.append((start, a + len(text.rstrip())))
    aligned = total = 0
    for line in lines[1:]:
        for (a, b), (hs, he) in zip(spans, bounds, strict=True):
            text = line[a:b]
            if not text.strip() or hs >= he:  # no header word (an index): nothing to align to
                continue
            start, end = a + len(text) - len(text.lstrip()), a + len(text.rstrip())
            total += 1
            aligned += start == hs or end == he or (hs <= start and end <= he)
    return total > 0 and aligned * 10 >= total * 9


def _indexed(grid: list[list[str]]) -> Table | None:
    """A grid's header and rows, a ``DataFrame``'s index read as one (see above)."""
    header, rows = grid[0], grid[1:]
    if not header[0]:
        if rows and rows[0][0] and not any(rows[0][1:]):  # the index's name on its own line
            header, rows = [rows[0][0], *header[1:]], rows[1:]
        elif all(r[0].isdigit() or r[0] in _ELLIPSIS for r in rows):
            header, rows = header[1:], [r[1:] for r in rows]
    rows = [r for r in rows if not all(c in _ELLIPSIS or not c for c in r)]
    return (header, rows) if rows and _header_ok(header) else None


_PARSERS: tuple[Callable[[list[str]], Table | None], ...] = (
    _pipe_table,
    _delimited_table,
    _aligned_table,
)
