"""A row fetched again with a changed cell: the newest version is the one a summary shows.

A row's identity is its table (the same columns) and its key cells; a later fetch of the same
table showing the row changed makes the older version stale (``table_newest``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.tables import updated_rows
from summem.tokens.base import ApproxCounter
from tests.summarizers.extractive.spans import PART_ROWS as _ROWS
from tests.summarizers.extractive.spans import SMALL_TALK, call, msg, talk

_MOVED = tuple(
    (r[0], "RK999999", *r[2:]) if r[0] == "radiator key" else r for r in _ROWS
)  # the radiator key moved to another bin
_RADIATOR = "Put the radiator key on the order for the Marsh Lane job."


def _talk() -> list[Message]:
    return talk(SMALL_TALK[:4])


def _table(rows: tuple[tuple[str, ...], ...]) -> str:
    return "| item | bin | qty | reorder by |\n|---|---|---|---|\n" + "\n".join(
        "| " + " | ".join(row) + " |" for row in rows
    )


def _fetched(rows: tuple[tuple[str, ...], ...], at: str) -> list[Message]:
    return [
        call(f"a{at}", f"c{at}", "stock_levels", {"site": "van"}),
        msg(f"t{at}", _table(rows), "tool", tool_call_id=f"c{at}"),
    ]


def _summary(
    span: list[Message],
    max_tokens: int,
    kept: Sequence[Message] = (),
    off: str | None = None,
    **kw: Any,
) -> SummaryOutput:
    kw.setdefault("previous_summary", None)
    request = SummaryRequest(
        messages=span,
        max_tokens=max_tokens,
        token_counter=ApproxCounter(),
        kept=tuple(kept),
        **kw,
    )
    return run_sync(ExtractiveSummarizer(ablate=[off] if off else []).summarize(request))


def _remembered() -> tuple[SummaryOutput, SummaryInfo]:
    """A summary that holds the van's first rows and remembers the whole first list."""
    span = [msg("u0", "What's on the van right now?"), *_fetched(_ROWS, "0")]
    first = _summary([*span, msg("a1", "Seven lines on the van.", "assistant")], 70)
    assert "RK100293" not in first.text
    return first, SummaryInfo(extra=first.extra)


def test_a_row_is_updated_when_a_key_cell_and_most_cells_agree() -> None:
    assert updated_rows(
        (["item", "bin", "qty", "reorder by"], list(map(list, _ROWS))),
        (
            ["item", "bin", "qty", "reorder by"],
            list(map(list, _MOVED)),
        ),
    ) == [(6, 6)]
    same = (["item", "bin", "qty", "reorder by"], list(map(list, _ROWS)))
    assert updated_rows(same, same) == []  # fetched again unchanged: nothing stale
    other = (["item", "bin", "qty", "due"], list(map(list, _MOVED)))
    assert updated_rows(same, other) == []  # other columns: another table


def test_a_kept_turn_before_a_newer_kept_fetch_brings_back_no_stale_row() -> None:
    """The list was evicted; the turn naming its row is kept, and so is the list fetched again."""
    first, info = _remembered()
    kept = [msg("k2", _RADIATOR), *_fetched(_MOVED, "5")]
    kw: dict[str, Any] = {"previous_summary": first.text, "previous_info": info}
    assert "RK100293" not in _summary(_talk(), 100, kept, **kw).text
    assert "RK100293" in _summary(_talk(), 100, kept, "table_newest", **kw).text
    alone = [msg("k2", _RADIATOR)]  # no newer fetch: the row comes back as before
    assert "radiator key | RK100293" in _summary(_talk(), 100, alone, **kw).text


def test_a_row_named_between_two_fetches_of_a_span_is_shown_as_the_newer_has_it() -> None:
    span = [
        msg("u0", "What's on the van right now?"),
        *_fetched(_ROWS, "0"),
        msg("u1", _RADIATOR),
        msg("a1", "Will do.", "assistant"),
        *_talk(),
        msg("u2", "Refresh that list."),
        *_fetched(_MOVED, "3"),
        msg("a3", "Updated list.", "assistant"),
    ]
    out = _summary(span, 120).text
    assert "radiator key | RK999999" in out
    assert "RK100293" not in out
    assert "radiator key | RK100293" in _summary(span, 120, off="table_newest").text


def test_a_remembered_row_a_later_fetch_of_the_span_changed_does_not_come_back() -> None:
    first, info = _remembered()
    span = [msg("u1", _RADIATOR), *_talk(), *_fetched(_MOVED, "3")]
    kw: dict[str, Any] = {"previous_summary": first.text, "previous_info": info}
    out = _summary(span, 120, **kw).text
    assert "RK100293" not in out
    assert "radiator key | RK999999" in out
    assert "RK100293" in _summary(span, 120, off="table_newest", **kw).text
