"""A table's words are read once for the summary being built, and not kept after it.

``_table_words`` was a process-wide ``lru_cache(maxsize=256)`` keyed by a table's content: a
long-running server summarizing many sessions held up to 256 of their tool tables (a 500-row
table is over a megabyte read so), whichever session they came from. review12: it is now a
scope per summary (:func:`.tables.table_words_scope`), entered by the extractive summarizer.
"""

from __future__ import annotations

import threading

from summem.summarizers.extractive import tables
from summem.summarizers.extractive.tables import _table_words, table_words_scope
from tests.summarizers.extractive.spans import call, msg, summarize, talk

HEADER = ("hotel", "area", "price")
ROWS = (
    ("Casa Alfama", "Alfama", "120"),
    ("Baixa Inn", "Baixa", "95"),
    ("Rio Lodge", "Belem", "80"),
)


def test_outside_a_summary_a_table_is_read_afresh_and_not_kept() -> None:
    assert _table_words(HEADER, ROWS) is not _table_words(HEADER, ROWS)  # fails on main


def test_within_a_scope_a_table_is_read_once_and_let_go_after() -> None:
    with table_words_scope():
        first = _table_words(HEADER, ROWS)
        assert _table_words(HEADER, ROWS) is first
        assert _table_words(HEADER, ROWS[:2]) is not first  # another table
    assert tables._TABLE_WORDS.get() is None
    assert _table_words(HEADER, ROWS) is not first


def test_threads_read_in_scopes_of_their_own() -> None:
    seen: list[object] = []

    def read() -> None:
        with table_words_scope():
            seen.append(_table_words(HEADER, ROWS))

    with table_words_scope():
        mine = _table_words(HEADER, ROWS)
        worker = threading.Thread(target=read)
        worker.start()
        worker.join()
        assert _table_words(HEADER, ROWS) is mine
    assert len(seen) == 1 and seen[0] is not mine


def test_a_summary_leaves_no_scope_behind() -> None:
    result = (
        '[{"hotel": "Casa Alfama", "area": "Alfama", "price": 120}, '
        + ", ".join(
            f'{{"hotel": "Inn {i}", "area": "Area {i}", "price": {90 + i}}}' for i in range(4)
        )
        + "]"
    )
    messages = [
        call("a1", "c1", "search_hotels", {"city": "Lisbon"}),
        msg("t1", result, "tool", tool_call_id="c1"),
        *talk(),
        msg("u1", "Book the cheapest one."),
    ]
    assert summarize(messages, 200).text
    assert tables._TABLE_WORDS.get() is None
