"""A user's request naming a row lends its rank to the record that answers it (``asked_rank``).

Handmade examples (not the evals' own): a carried request and the stock record after it, as
``test_table_memory``'s carried van stock; the request comes before the record, where a later
user line naming the row already binds (``table_bound_rows``).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from summem.summarizers.extractive.selection import Fact
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from tests.summarizers.extractive.test_table_memory import _VAN_STOCK, _carried

_ASK = "- user: Run stock_levels for me, I want the pipe clip one."


def test_a_request_naming_a_row_keeps_the_record_that_answers_it() -> None:
    out = _carried([_ASK, _VAN_STOCK], [4, 1])
    assert "ND856813" in out.text
    line = next(i for i, t in enumerate(out.text.splitlines()) if "ND856813" in t)
    recorded = next(e for e in out.extra["provenance"] if e["line"] == line)
    assert recorded["score"] < 4  # its own score, not the one borrowed from the request
    assert "ND856813" not in _carried([_ASK, _VAN_STOCK], [4, 1], "asked_rank").text


def test_a_request_lends_its_rank_but_never_cuts_the_record() -> None:
    out = _carried([_ASK, _VAN_STOCK], [4, 1])
    assert "flexible hose | NK645047" in out.text  # the rows the result showed, all kept


def test_a_user_line_before_another_users_line_asks_for_nothing_after_it() -> None:
    between = "- user: Also the boiler pressure is fine now."
    assert "ND856813" not in _carried([_ASK, between, _VAN_STOCK], [4, 4, 1]).text


_VAN_AGAIN = _VAN_STOCK.replace("36", "12").replace("NK645047 | 11", "NK645047 | 9")
"""The same stock list fetched again: the pipe clip's quantity is now 12, not 36."""


def test_a_request_answered_twice_lends_its_rank_to_the_newer_answer() -> None:
    out = _carried([_ASK, _VAN_STOCK, _VAN_AGAIN], [4, 1, 1]).text
    assert "ND856813 | 12" in out
    assert "ND856813 | 36" not in out  # the stale answer is not kept over the newer one


def test_a_request_does_not_keep_an_answer_a_later_fetch_replaced() -> None:
    later = [
        _ASK,
        _VAN_STOCK,
        "- user: Thanks, check it again after lunch.",
        "- assistant: Will do.",
    ]
    out = _carried([*later, _VAN_AGAIN], [4, 1, 1, 1, 1]).text
    assert "ND856813 | 36" not in out
    assert "ND856813 | 12" in out


def test_a_request_naming_a_tool_lends_its_rank_to_that_tools_result_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    other = (
        "- tool: order_history(site=van) -> [item | supplier | ordered] pipe clip | Screwfix | "
        "2026-01-03; copper washer | Toolstation | 2026-02-01 (+3 rows)"
    )
    lifted: list[str] = []  # the lines that took a user line's rank
    bind = ExtractiveSummarizer._bind_named_rows

    def spy(self: ExtractiveSummarizer, facts: Sequence[Fact], kept: Sequence[Fact] = ()) -> None:
        bind(self, facts, kept)
        lifted.extend(f.line for f in facts if f.recorded is not None)

    monkeypatch.setattr(ExtractiveSummarizer, "_bind_named_rows", spy)
    assert "ND856813" in _carried([_ASK, other, _VAN_STOCK], [4, 1, 1]).text
    assert [line.split("(")[0] for line in lifted] == ["- tool: stock_levels"]
