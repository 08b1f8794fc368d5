"""A row of a table picked by description: "the cheaper Lisbon one", "the newest image".

People come back to a row of a table without saying a whole cell of it: by part of a name
("the Alfama one" for ``Casa Alfama``), by a word's other form ("the crashing one" for
``CrashLoopBackOff``), or by comparing a column ("the cheaper of the two Lisbon hotels",
"whichever pod restarted most"). :func:`described_row` reads one message's words
(:func:`.tables.said_words`) against a table and gives the row they describe, or None; only a
user's words describe (an assistant's name rows by their cells alone, :class:`.tables.Echoed`).
It is conservative: a wrong row is worse than none, so any doubt (two columns to compare, a
tie, a value that is not a number, a word that is both a column's name and a cell's, a
description with nothing tying it to this table) names no row.

- **Selecting words**: a message word of 4 letters or more, not a stopword nor a word of
  comparison, matches a cell word when their stems are equal (``failing`` / ``failed``) or the
  cell word starts with it (``crashing`` / ``CrashLoopBackOff``, a stem of 5 letters or
  more). A word matching every row, or a column's name, selects nothing.
- **A partial name** (no word of comparison): the selecting words together leave exactly one
  row, and one of them is said just before ``one`` (``place``, ``option``...): "the Alfama
  one", or before what the table's rows are as its call names them (:func:`row_nouns`):
  "that crashing pod" after ``kubectl get pods``, "the Fennimore order" after
  ``/v2/orders``. A first name said in passing ("Booked Mireille a dentist slot, one less
  thing") names no row; naming by any word only one row has lost 0.1 of the ``ledgers`` and
  ``tables`` cells (``docs-notes/tables.md``, second round).
- **A comparison** (``cheaper``, ``newest``, ``most``...) is made over the rows that the
  words selecting two rows or more leave (all rows when none; a word naming one row alone
  makes it no comparison: "is the Quayside cheaper than the Loft?"), at least two, in one
  column: the column whose name the message says (``restarted`` for ``RESTARTS``), else the
  one column whose name or values fit the word (``cheap`` a price or a sum with its sign,
  ``new`` a date or an age, ``big`` a size or a value in GB), else the table's one numeric
  column. A comparative (``cheaper``, ``more``) compares the two rows the other words leave
  ("the cheaper of the two Lisbon hotels"), a superlative (``cheapest``, ``most``) any number.
  Something must tie the message to this table: a selecting word, a column's name,
  or the word of comparison said before ``one`` ("the cheapest one"; "I found a cheaper
  train" is none). Generic words (``most``, ``least``, ``highest``...) need the column's
  name said. Every row compared must hold a number, a date or an age (``3 days ago``,
  ``41m`` in a column named ``age``) there, and the best one must be alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from summem.summarizers.extractive.facts import fold, tokenize
from summem.summarizers.extractive.lexicon import STOPWORDS
from summem.summarizers.extractive.scripts import scripts_on

__all__ = ["BEFORE", "POINTER", "TableWords", "described_row", "pointers", "row_nouns", "stem"]

Table = tuple[Sequence[str], Sequence[Sequence[str]]]

_LOW, _HIGH = -1, 1
_PRICE = ("price", "cost", "rate", "fee", "amount", "total", "usd", "eur", "gbp", "night", "fare")
_DATE = ("date", "created", "updated", "modified", "time", "when", "since", "age", "built", "at")
_SIZE = ("size", "volume", "disk", "capacity", "bytes", "mem", "memory", "storage", "space")
_SPECIFIC: dict[str, tuple[int, tuple[str, ...]]] = {
    "cheaper": (_LOW, _PRICE),
    "cheapest": (_LOW, _PRICE),
    "pricier": (_HIGH, _PRICE),
    "priciest": (_HIGH, _PRICE),
    "oldest": (_LOW, _DATE),
    "older": (_LOW, _DATE),
    "earliest": (_LOW, _DATE),
    "earlier": (_LOW, _DATE),
    "newest": (_HIGH, _DATE),
    "newer": (_HIGH, _DATE),
    "latest": (_HIGH, _DATE),
    "biggest": (_HIGH, _SIZE),
    "bigger": (_HIGH, _SIZE),
    "largest": (_HIGH, _SIZE),
    "larger": (_HIGH, _SIZE),
    "smallest": (_LOW, _SIZE),
    "smaller": (_LOW, _SIZE),
}
"""Words of comparison that say which kind of column they compare."""
_GENERIC = {
    "most": _HIGH,
    "more": _HIGH,
    "highest": _HIGH,
    "higher": _HIGH,
    "max": _HIGH,
    "maximum": _HIGH,
    "least": _LOW,
    "fewest": _LOW,
    "fewer": _LOW,
    "lowest": _LOW,
    "lower": _LOW,
    "min": _LOW,
    "minimum": _LOW,
}
"""Words of comparison that need the column's name said ("restarted most")."""
_SUPERLATIVE = frozenset(["most", "least", "max", "maximum", "min", "minimum"])
"""Words that pick one of many, like every word ending in ``est``; the others (``cheaper``,
``more``) compare two rows: the two the message's other words leave."""
_ONE = frozenset(["one", "ones", "option", "entry", "row", "place"])
"""Words by which a message refers to one thing of several ("the Alfama one")."""
_POINTER_RE = re.compile(r"\b([a-z][a-z'-]*[a-z]) (?:" + "|".join(sorted(_ONE)) + r")\b")
POINTER = " one"
"""What :func:`pointers` appends to a word said just before ``one`` (a word holds no space)."""
_PAIR_RE = re.compile(r"\b([a-z][a-z'-]*[a-z]) (?=([a-z]{3,})\b)")
BEFORE = ">"
"""Between two words said one after the other in :func:`pointers`' pairs (``crashing>pod``)."""
_SUFFIXES = ("ings", "ing", "ies", "ied", "ed", "es", "er", "s", "e", "ly")
_UNITS = {"k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15}
_NUMBER_RE = re.compile(
    r"^(?:[$€£]|[a-z]{3} )?(-?\d[\d,]*(?:\.\d+)?)\s*(?:([kmgtp])i?b?|b|%|[a-z]{0,3}|[$€£])?"
    r"(?:\s*\(.*\))?$",
    re.IGNORECASE,
)
_SHORT_AGE_RE = re.compile(r"^(\d+)([smhdwy])(?:(\d+)([smh]))?$")
"""An age as ``kubectl`` prints it (``5d``, ``3h12m``), read only in a column named ``age``."""
_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[ t](\d{2}):(\d{2})(?::(\d{2}))?)?")
_AGE_RE = re.compile(
    r"^(?:about |an? |(\d+) )?(second|minute|hour|day|week|month|year)s?\b.*\bago\b", re.I
)
_AGE_UNITS = {
    "second": 1,
    "minute": 60,
    "hour": 3600,
    "day": 86400,
    "week": 604800,
    "month": 2629800,
    "year": 31557600,
}
_SHORT_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31557600}


def pointers(folded: str) -> set[str]:
    """``word one`` for each word said just before ``one`` (``place``, ``option``...).

    "the Alfama one", "the cheaper one": the word that picks the row. And ``word>next`` for
    each word said just before another (``crashing>pod``): a row may be pointed at by what
    the table's rows are (:func:`row_nouns`). ``folded``: the text lower-cased with its
    accents folded; a word across punctuation ("Porto. One more thing") is none.
    """
    text = folded.lower().replace("\u2019", "'")
    out = {m.group(1).removesuffix("'s") + POINTER for m in _POINTER_RE.finditer(text)}
    out.update(m.group(1).removesuffix("'s") + BEFORE + m.group(2) for m in _PAIR_RE.finditer(text))
    return out


def row_nouns(call: str) -> frozenset[str]:
    """What a table's rows are called: the plurals its call names, and their singulars.

    ``kubectl get pods`` lists pods ("that crashing pod"), ``/v2/orders`` orders ("the
    Fennimore order"), ``list_invoices`` invoices. ``call``: the call as the summary shows
    it. Not its columns' names ("the Fennimore customer" for ``customer.name``): with them,
    the held-out blind4-tables lost 0.03-0.04 at the end at 4,000 (5 seeds).
    """
    out: set[str] = set()
    for word in _words(call):
        if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
            continue
        out.update((word, word[:-1]))
        if word.endswith("ies"):
            out.add(word[:-3] + "y")
        elif word.endswith("es"):
            out.add(word[:-2])
    return frozenset(w for w in out if len(w) >= 3 and w not in STOPWORDS and w not in _ONE)


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """``word`` without one common ending, keeping 4 letters (``restarted`` -> ``restart``).

    Cached: a table's cell words are stemmed again for each message read against it.
    """
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            base = word[: -len(suffix)]
            if len(base) >= 5 and base[-1] == base[-2] and base[-1] not in "aeiouls":
                base = base[:-1]  # stopped -> stop
            return base
    return word


def _words(text: str) -> tuple[str, ...]:
    """``text``'s words, lower-cased and folded; cached (a cell is read for many messages).

    Cached by whether ``script_words`` is on (:func:`.scripts.scripts_on`): :func:`tokenize`
    reads other numeral systems' digits only then, and an ablated summary must not read
    the words another summary cached, nor leave its own for the next one.
    """
    return _words_read(text, scripts_on())


@functools.lru_cache(maxsize=65536)
def _words_read(text: str, scripts: bool) -> tuple[str, ...]:
    del scripts  # a key of the cache only
    return tuple(w for w in re.split(r"[^a-z0-9]+", " ".join(tokenize(fold(text)))) if w)


def _matches(word: str, cell_word: str) -> bool:
    s = stem(word)
    if s == stem(cell_word):
        return True
    return len(s) >= 5 and cell_word.startswith(s)


def _value(cell: str, age: bool = False) -> float | None:
    """A cell as a number to compare: a date, an age (negated: older is less), a quantity.

    ``age``: the column is named ``age``, so ``5d`` is five days (elsewhere ``5m`` could be
    five million).
    """
    text = cell.strip()
    m = _SHORT_AGE_RE.match(text) if age else None
    if m is not None:
        n, unit, n2, unit2 = m.groups()
        seconds = int(n) * _SHORT_UNITS[unit] + (int(n2) * _SHORT_UNITS[unit2] if n2 else 0)
        return -float(seconds)
    m = _DATE_RE.match(text)
    if m is not None:
        y, mo, d, h, mi, s = (int(g) if g else 0 for g in m.groups())
        return float(((((y * 12 + mo) * 31 + d) * 24 + h) * 60 + mi) * 60 + s)
    m = _AGE_RE.match(text)
    if m is not None:
        return -float(int(m.group(1) or 1) * _AGE_UNITS[m.group(2).lower()])
    m = _NUMBER_RE.match(text)
    if m is None:
        return None
    number = float(m.group(1).replace(",", ""))
    unit = (m.group(2) or "").lower()
    return number * _UNITS.get(unit, 1.0)


def _kind(cell: str) -> tuple[str, ...] | None:
    """Which words of comparison a cell's value answers (their columns' hints).

    A date or an age, a size with its unit (``412MB``), a sum of money with its sign; None
    for a bare number.
    """
    text = cell.strip()
    if _DATE_RE.match(text) or _AGE_RE.match(text):
        return _DATE
    if re.fullmatch(r"[\d.,]+\s*[kmgtp]i?b", text, re.IGNORECASE):
        return _SIZE
    if text[:1] in "$€£" or text[-1:] in "$€£":
        return _PRICE
    return None


def _values(table: Table, j: int, rows: Sequence[int]) -> dict[int, float] | None:
    """Column ``j``'s values in ``rows`` as numbers, or None when one is not a number."""
    header, cells = table
    age = "age" in _words(header[j]) if j < len(header) else False
    out: dict[int, float] = {}
    for i in rows:
        value = _value(cells[i][j] if j < len(cells[i]) else "", age)
        if value is None:
            return None
        out[i] = value
    return out


def _column(
    table: Table, word: str, rows: Sequence[int], said: Sequence[str], tied: bool
) -> int | None:
    """The one numeric column to compare ``rows`` by for ``word``, or None (see the module).

    ``tied``: other words of the message tie it to this table (a row's word, a column's
    name, ``one``); unless
    the message names the column, it is compared only then ("I found a cheaper flight" names
    no hotel).
    """
    header, cells = table
    numeric = [j for j in range(len(header)) if _values(table, j, rows) is not None]
    named = [
        j
        for j in numeric
        if any(_matches(w, hw) for hw in _words(header[j]) if len(hw) >= 3 for w in said)
    ]
    if named:  # the message says which column
        return named[0] if len(named) == 1 else None
    if word in _GENERIC or not tied:
        return None
    hints = _SPECIFIC[word][1]
    fits = [
        j
        for j in numeric
        if any(
            hw in hints or any(hw.startswith(x) for x in hints if len(x) >= 4)
            for hw in _words(header[j])
        )
        or (hints is _PRICE and any(c in header[j] for c in "$€£"))
        or all(_kind(cells[i][j] if j < len(cells[i]) else "") == hints for i in rows)
    ]
    if fits:
        return fits[0] if len(fits) == 1 else None
    everywhere = [j for j in numeric if _values(table, j, range(len(cells))) is not None]
    return everywhere[0] if len(everywhere) == 1 else None


def may_describe(said: AbstractSet[str], nouns: AbstractSet[str] = frozenset()) -> bool:
    """Whether :func:`described_row` may find a row for ``said``: it compares or points.

    False means it finds none (one word of comparison, or a word said before ``one`` or
    before one of the ``nouns``, is what a description needs): a cheap test before it.
    """
    compare = {w for w in said if w.isalpha() and (w in _SPECIFIC or w in _GENERIC)}
    if "recent" in said and compare <= {"most", "more"}:
        compare = {"newest"}
    return len(compare) == 1 or _points(said, nouns)


@functools.lru_cache(maxsize=4096)
def _may_describe(said: frozenset[str], nouns: AbstractSet[str]) -> bool:
    """:func:`may_describe`, once a message (a table is read for each of many messages)."""
    return may_describe(said, nouns)


def _points(said: AbstractSet[str], nouns: AbstractSet[str]) -> bool:
    return any(w.endswith(POINTER) or w.partition(BEFORE)[2] in nouns for w in said)


def _read(said: AbstractSet[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """A message's words of comparison, and its content words in order (for a description)."""
    words = sorted(w for w in said if w.isalpha())
    compare = frozenset(w for w in words if w in _SPECIFIC or w in _GENERIC)
    if "recent" in said and compare <= {"most", "more"}:
        compare = frozenset(["newest"])  # "the most recent"
    content = tuple(w for w in words if len(w) >= 3 and w not in STOPWORDS and w not in compare)
    return compare, content


@functools.lru_cache(maxsize=4096)
def _reading(said: frozenset[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """:func:`_read`, once a message (a message is read against many tables)."""
    return _read(said)


def _pointed(word: str, said: AbstractSet[str], nouns: AbstractSet[str]) -> bool:
    """Whether ``word`` is said just before ``one`` or before one of the rows' ``nouns``."""
    return word + POINTER in said or any(word + BEFORE + n in said for n in nouns)


class TableWords:
    """A table's words as :func:`described_row` reads them, each message word's rows once.

    For reading one table against many messages: their words in common ("cheapest",
    "hotel") are matched with the table's cells once, not once a message.
    """

    def __init__(self, table: Table) -> None:
        header, rows = table
        self.header_words = [hw for h in header for hw in _words(h) if len(hw) >= 3]
        self.cell_words = [[_words(c) for c in r] for r in rows]
        self._rows: dict[str, set[int] | None] = {}
        self._column: dict[str, bool] = {}

    def names_column(self, word: str) -> bool:
        """Whether ``word`` matches a column's name (see :func:`_matches`)."""
        found = self._column.get(word)
        if found is None:
            found = any(_matches(word, hw) for hw in self.header_words)
            self._column[word] = found
        return found

    def rows(self, word: str) -> set[int] | None:
        """The rows with a cell word ``word`` matches; None when it names a column.

        The set is shared: read it, never change it.
        """
        if word in self._rows:
            return self._rows[word]
        hit: set[int] | None = None
        if not self.names_column(word):
            hit = {
                i
                for i, r in enumerate(self.cell_words)
                if any(_matches(word, cw) for c in r for cw in c)
            }
        self._rows[word] = hit
        return hit


def described_row(
    table: Table,
    said: AbstractSet[str],
    nouns: AbstractSet[str] = frozenset(),
    words_of: TableWords | None = None,
) -> int | None:
    """The one row of ``table`` the words ``said`` describe (see the module), or None.

    ``nouns``: what the table's rows are called (:func:`row_nouns`); a partial name said
    just before one of them points at its row as one said before ``one`` does.
    ``words_of``: the table's :class:`TableWords`, when one table is read for many messages.
    """
    rows = table[1]
    hashable = isinstance(said, frozenset) and isinstance(nouns, frozenset)
    if not (_may_describe(said, nouns) if hashable else may_describe(said, nouns)):
        return None  # neither compares nor points ("the Alfama one"): the same, cheaply
    compare, content = _reading(said) if hashable else _read(said)
    if len(compare) > 1:
        return None  # two comparisons: doubt (below, the same answer after reading the rows)
    if not compare and not any(_pointed(w, said, nouns) for w in content):
        return None  # no comparison and no word pointing: no partial name either
    index = words_of if words_of is not None else TableWords(table)
    hits: list[set[int]] = []
    selectors: list[str] = []
    for w in content:
        if len(w) < 4 or w in _ONE:
            continue  # too short
        hit = index.rows(w)
        if hit is None:
            continue  # a column's name: it compares, or says nothing of a row
        if hit and len(hit) < len(rows):
            hits.append(hit)
            selectors.append(w)
    if len(compare) != 1:  # no comparison, or two (doubt): a partial name at most
        chosen = set.intersection(*hits) if hits else set()
        pointed = any(
            _pointed(w, said, nouns) and chosen <= hit
            for w, hit in zip(selectors, hits, strict=True)
        )
        if compare or len(chosen) != 1 or not pointed:
            return None
        return next(iter(chosen))
    (word,) = compare
    broad = [h for h in hits if len(h) >= 2]
    if hits and not broad:
        return None  # words naming one row each: "is the Quay flat cheaper than the Loft?"
    chosen = set.intersection(*broad) if broad else set(range(len(rows)))
    if len(chosen) < 2:
        return None  # the rows the words leave: nothing to compare
    if not word.endswith("est") and word not in _SUPERLATIVE and len(chosen) != 2:
        return None  # "the cheaper of the two"; of more, "a bigger van" is talk, not a row
    selecting = bool(broad)
    ordered = sorted(chosen)
    said_column = any(index.names_column(w) for w in content)
    j = _column(table, word, ordered, content, selecting or said_column or word + POINTER in said)
    values = _values(table, j, ordered) if j is not None else None
    if values is None:
        return None
    direction = _SPECIFIC[word][0] if word in _SPECIFIC else _GENERIC[word]
    best = max(v * direction for v in values.values())
    top = [i for i, v in values.items() if v * direction == best]
    return top[0] if len(top) == 1 else None
