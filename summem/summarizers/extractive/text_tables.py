"""Tables written as text: bordered with pipes, separated by a delimiter, or padded with spaces.

A tool's table comes as a program printed it, not only as markdown: ``psql`` (`` a | b`` over a
``---+---`` rule, or ``+---+`` borders all round), MySQL and reStructuredText grids, box-drawing
characters (``│``), Excel or a spreadsheet copied as TSV (CR LF line ends, empty cells,
``1,204,500``), CSV, and columns padded with spaces as ``kubectl get``, ``docker ps``, ``df -h``,
``ps aux`` or a pandas ``DataFrame`` print them, where a header may be two words one space apart
(``Mounted on``) and neighbouring columns may be one space apart (``Used Avail``). Each is read by
the cells' places, not by one separator, and a caption or a count around the table (``(4
rows)``, ``[10 rows x 3 columns]``, ``total 48``) is left out. A text none of those read may be
columns one space apart or a report grouped under headings (:func:`text_table`). Pure
functions, linear in the text; the two readers of shapes no program's parser names are bounded
(characters, rows, and steps: :data:`_MAX_WORK`).
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet

from summem.summarizers.extractive.lexicon import STOPWORDS

__all__ = ["MAX_CELL", "TEXT_READERS", "Table", "cell", "shown", "text_table"]

Table = tuple[list[str], list[list[str]]]

MAX_CELL = 40
"""The most characters of a cell a record shows (:func:`shown`)."""
MAX_WHOLE = 200
"""The most characters of a cell as read (:func:`cell`): a message names a row by any of it."""
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
    """A cell as read: one line, no ``|``, at most :data:`MAX_WHOLE` characters.

    Whole, so that a message names its row by any word of it (a job's description, an
    e-mail's subject); a record shows it cut (:func:`shown`). Cut as read, "Who's doing the
    Harbour Court job?" named no row of a job described "annual boiler service for the
    landlord at Harbour Court" (``ablate=["whole_cells"]`` cuts it as read again). Own
    ``tool-shapes`` after 10 reductions / at the end at 4,000/3,000/1,000, 5 seeds: 0.484 /
    0.512 -> 0.548 / 0.525 (2,000: 0.312 / 0.175, the same); families with no cell over 40
    characters are unchanged by construction (``docs-notes/fidelity-round13-tables.md``).
    """
    text = "" if value is None else str(value)
    if isinstance(value, bool):
        text = "true" if value else "false"
    text = " ".join(text.split()).replace("|", "/")
    return _cut(text, MAX_WHOLE)


def shown(text: str) -> str:
    """A cell as a record shows it: at most :data:`MAX_CELL` characters, its end cut."""
    return _cut(text, MAX_CELL)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


TEXT_READERS = frozenset({"spaced_columns", "grouped_reports", "delimited_rows"})
"""The rules of this module an ablation may switch off (names of ``HEURISTICS``):
``spaced_columns`` (:func:`_spaced_table`), ``grouped_reports`` (:func:`_grouped_table`),
``delimited_rows`` (:func:`_delimited_table`: most rows hold the separator)."""


def text_table(text: str, on: AbstractSet[str] = TEXT_READERS) -> Table | None:
    """The table a text holds (pipes, a delimiter or padding; see the module), or None.

    The table may have up to two short lines around it (a caption, a row count): each way of
    leaving them out is tried, fewest first. A text none of those read may be a report
    grouped under headings (``grouped_reports``) or columns one space apart
    (``spaced_columns``); ``on``: the rules of :data:`TEXT_READERS` on.
    """
    lines = [line.rstrip(" \r") for line in text.splitlines() if line.strip()]
    if len(lines) < 3:
        return None
    strict = "delimited_rows" in on
    for body in _trimmed(lines):
        for parse in _PARSERS:
            table = _delimited_table(body, strict) if parse is _delimited_table else parse(body)
            if table is not None:
                return table
    if "grouped_reports" in on and len(text) <= _MAX_READ_CHARS:
        table = _grouped_table(lines)
        if table is not None:
            return table
    if "spaced_columns" in on and len(text) <= _MAX_READ_CHARS:
        work = _Work()
        try:
            for head, tail in _trims(lines):
                body, below = lines[head : len(lines) - tail], lines[len(lines) - tail :]
                if any(len(line.split(" ")) >= len(body[0].split(" ")) for line in below):
                    continue  # a line left out below is as long as a row: a row, not a count
                table = _spaced_table(body, work)
                if table is not None:
                    return table
        except _TooLong:
            return None
    return None


def _trimmed(lines: list[str]) -> list[list[str]]:
    """``lines`` with up to two short lines left out at either end, fewest left out first."""
    return [lines[head : len(lines) - tail] for head, tail in _trims(lines)]


def _trims(lines: list[str]) -> list[tuple[int, int]]:
    """The lines :func:`_trimmed` leaves out: how many at the head and at the tail."""
    out: list[tuple[int, int]] = []
    for dropped in range(2 * _MAX_AROUND + 1):
        for head in range(dropped + 1):
            tail = dropped - head
            if head > _MAX_AROUND or tail > _MAX_AROUND or len(lines) - dropped < 3:
                continue
            around = lines[:head] + lines[len(lines) - tail :]
            if all(len(line) <= _MAX_AROUND_CHARS for line in around):
                out.append((head, tail))
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


def _delimited_table(lines: list[str], strict: bool = True) -> Table | None:
    """CSV, TSV (a spreadsheet's copy) or ``;``-separated text, its header's separator.

    A quoted cell may hold the separator (``"July 16, 2027"``); a row may be an empty cell
    short of the header (a spreadsheet drops trailing tabs). With ``strict`` (the
    ``delimited_rows`` rule), most rows hold the separator: a title with a comma ("ROTA, NEXT
    WEEK") over a report whose lines have none is two columns of which every row fills one.
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
        if strict and 2 * sum(len(row) >= 2 for row in split[1:]) < len(split) - 1:
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


_KEY_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.#/-]{0,30}")
"""A column's name in a header of words one space apart: a word or a ``snake_case`` key."""
_MAX_SPACED_COLUMNS = 12
_MAX_SPACED_ROWS = 60
"""Rows of columns one space apart read (``spaced_columns``); a longer listing is no table."""
_MAX_EXTRA_WORDS = 24
"""Words a row of columns one space apart may have beyond one a column (its free text)."""
_MAX_CELL_WORDS = 8
"""Words of a cell of columns one space apart but the last (a name, a short phrase); the last
column, a note, takes what is left."""
_MAX_READ_CHARS = 12_000
"""The longest text read as columns one space apart or as a grouped report: the readers of
shapes no program's parser names stay cheap beside the others (main's readers take 35 ms on a
2,000-row listing; cutting every row of it into cells took 3 s before the bounds)."""
_MAX_WORK = 10_000
"""Steps (a cell tried, a partial cutting kept) cutting one text's rows into cells may take,
over every row and every way of leaving out a caption; past it the text is no table."""
_SENTENCE_END_RE = re.compile(r"[A-Za-z][.!?][\"')\u201d]?$")
"""A line ending a sentence ("...this week."): prose, never a row of columns one space apart."""


class _TooLong(Exception):
    """Cutting a text's rows into cells took :data:`_MAX_WORK` steps: the text is no table."""


class _Work:
    """What is left of one text's :data:`_MAX_WORK` (shared by every row and trimmed body)."""

    __slots__ = ("left",)

    def __init__(self, left: int = _MAX_WORK) -> None:
        self.left = left

    def spend(self, steps: int = 1) -> None:
        self.left -= steps
        if self.left < 0:
            raise _TooLong


def _word_kind(words: Sequence[str]) -> str:
    """A cell's kind for lining up rows: ``number``, ``digits`` (a code, a date) or ``words``.

    A value is one word (a date in words is one: :func:`_spaced_words`): words around a digit
    are a name ("Run 4") or prose ("finished 12 tasks"), of words.
    """
    if len(words) != 1:
        return "words"
    if _VALUE_RE.fullmatch(words[0]):
        return "number"
    return "digits" if any(c.isdigit() for c in words[0]) else "words"


_DATE_WORDS_RE = re.compile(
    r"\b(?:\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?,? \d{4}"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2},? \d{4})\b"
)
"""A date written in words ("19 February 2027", "Dec 10, 2028"): one cell, though spaced."""
_GLUE = "\u00a0"


def _spaced_words(line: str) -> list[str]:
    """A line's words one space apart, a date written in words kept as one."""
    glued = _DATE_WORDS_RE.sub(lambda m: m.group(0).replace(" ", _GLUE), line)
    return [w.replace(_GLUE, " ") for w in glued.split(" ")]


def _bare_counts(cells: list[str]) -> int:
    """Cells that are a whole number alone: a count, or more often the end of a name cut off."""
    return sum(c.isdigit() for c in cells)


def _spaced_table(lines: list[str], work: _Work) -> Table | None:
    """Columns one space apart (the ``spaced_columns`` rule): a header of names, rows of values.

    A quick ``print(*row)`` or ``echo`` writes a table so: nothing tells the columns apart but
    the kinds of their cells, and a cell may hold spaces (a name, a note). Each row is cut
    into as many cells as the header has names, in the way that gives every row the same
    kinds down each column (a number, a code or date, words) with at least one column not of
    words; a free-text cell takes the words left over, the last one first. Strict, as prose is
    no table: no line has two spaces in a row, the header is 3-12 names (a word or a
    ``snake_case`` key, none a stopword, none said twice), every row has at least as many
    words as the header and none ends a sentence, a value is one word, no column but the last
    has stopwords in most rows, and every row fits the one pattern of kinds. Of the patterns
    every row fits, the one with columns of words first: a table names its rows first and
    notes them last, so a run of words at the end is one note, not a name and a note. Bounded:
    at most :data:`_MAX_SPACED_ROWS` rows, and ``work`` (:data:`_MAX_WORK`) for all the cutting.
    """
    if len(lines) - 1 > _MAX_SPACED_ROWS or any("  " in line or "\t" in line for line in lines):
        return None
    header = lines[0].split(" ")
    k = len(header)
    if not 3 <= k <= _MAX_SPACED_COLUMNS or len(set(header)) < k:
        return None
    if not all(_KEY_WORD_RE.fullmatch(h) and h.lower() not in STOPWORDS for h in header):
        return None
    if any(_SENTENCE_END_RE.search(line) for line in lines[1:]):
        return None
    rows = [_spaced_words(line) for line in lines[1:]]
    if len(rows) < 2 or any(not k <= len(r) <= k + _MAX_EXTRA_WORDS for r in rows):
        return None
    ways = []
    common: AbstractSet[tuple[str, ...]] | None = None  # the patterns every row so far fits
    for words in rows:
        way = _cut_ways(words, k, None, common, work)
        common = {kinds for kinds in way if any(kind != "words" for kind in kinds)}
        if not common:
            return None
        ways.append(way)
    # the fewest values run together (in a note); the lowest cost ("The Godfather | 1972" over
    # "The | Godfather 1972"); the fewest bare counts ("Bluebox 1" is one name); then the
    # columns of words first, as a note ends a row
    kinds = min(
        common or (),
        key=lambda ks: (
            sum(w[ks][0] for w in ways) // _VALUES_APART,
            sum(w[ks][0] for w in ways),
            sum(_bare_counts(w[ks][1]) for w in ways),
            [k != "words" for k in ks],
        ),
    )
    picked = [w[kinds][1] for w in ways]
    widths = [sorted(len(r[j].split()) for r in picked)[len(picked) // 2] for j in range(k)]
    for i, words in enumerate(rows):
        if [len(c.split()) for c in picked[i]] == widths:
            continue  # cut as the usual row is already
        again = _cut_ways(words, k, widths, {kinds}, work)
        if kinds in again:
            picked[i] = again[kinds][1]
    if any(_mostly_stopwords([r[j] for r in picked]) for j in range(k - 1)):
        return None
    noted = kinds[-1] == "words" and any(" " in r[-1] for r in picked)
    if noted and sum(kind != "words" for kind in kinds) < 2:
        return None  # "cpu 43 percent on node 2": a name, a value and words about it
    return [cell(h) for h in header], [[cell(c) for c in r] for r in picked]


def _mostly_stopwords(column: list[str]) -> bool:
    """Whether most cells of a column hold a lower-case stopword (prose, not a title)."""
    held = sum(any(w in STOPWORDS for w in c.split()) for c in column)
    return 2 * held > len(column)


_VALUES_APART = 10**6
_CASE_APART = 10**3
_WORDS_APART = 10**2
"""Weights of a cutting's costs (see :func:`_cut_ways`), each far above the next."""


def _same_case(before: str, after: str) -> bool:
    """Whether two words are both capitalised or both lower-case (a value, a code, is neither)."""
    if any(c.isdigit() for c in before + after):
        return False
    a, b = before[:1], after[:1]
    return a.isalpha() and b.isalpha() and a.isupper() == b.isupper()


_Way = tuple[int, tuple[int, ...]]


def _cut_ways(
    words: list[str],
    k: int,
    widths: list[int] | None,
    allowed: AbstractSet[tuple[str, ...]] | None,
    work: _Work,
) -> dict[tuple[str, ...], tuple[int, list[str]]]:
    """Each pattern of kinds ``words`` can be cut into ``k`` cells by, with its best cutting.

    A cell but the last holds one value at most (a code, an amount, a date), the last two.
    Best: the fewest values in one cell; then the fewest cuts between two capitalised words or
    two lower-case ones (a name is capitalised words together, a phrase lower-case ones:
    "Cosima Dalrymple | night") and
    words beside a value in its cell; then, given the usual number of words of each column
    (``widths``), the cutting nearest to them; then the words left over in the last cells.
    Only patterns of ``allowed`` (when given: those earlier rows fit) are followed. Each cell
    tried and each partial cutting kept spends a step of ``work`` (:class:`_TooLong` past it).
    """
    n = len(words)
    starts = None if allowed is None else {p[:j] for p in allowed for j in range(k + 1)}
    digits, upper, lower = [0], [0], [0]  # words with a digit, capitalised, lower-case, so far
    for w in words:
        digits.append(digits[-1] + any(c.isdigit() for c in w))
        upper.append(upper[-1] + w[:1].isupper())
        lower.append(lower[-1] + w[:1].islower())
    alone = [_word_kind([w]) for w in words]
    cap = [int(w[:1].isupper()) for w in words]  # a capital a cell may start with
    cased = [False] + [_same_case(words[i - 1], words[i]) for i in range(1, n)]
    phrase = [i < n and c and words[i][:1].islower() for i, c in enumerate([*cased, False])]
    # states[j][i]: kinds of the first j cells over the first i words -> (cost, cell lengths)
    states: list[dict[int, dict[tuple[str, ...], _Way]]] = [{0: {(): (0, ())}}]
    for j in range(k):
        nxt: dict[int, dict[tuple[str, ...], _Way]] = {}
        for i, by_kinds in states[j].items():
            cut = _CASE_APART if cased[i] else 0
            last = n - (k - j - 1) if j == k - 1 else min(n - (k - j - 1), i + _MAX_CELL_WORDS)
            for end in range(i + 1, last + 1):
                work.spend()
                size, valued = end - i, digits[end] - digits[i]
                if size > 1 and (phrase[i] or phrase[end]):
                    continue  # a lower-case phrase runs on past the cell: prose, not columns
                capitals = upper[end] - upper[i]
                if size > 1 and j < k - 1 and lower[end] > lower[i] and capitals > cap[i]:
                    continue  # a name and words after it ("Margaret Hale brought"): a sentence
                if valued > 2 and j == k - 1:
                    continue  # a note holds a value or two, not a row's worth
                if valued > 1 and j < k - 1:
                    continue  # two values in one cell: only a note, the last, holds several
                step = cut + (
                    max(valued - 1, 0) * _VALUES_APART + (size - 1) * _WORDS_APART if valued else 0
                )
                if widths is not None:
                    step += abs(size - widths[j])
                kind = alone[i] if size == 1 else "words"
                slot = nxt.setdefault(end, {})
                for kinds, (cost, lengths) in by_kinds.items():
                    key = (*kinds, kind)
                    if starts is not None and key not in starts:
                        continue
                    way = (cost + step, (*lengths, size))
                    old = slot.get(key)
                    if old is None or way < old:
                        work.spend()
                        slot[key] = way
        states.append(nxt)
    ways: dict[tuple[str, ...], tuple[int, list[str]]] = {}
    for kinds, (cost, lengths) in states[k].get(n, {}).items():
        cells, at = [], 0
        for size in lengths:
            cells.append(" ".join(words[at : at + size]))
            at += size
        ways[kinds] = (cost, cells)
    return ways


_CELLS_RE = re.compile(r" {2,}|\t")
_MAX_GROUP_HEADING_WORDS = 6


def _grouped_table(lines: list[str]) -> Table | None:
    """A report grouped under headings (the ``grouped_reports`` rule), its group a column.

    A heading (``North``, ``Crew B``, ``Status: overdue``) on a line of its own, the group's
    rows indented under it, cells two spaces or more apart, perhaps a count or subtotal line
    (indented, fewer cells) after them; a title above and a grand total below. Each row is
    read with its heading as a first column, ``group``; a header line (names two spaces
    apart above the first heading, or indented as the rows) names the others, else they are
    named by place (``2``, ``3``...). Strict: at least two headings with rows under them,
    three rows in all, rows of one width (3 cells or more), and every other line a short
    heading, a title or total (at most two each, before the first group and after the last),
    or an indented line of fewer cells.
    """
    indented = [line[:1] in (" ", "\t") for line in lines]
    split = [[c for c in _CELLS_RE.split(line.strip()) if c] for line in lines]
    widths = Counter(len(s) for s, ind in zip(split, indented, strict=True) if ind)
    if not widths:
        return None
    width = max(widths, key=lambda w: (widths[w], w))
    if width < 3:
        return None
    header: list[str] | None = None
    heading: str | None = None
    rows: list[list[str]] = []
    groups = 0
    before = after = 0
    for i, line in enumerate(lines):
        cells = split[i]
        if indented[i]:
            if (
                len(cells) == width
                and header is None
                and not rows
                and heading is None
                and _header_ok(cells)
            ):
                header = cells
            elif after:
                return None  # a group after a line that is no heading: whose rows are these?
            elif len(cells) == width and heading is not None:
                rows.append([heading, *cells])
            elif len(cells) < width and rows and heading is not None:
                continue  # a count or a subtotal
            else:
                return None
            continue
        if len(cells) == width and heading is None and header is None and _header_ok(cells):
            header = cells
            continue
        nxt = i + 1 < len(lines) and indented[i + 1] and len(split[i + 1]) == width
        words = line.split()
        if nxt and len(cells) == 1 and len(words) <= _MAX_GROUP_HEADING_WORDS:
            if after:
                return None
            heading = " ".join(words).rstrip(":")
            groups += 1
            continue
        if heading is None:
            before += 1
            if before > _MAX_AROUND:
                return None
        else:
            after += 1
            if after > _MAX_AROUND:
                return None
    if groups < 2 or len(rows) < 3 or len({r[0] for r in rows}) < 2:
        return None
    names = header if header is not None else [str(j + 2) for j in range(width)]
    return ["group", *(cell(h) for h in names)], [[cell(c) for c in r] for r in rows]
