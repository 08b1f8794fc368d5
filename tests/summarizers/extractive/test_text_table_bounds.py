"""The readers of shapes no program's parser names (columns one space apart, grouped reports)
are bounded whatever the text, and prose under a title is no table.

review14 found the first version of ``spaced_columns`` 86 times slower than the parsers on a
2,000-row listing and over six minutes on a 12-name header over rows of 50 words, and a title
over sentences cut into cells. The bounds are counted here (rows, characters, steps), never
timed; ``python -m benchmarks --only text_tables`` measures the cost beside the parsers.
"""

from __future__ import annotations

from typing import Any

import pytest

from summem.summarizers.extractive import text_tables
from summem.summarizers.extractive.text_tables import text_table


def _listing(rows: int, note: str = "") -> str:
    body = (f"file{i}.txt {100 + i} 2026-01-{i % 28 + 1:02d} ana{note}" for i in range(rows))
    return "name size modified owner\n" + "\n".join(body)


def _spies(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each call of the costly readers (and still run them)."""
    calls: list[str] = []
    cut, grouped = text_tables._cut_ways, text_tables._grouped_table

    def cut_ways(*args: Any) -> Any:
        calls.append("cut")
        return cut(*args)

    def grouped_table(lines: list[str]) -> Any:
        calls.append("grouped")
        return grouped(lines)

    monkeypatch.setattr(text_tables, "_cut_ways", cut_ways)
    monkeypatch.setattr(text_tables, "_grouped_table", grouped_table)
    return calls


def test_columns_one_space_apart_are_read_up_to_the_row_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    most = text_tables._MAX_SPACED_ROWS
    table = text_table(_listing(most))
    assert table is not None and len(table[1]) == most
    assert table[0] == ["name", "size", "modified", "owner"]
    assert table[1][7] == ["file7.txt", "107", "2026-01-08", "ana"]
    calls = _spies(monkeypatch)
    assert text_table(_listing(most + 1)) is None  # a longer listing: left as text
    assert "cut" not in calls


def test_a_text_past_the_character_bound_is_left_to_the_parsers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    short = _listing(12, " checked")
    assert text_table(short) is not None
    long = _listing(12, " " + "x" * (text_tables._MAX_READ_CHARS // 12))
    assert len(long) > text_tables._MAX_READ_CHARS
    calls = _spies(monkeypatch)
    assert text_table(long) == text_table(long, on=frozenset()) is None
    assert calls == []


def _steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The steps of cutting spent from now on (one counter for every text read)."""
    spent = [0]
    spend = text_tables._Work.spend

    def counted(self: text_tables._Work, steps: int = 1) -> None:
        spent[0] += steps
        spend(self, steps)

    monkeypatch.setattr(text_tables._Work, "spend", counted)
    return spent


def _title_case_soup() -> str:
    words: tuple[str, ...] = ("North", "South", "River", "Stone", "Quick", "Brown", "Lamp", "Desk")
    words += ("Chair",)
    words += ("Window", "Garden")
    head = " ".join(f"Field{j}" for j in range(12))
    rows = (
        " ".join(words[(i * 7 + j * 3) % len(words)] for j in range(30)) + f" {i}"
        for i in range(40)
    )
    return head + "\n" + "\n".join(rows)


def test_cutting_rows_into_cells_stops_at_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _title_case_soup()
    assert len(text) <= text_tables._MAX_READ_CHARS and len(text.splitlines()) <= 41
    spent = _steps(monkeypatch)
    unbounded = text_tables._spaced_table(text.splitlines(), text_tables._Work(10**9))
    assert unbounded is not None and spent[0] > 2 * text_tables._MAX_WORK  # it would be read
    spent[0] = 0
    assert text_table(text) is None
    assert spent[0] == text_tables._MAX_WORK + 1  # the step past the bound ends it


def test_rows_of_numbers_are_refused_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # review15: nine names over rows of 33 numbers spent the whole step bound (40 ms a text)
    head = " ".join(f"col{j}" for j in range(9))
    rows = (" ".join(str((i * 37 + j * 11) % 97 + 1) for j in range(33)) for i in range(3))
    text = head + "\n" + "\n".join(rows)
    spent = _steps(monkeypatch)
    assert text_table(text) is None
    assert spent[0] < text_tables._MAX_WORK // 10  # a cell holds one value: few cuttings


@pytest.mark.parametrize(
    "text",
    [
        # review14's case: a title of capitalised words over sentences with a number each
        "Project Status Update\nThe team finished 12 tasks this week.\n"
        "We closed 7 bugs, two of them critical.\nNext sprint starts on Monday with 3 new hires.",
        # the same without full stops: a name and the words after it are a sentence
        "Project Status Update\nThe team finished 12 tasks this week\n"
        "We closed 7 bugs two of them critical\nNext sprint starts Monday with 3 new hires",
        "Garden Club Minutes\nMargaret Hale brought 14 seedlings\nDerek Olsen counted 9 hedgehogs\n"
        "Priya Shah raised 230 pounds",
        # a lower-case phrase runs on past any cell of several words
        "Shift Handover Log\nfed the goats 6 scoops of grain\nmucked out stable 3 before lunch\n"
        "moved the ewes to field 4 after rain",
        # the last line is a row, not a count to leave out
        "Kitchen Budget Notes\nBudget is 4000 for the kitchen\nTiles cost 600 from the shop\n"
        "The fitter wants 1200 up front",
    ],
)
def test_prose_under_a_title_is_no_table(text: str) -> None:
    assert text_table(text) is None


def test_a_table_under_a_title_with_a_count_below_is_still_read() -> None:
    text = (
        "Clinic Visits\nowner animal vet visit_ref fee note\n"
        "Yusuf Aydin greyhound Dr Shah VR-1021 45.00 limping on the left\n"
        "Maria Costa tabby cat Dr Lee VR-1022 60.50 annual jab\n"
        "Tom Reid spaniel Dr Shah VR-1023 38.00 ear infection again\n(3 rows)"
    )
    table = text_table(text)
    assert table is not None
    assert table[0] == ["owner", "animal", "vet", "visit_ref", "fee", "note"]
    assert table[1][1] == ["Maria Costa", "tabby cat", "Dr Lee", "VR-1022", "60.50", "annual jab"]
    assert text_table(text, on=text_tables.TEXT_READERS - {"spaced_columns"}) is None
