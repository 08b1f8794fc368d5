"""Naming rows by index gives what testing every cell against every message gave.

``_named`` (which rows each message names by a cell) tested every unique cell against every
message, and ``described_row`` re-read and re-stemmed every cell for every message: on a long
span with many tables, a table was read once per user message, per caller. Now a cell is looked
up by its first word, the words of all messages together are one set, and a table's words and
each message word's rows are read once a table (:class:`.described.TableWords`); stems and
words are cached. The old functions are kept here, verbatim, as the reference: on random
tables and messages both name the same rows, for every option of :func:`.tables.named_by`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet

from hypothesis import given, settings
from hypothesis import strategies as st

from summem._message_checks import load_json
from summem.summarizers.extractive.described import (
    _GENERIC,
    _ONE,
    _SPECIFIC,
    _SUPERLATIVE,
    BEFORE,
    POINTER,
    _column,
    _may_describe,
    _values,
    may_describe,
    row_nouns,
)
from summem.summarizers.extractive.facts import fold, tokenize
from summem.summarizers.extractive.lexicon import STOPWORDS
from summem.summarizers.extractive.tables import (
    MAX_CITED,
    Echoed,
    _cell_words,
    _cited,
    _name_like,
    _rare,
    find_table,
    key_columns,
    named_by,
    said_words,
)
from summem.summarizers.extractive.text_tables import Table

# --- the reference: as it was before the index (round 11) -------------------------------------

_SUFFIXES = ("ings", "ing", "ies", "ied", "ed", "es", "er", "s", "e", "ly")


def _old_stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            base = word[: -len(suffix)]
            if len(base) >= 5 and base[-1] == base[-2] and base[-1] not in "aeiouls":
                base = base[:-1]
            return base
    return word


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", " ".join(tokenize(fold(text)))) if w]


def _old_matches(word: str, cell_word: str) -> bool:
    s = _old_stem(word)
    if s == _old_stem(cell_word):
        return True
    return len(s) >= 5 and cell_word.startswith(s)


def _old_described_row(
    table: Table, said: AbstractSet[str], nouns: AbstractSet[str] = frozenset()
) -> int | None:
    """The one row of ``table`` the words ``said`` describe (see the module), or None.

    ``nouns``: what the table's rows are called (:func:`row_nouns`); a partial name said
    just before one of them points at its row as one said before ``one`` does.
    """
    header, rows = table
    hashable = isinstance(said, frozenset) and isinstance(nouns, frozenset)
    if not (_may_describe(said, nouns) if hashable else may_describe(said, nouns)):
        return None  # neither compares nor points ("the Alfama one"): the same, cheaply
    words = sorted(w for w in said if w.isalpha())
    compare = {w for w in words if w in _SPECIFIC or w in _GENERIC}
    if "recent" in said and compare <= {"most", "more"}:
        compare = {"newest"}  # "the most recent"
    content = [w for w in words if len(w) >= 3 and w not in STOPWORDS and w not in compare]
    header_words = [hw for h in header for hw in _words(h) if len(hw) >= 3]
    cell_words = [[_words(c) for c in r] for r in rows]
    hits: list[set[int]] = []
    selectors: list[str] = []
    for w in content:
        if len(w) < 4 or w in _ONE or any(_old_matches(w, hw) for hw in header_words):
            continue  # too short, or a column's name: it compares, or says nothing of a row
        hit = {
            i for i, r in enumerate(cell_words) if any(_old_matches(w, cw) for c in r for cw in c)
        }
        if hit and len(hit) < len(rows):
            hits.append(hit)
            selectors.append(w)
    if len(compare) != 1:  # no comparison, or two (doubt): a partial name at most
        chosen = set.intersection(*hits) if hits else set()
        pointed = any(
            (w + POINTER in said or any(w + BEFORE + n in said for n in nouns)) and chosen <= hit
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
    said_column = any(_old_matches(w, hw) for w in content for hw in header_words)
    j = _column(table, word, ordered, content, selecting or said_column or word + POINTER in said)
    values = _values(table, j, ordered) if j is not None else None
    if values is None:
        return None
    direction = _SPECIFIC[word][0] if word in _SPECIFIC else _GENERIC[word]
    best = max(v * direction for v in values.values())
    top = [i for i, v in values.items() if v * direction == best]
    return top[0] if len(top) == 1 else None


def _old_named(
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
    out: list[set[int]] = []
    for test in tests:
        hits = [(i, keyed) for i, words, keyed in unique if all(test(w) for w in words)]
        named = {i for i, _ in hits}
        if not named and said is not None and not isinstance(said[len(out)], Echoed):
            row = _old_described_row(table, said[len(out)], nouns)
            named = {row} if row is not None else set()
        elif keys:
            named = {i for i, keyed in hits if keyed} if len(named) <= MAX_CITED else set()
        out.append(named if len(named) <= MAX_CITED else set())
    if len(tests) > 1 and not apart:  # the words together naming too many rows: in common
        together = {i for i, words, _ in unique if all(any(t(w) for t in tests) for w in words)}
        if len(together) > MAX_CITED:
            return [set() for _ in tests]
    return out


def _old_named_by(
    table: Table,
    said: Sequence[AbstractSet[str]],
    keys: bool = False,
    rare: bool = False,
    nouns: AbstractSet[str] = frozenset(),
    names: bool = False,
    apart: bool = False,
) -> list[set[int]]:
    tests = [m.__contains__ for m in said]
    return _old_named(table, tests, said, keys, rare, nouns, names, apart)


def _old_cited(table: Table, referred: object, nouns: AbstractSet[str] = frozenset()) -> list[int]:
    if callable(referred):
        named = _old_named(table, [referred])
    else:
        assert isinstance(referred, list)
        named = _old_named(table, [m.__contains__ for m in referred], referred, nouns=nouns)
    cited: set[int] = set().union(*named)
    return sorted(cited) if len(cited) <= MAX_CITED else []


# --- random tables and messages --------------------------------------------------------------

_CELL_WORDS = tuple(
    " ".join(
        (
            "alfama quayside lisbon porto crashing crashloopbackoff running restarted pending",
            "harbour house inn lodge mossgrove kestrel freight parcelwise tanaka design marsh",
            "lane pipe clip stove lantern the and of 3 12 14 qx-5503 sku-4821 okonkwo ana",
        )
    ).split()
)
_VALUES = ("120 EUR", "$45", "2025-03-01", "2025-04-11 10:30", "5d", "3h12m", "412MB", "7", "12")
_HEADERS = ("name", "hotel", "price", "age", "status", "restarts", "size", "city", "created")
_SAY = tuple(
    " ".join(
        (
            "cheapest cheaper newest most more least recent biggest priciest one ones option",
            "the pod pods hotel hotels invoice which of two is than book go with about",
        )
    ).split()
)


def _table(rng: random.Random) -> Table:
    width = rng.randint(2, 5)
    header = rng.sample(_HEADERS, width)
    rows: list[list[str]] = []
    for _ in range(rng.randint(2, 9)):
        row = []
        for _j in range(width):
            if rng.random() < 0.4:
                row.append(rng.choice(_VALUES))
            else:
                row.append(" ".join(rng.choices(_CELL_WORDS, k=rng.randint(1, 3))))
        if rng.random() < 0.1 and rows:
            row = list(rows[-1])  # a repeated row: cells shared by two rows
        rows.append(row)
    return header, rows


def _message(rng: random.Random, table: Table) -> str:
    words: list[str] = []
    for _ in range(rng.randint(1, 8)):
        pick = rng.random()
        if pick < 0.45:
            row = rng.choice(table[1])
            words.append(rng.choice(row))
        elif pick < 0.75:
            words.append(rng.choice(_SAY))
        elif pick < 0.85:
            words.append(rng.choice(table[0]))
        else:
            words.append(rng.choice(_CELL_WORDS))
    return " ".join(words)


def _case(seed: int) -> tuple[Table, list[frozenset[str]], frozenset[str]]:
    rng = random.Random(seed)
    table = _table(rng)
    said: list[frozenset[str]] = []
    for _ in range(rng.randint(1, 12)):
        words = said_words(_message(rng, table))
        said.append(Echoed(words) if rng.random() < 0.2 else words)
    nouns = frozenset(rng.sample(["pod", "pods", "hotel", "hotels", "invoice"], rng.randint(0, 2)))
    return table, said, nouns


def _every_option(table: Table, said: list[frozenset[str]], nouns: frozenset[str]) -> None:
    for keys in (False, True):
        for rare in (False, True):
            for names in (False, True):
                for apart in (False, True):
                    args = (table, said, keys, rare, nouns, names, apart)
                    assert named_by(*args) == _old_named_by(*args), args
    assert _cited(table, said, nouns) == _old_cited(table, said, nouns)
    for words in said[:3]:
        test = words.__contains__
        assert _cited(table, test, nouns) == _old_cited(table, test, nouns)


def test_rows_named_as_by_the_reference_on_random_tables() -> None:
    for seed in range(300):
        _every_option(*_case(seed))


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=10**9))
def test_rows_named_as_by_the_reference_hypothesis(seed: int) -> None:
    _every_option(*_case(seed))


def test_rows_named_as_by_the_reference_on_a_long_table_session() -> None:
    from benchmarks.table_session import table_session

    messages = table_session(240, seed=3, tables_every=3)
    said = [said_words(m["content"]) for m in messages if m["role"] == "user"]
    calls = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or ()}
    tables = 0
    for m in messages:
        if m["role"] != "tool":
            continue
        try:
            parsed = load_json(m["content"])
        except ValueError:
            parsed = None
        table = find_table(parsed, m["content"])
        assert table is not None
        tables += 1
        _every_option(table, said, row_nouns(calls[m["tool_call_id"]]))
    assert tables > 20
