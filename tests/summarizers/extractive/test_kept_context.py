"""The turns the view keeps, read as evidence of what in the span the conversation still uses.

``SummaryRequest.kept`` is context only: nothing of it is summarized, but a row or an offer of
the span that a kept user turn picks out ranks as if that turn had been in the span.
"""

from __future__ import annotations

from typing import Any

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.facts import tokenize
from summem.summarizers.render import content_text
from summem.tokens.base import ApproxCounter
from tests.summarizers.extractive.spans import PART_ROWS as _ROWS
from tests.summarizers.extractive.spans import call, msg, talk


def _talk() -> list[Message]:
    return talk()


def _summary(
    span: list[Message], max_tokens: int, kept: list[Message], off: str | None = None, **kw: Any
) -> SummaryOutput:
    kw.setdefault("previous_summary", None)
    request = SummaryRequest(
        messages=span,
        max_tokens=max_tokens,
        token_counter=ApproxCounter(),
        kept=tuple(kept),
        **kw,
    )
    ablate = [off] if off else []
    return run_sync(ExtractiveSummarizer(ablate=ablate).summarize(request))


def _table(rows: tuple[tuple[str, ...], ...] = _ROWS) -> str:
    return "| item | bin | qty | reorder by |\n|---|---|---|---|\n" + "\n".join(
        "| " + " | ".join(row) + " |" for row in rows
    )


def _fetched(table: str, at: str = "0") -> list[Message]:
    return [
        call(f"a{at}", f"c{at}", "stock_levels", {"site": "van"}),
        msg(f"t{at}", table, "tool", tool_call_id=f"c{at}"),
    ]


def _earlier() -> tuple[SummaryOutput, SummaryInfo]:
    """A summary that holds the van's first rows and remembers the whole table."""
    span = [msg("u0", "What's on the van right now?"), *_fetched(_table())]
    first = _summary([*span, msg("a1", "Seven lines on the van.", "assistant")], 70, [])
    assert "RK100293" not in first.text
    return first, SummaryInfo(extra=first.extra)


_RADIATOR = "Put the radiator key on the order for the Marsh Lane job."


def test_a_remembered_row_a_kept_turn_names_comes_back() -> None:
    """The list was evicted a reduction ago; the turn naming its row is still in the view."""
    first, info = _earlier()
    kept = [msg("k2", _RADIATOR)]
    kw: dict[str, Any] = {"previous_summary": first.text, "previous_info": info}
    assert "radiator key | RK100293" in _summary(_talk(), 100, kept, **kw).text
    assert "RK100293" not in _summary(_talk(), 100, kept, "kept_memory_rows", **kw).text
    assert "RK100293" not in _summary(_talk(), 100, [], **kw).text
    assert "Marsh Lane" not in _summary(_talk(), 100, kept, **kw).text  # context only


def test_a_kept_turn_after_a_newer_table_names_that_one() -> None:
    """A message names a row of the newest table shown before it: here, one still kept."""
    first, info = _earlier()
    newer = _table(tuple((*r[:1], r[1].replace("RK100293", "RK999999"), *r[2:]) for r in _ROWS))
    kept = [*_fetched(newer, "5"), msg("k2", _RADIATOR)]
    kw: dict[str, Any] = {"previous_summary": first.text, "previous_info": info}
    assert "RK100293" not in _summary(_talk(), 100, kept, **kw).text


def test_a_table_of_the_span_shows_the_row_a_kept_turn_names() -> None:
    span = [msg("u0", "What's on the van right now?"), *_fetched(_table()), *_talk()]
    kept = [msg("k2", _RADIATOR)]
    out = _summary(span, 110, kept)
    assert "radiator key | RK100293 | 9 | 2029-03-12 (+6 rows)" in out.text
    assert "RK100293" not in _summary(span, 110, kept, "kept_rows").text
    assert "RK100293" not in _summary(span, 110, []).text


def test_no_word_of_a_kept_turn_is_put_in_the_summary() -> None:
    """The summary stands for the span alone: a kept reply is not quoted into it (review19).

    Cut between "Shall I hold ...?" and "ok, lock that in", a rule (``kept_replies``, not
    merged) made the line the two make in one span. The summary then quoted a message it does
    not stand for: edited or regenerated at the watermark, the retracted "ok, lock that in"
    stayed in the view beside the new reply.
    """
    offer = msg("a9", "I found two trains. Shall I hold the 7:40 to Leeds on Friday?", "assistant")
    reply = msg("k3", "ok, lock that in")
    line = "- user: ok, lock that in, in reply to: Shall I hold the 7:40 to Leeds on Friday?"
    assert line in _summary([*_talk(), offer, reply], 100, []).text  # one span: as before
    assert "lock that in" not in _summary([*_talk(), offer], 100, [reply]).text


_VAN_STOCK = (
    "- tool: stock_levels(site=van) -> [item | bin | qty | reorder by] flexible hose | "
    "NK645047 | 11 | 2026-06-02; pipe clip | ND856813 | 36 | 2028-02-25 (+4 rows)"
)


def test_a_carried_record_whose_row_a_kept_turn_names_ranks_with_that_turn_uncut() -> None:
    """Lent the kept turn's rank for the round, as a carried user line would lend it."""
    from summem.summarizers.extractive.summarizer import FORMAT

    lines = [
        "- user: My locker code at the gym is 4471.",
        "- user: The dentist moved my check-up to 14 March.",
        "- user: Our landlord is called Mrs Okafor.",
        _VAN_STOCK,
    ]
    prov = [{"line": i, "ids": [f"m{i}"], "score": s} for i, s in enumerate([3, 3, 3, 1.0])]
    info = SummaryInfo(extra={"format": FORMAT, "provenance": prov})
    kw: dict[str, Any] = {"previous_summary": "\n".join(lines), "previous_info": info}
    kept = [msg("k1", "We'll need the pipe clip for the Marsh Lane job.")]
    out = _summary(_talk(), 100, kept, **kw)
    assert _VAN_STOCK in out.text  # whole: a kept turn never cuts a record
    line = next(i for i, t in enumerate(out.text.splitlines()) if "ND856813" in t)
    recorded = next(e for e in out.extra["provenance"] if e["line"] == line)
    assert recorded["score"] < 4  # its own score: the rank is lent for this round only
    assert "ND856813" not in _summary(_talk(), 100, kept, "kept_bound_rows", **kw).text
    assert "ND856813" not in _summary(_talk(), 100, [], **kw).text


def test_the_kept_lines_read_the_span_words_the_span_pass_tokenized() -> None:
    """The kept lines' novelty vocabulary comes from the span pass, not a second tokenization.

    It is what the kept lines tokenized for themselves before: the words known before the span
    and every span message's whole text (a leading stamp's words and a tool result's too).
    """
    span = [
        msg("u0", "[2026-05-04 09:12] What's on the van right now, Ingrid?"),
        *_fetched("[4 May 2026] " + _table()),
        msg("a1", "[2026-05-04 09:13] Seven lines on the van.", "assistant"),
        *_talk(),
    ]
    request = SummaryRequest(
        messages=span,
        max_tokens=200,
        token_counter=ApproxCounter(),
        previous_summary="- user: The Marsh Lane job starts on Tuesday.",
        kept=(msg("k0", _RADIATOR),),
    )
    summarizer = ExtractiveSummarizer()
    words: set[str] = set()
    summarizer._new_facts(request, frozenset(), None, [], request.kept, words)
    expected = summarizer._vocabulary(request)
    assert expected is not None
    for message in span:
        expected.update(tokenize(content_text(message)))
    assert words == expected
    assert {"09", "12", "tuesday", "nk645047"} <= words  # a stamp's, the summary's, a tool's
