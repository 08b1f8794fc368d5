"""A table record is not crowded out by short, weak lines (``displace``).

Handmade examples (not the evals' own), after the trace of
``docs-notes/fidelity-round18-tables28.md``: at the end of a long run, a one-row record of
~50 tokens ranked 3.4-4.2 lost the last room of the summary to old 8-token lines ranked 1.45
("24 stock lines."), taken first by the carry share or by the speaker share.
"""

from __future__ import annotations

from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryOutput
from summem.summarizers.extractive.selection import Fact, Selection, make_fact
from summem.summarizers.extractive.summarizer import FORMAT, _is_record
from summem.tokens.base import ApproxCounter
from tests.summarizers.extractive.test_selection_policy import call, msg, summarize

_RECORD = (
    "- tool: stock_levels(site=van) -> [item | bin | qty | reorder by] pipe clip | "
    "ND856813 | 36 | 2028-02-25 (+5 rows)"
)
_STOCK = "\n".join(
    [
        "item,bin,qty,reorder by",
        "flexible hose,NK645047,11,2026-06-02",
        "pipe clip,ND856813,36,2028-02-25",
        "copper washer,QW118203,240,2027-01-09",
        "ball valve,BV552190,8,2026-11-30",
        "tank connector,TC771245,19,2027-05-14",
    ]
)
_STRONG = [
    "- user: My sister Ingrid moved to Tromsø in March, the flat is on Storgata.",
    "- user: The boiler engineer said the pressure valve was replaced for 185 pounds.",
]
_COUNTS = [f"- assistant: {n} site visits." for n in (11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 24)]
_TALK = (
    "Paid 62.40 for the parking permit renewal yesterday.",
    "The van MOT is booked at Kwik Fit on 12 June.",
    "Reminder that the quarterly VAT return is due on the 7th.",
)


def _run(
    lines: list[str], scores: list[float], span: list[Message], budget: int, off: tuple[str, ...]
) -> SummaryOutput:
    """A summary of ``span`` after a previous one of ``lines`` (their recorded scores)."""
    prov = [{"line": i, "ids": [f"m{i}"], "score": s} for i, s in enumerate(scores)]
    info = SummaryInfo(extra={"format": FORMAT, "provenance": prov})
    return summarize(
        span,
        budget,
        ablate=off,
        tables=True,
        previous_summary="\n".join(lines),
        previous_info=info,
    )


def _new_record(off: tuple[str, ...] = (), result: str = _STOCK) -> str:
    """A new stock list whose row a user names, after a summary of counts the carry share kept."""
    span = [
        call("a", "c1", "stock_levels", {"site": "van"}),
        msg("t", result, "tool", tool_call_id="c1"),
        msg("u", "We'll need the pipe clip for the Marsh Lane job."),
        *(msg(f"x{i}", text) for i, text in enumerate(_TALK)),
        msg("w", "Our office wifi password changed to heron-bastion-42."),
    ]
    lines = [*_STRONG, *_COUNTS, "- assistant: 26 site visits.", "- assistant: 27 site visits."]
    return _run(lines, [6, 6, *[1] * (len(lines) - 2)], span, 130, off).text


def test_a_new_record_takes_the_room_of_much_weaker_carried_lines() -> None:
    out = _new_record()
    assert "pipe clip | ND856813 | 36 | 2028-02-25" in out  # header and row, readable
    assert "[item | bin | qty | reorder by]" in out
    assert "17 site visits" not in out  # what made room for it


def test_without_displace_the_carried_counts_keep_the_room() -> None:
    out = _new_record(("displace",))
    assert "ND856813" not in out
    assert "17 site visits" in out


_ONE_ITEM = '{"item": "pipe clip", "bin": "ND856813", "qty": 36, "reorder_by": "2028-02-25"}'
"""A tool result of one record: written as fields, no table record."""


def test_a_tool_line_that_is_no_record_keeps_the_greedy_fill() -> None:
    """Only a table record displaces (for every line, the rule cost ``prose-answers`` facts):
    the fields line is not kept, nor does any other line take the counts' room."""
    on = _new_record(result=_ONE_ITEM)
    assert "ND856813" not in on
    assert on == _new_record(("displace",), result=_ONE_ITEM)


# Selection.displace itself (the review's cases): the bound, must-keep lines, merged hosts.

_COUNTER = ApproxCounter()


def _fact(line: str, priority: float, at: int, span: int = 1) -> Fact:
    return make_fact(line, None, priority, [f"m{at}"], (span, at, 0), frozenset(line.split()))


def _full(kept: list[Fact], record: Fact) -> Selection:
    budget = sum(_COUNTER.count_text(f.line + "\n") for f in kept) + 3
    selection = Selection(_COUNTER, budget)
    selection.fill([*kept, record], budget)
    return selection


def test_a_record_evicts_only_lines_under_two_thirds_of_its_rank() -> None:
    record = _fact(_RECORD, 4.0, 99, 2)
    kept = [_fact(f"- assistant: {n} site visits.", 2.7, n) for n in range(6)]  # 2.7 >= 2.68
    selection = _full(kept, record)
    selection.displace([record], [*kept, record], 8, _is_record)
    assert record.state == 0 and all(f.state == 1 for f in kept)
    weaker = [_fact(f"- assistant: {n} site visits.", 2.6, n) for n in range(6)]
    selection = _full(weaker, record)
    selection.displace([record], [*weaker, record], 8, _is_record)
    assert record.state == 1 and any(f.state == 0 for f in weaker)


def test_must_keep_lines_are_never_evicted() -> None:
    record = _fact(_RECORD, 4.0, 99, 2)
    kept = [_fact(f"- assistant: {n} site visits.", 0.5, n, 0) for n in range(6)]  # must-keep
    selection = _full(kept, record)
    selection.displace([record], [*kept, record], 8, _is_record)
    assert record.state == 0 and all(f.state == 1 for f in kept)


def test_a_line_a_correction_was_merged_into_is_never_evicted() -> None:
    """Evicted, the merged correction would count as kept and its stale line stand alone."""
    record = _fact(_RECORD, 4.0, 99, 2)
    host = _fact("- user: The site meeting moved to Wednesday.", 1.0, 1)
    correction = _fact("- user: The site meeting moved to Wednesday.", 0.9, 2)
    kept = [host, *(_fact(f"- assistant: {n} site visits.", 2.0, 10 + n) for n in range(5))]
    selection = _full(kept, record)
    selection.fill([correction], selection.budget)  # a near-duplicate: merged into the host
    assert correction.merged
    selection.displace([record], [*kept, correction, record], 8, _is_record)
    assert host.state == 1


def test_only_a_table_record_is_a_record() -> None:
    assert _is_record(_fact(_RECORD, 1.0, 0))
    assert not _is_record(_fact("- tool: logs(app=web) -> [ERROR] disk full on /var", 1.0, 0))
    assert not _is_record(_fact("- tool: search(q=x) -> [link](https://a.b) top hit", 1.0, 0))
