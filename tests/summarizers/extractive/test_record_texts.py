"""Records printed as plain text: columns one space apart, grouped reports, three records.

Handmade (not the evals' own): a boarding kennel's bookings printed by a quick script, a
report of them grouped by run, a fixed-width export under a title with a comma, and three
bookings as ``key: value`` blocks. Each rule is switched off by its ``HEURISTICS`` name.
"""

from __future__ import annotations

from summem._flow import run_sync
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.tables import find_table, readers
from summem.summarizers.extractive.text_tables import TEXT_READERS, text_table
from summem.tokens.base import ApproxCounter
from tests.summarizers.extractive.spans import call, msg, talk

BOOKINGS = (
    ("Pemberton", "border collie", "Run 4", "KB-20931", "18.50", "2027-05-02",
     "needs her own blanket"),
    ("Yusuf Aydin", "greyhound", "Run 1", "KB-21007", "22.00", "2027-05-04", "ok"),
    ("Marchetti", "pug", "Run 4", "KB-21188", "15.75", "2027-05-09",
     "no chicken, allergic to it since the spring"),
    ("Oduya", "lurcher", "Run 2", "KB-21240", "19.25", "2027-05-11", "picked up by the daughter"),
)  # fmt: skip
HEADER = ("owner", "dog", "run", "booking_ref", "nightly", "arrives", "notes")


def spaced(rows: tuple[tuple[str, ...], ...] = BOOKINGS) -> str:
    return "\n".join(" ".join(r) for r in (HEADER, *rows))


def grouped() -> str:
    out = ["KENNEL BOOKINGS BY RUN", ""]
    for run in ("Run 1", "Run 2", "Run 4"):
        members = [b for b in BOOKINGS if b[2] == run]
        out.append(run)
        out += ["    " + "  ".join(c for j, c in enumerate(b) if j != 2) for b in members]
        out += [f"    subtotal  {sum(float(b[4]) for b in members):.2f}", ""]
    out.append("TOTAL  75.50")
    return "\n".join(out)


def summary(result: str, later: str, ablate: tuple[str, ...] = ()) -> str:
    messages = [
        call("a1", "c1", "kennel_bookings", {"week": "19"}),
        msg("t1", result, "tool", tool_call_id="c1"),
        msg("a2", "Here they are.", "assistant"),
        *talk(),
        msg("u1", later),
    ]
    request = SummaryRequest(
        messages=messages, max_tokens=200, token_counter=ApproxCounter(), previous_summary=None
    )
    return run_sync(ExtractiveSummarizer(ablate=list(ablate)).summarize(request)).text


def test_columns_one_space_apart_are_cut_by_the_kinds_of_their_cells() -> None:
    found = text_table(spaced())
    assert found is not None
    header, rows = found
    assert header == list(HEADER)
    # a name's capitalised words stay together ("Yusuf Aydin"), a word and its number too
    # ("Run 4"), and the note takes the words left at the end
    assert rows == [list(b) for b in BOOKINGS]
    assert text_table(spaced(), TEXT_READERS - {"spaced_columns"}) is None


def test_a_date_in_words_and_a_name_with_its_number_are_one_cell_each() -> None:
    text = (
        "carrier tracking eta contents\n"
        "Bluebox 1 BX865188 19 February 2027 isolation valve\n"
        "Swiftpost 4 L76F657 December 10, 2028 pipe clip\n"
        "NorthLine 3 BX-7142-L 23 August 2028 solder ring"
    )
    found = text_table(text)
    assert found is not None
    assert found[1][0] == ["Bluebox 1", "BX865188", "19 February 2027", "isolation valve"]
    assert found[1][1] == ["Swiftpost 4", "L76F657", "December 10, 2028", "pipe clip"]


def test_prose_and_near_tables_are_not_read_as_columns_one_space_apart() -> None:
    prose = (
        "We went to the kennel on 2027-05-02 and paid 18.50\n"
        "The collie was fine and the pug ate 2 bowls\n"
        "Next time we book Run 4 again for 3 nights"
    )
    assert text_table(prose) is None
    words_only = "owner dog run\nPemberton collie four\nMarchetti pug two\nOduya lurcher one"
    assert text_table(words_only) is None  # no column of numbers or codes: nothing to cut by
    ragged = spaced().replace("\nYusuf", "\nsee you at the gate\nYusuf")  # a row too short
    assert text_table(ragged) is None
    padded = spaced().replace("Run 1 KB", "Run 1  KB")
    assert find_table(None, padded) is None  # two spaces in a row: not this shape


def test_a_row_named_later_in_columns_one_space_apart_is_kept() -> None:
    later = "Put a note on the Oduya booking, they'll be late."
    text = summary(spaced(), later)
    assert "KB-21240 | 19.25 | 2027-05-11" in text
    assert "KB-21240" not in summary(spaced(), later, ("spaced_columns",))


def test_a_grouped_report_reads_each_row_with_its_group() -> None:
    found = text_table(grouped())
    assert found is not None
    header, rows = found
    assert header[0] == "group" and len(header) == 7
    assert rows[3][:6] == ["Run 4", "Marchetti", "pug", "KB-21188", "15.75", "2027-05-09"]
    assert len(rows) == 4  # the subtotals and the total are no rows
    assert text_table(grouped(), TEXT_READERS - {"grouped_reports"}) is None
    named = "owner  dog  booking_ref  nightly  arrives  notes\n" + grouped().split("\n", 2)[2]
    found = text_table(named)
    assert found is not None and found[0][:3] == ["group", "owner", "dog"]
    later = "Which booking was the Marchetti pug? Send them the form."
    assert "KB-21188 | 15.75 | 2027-05-09" in summary(grouped(), later)
    assert "2027-05-09" not in summary(grouped(), later, ("grouped_reports",))


def test_an_indented_list_of_notes_is_no_grouped_report() -> None:
    notes = "Monday\n    walk the dogs  feed at 7\n    clean Run 4\nTuesday\n    vet visit  12:30"
    assert text_table(notes) is None


def test_a_title_with_a_comma_does_not_make_a_fixed_width_export_two_columns() -> None:
    lines = [f"{'OWNER':<13}{'DOG':<16}{'REF':<11}{'ARRIVES':<12}NOTES"]
    lines += [f"{b[0]:<13}{b[1]:<16}{b[3]:<11}{b[5]:<12}{b[6]}" for b in BOOKINGS]
    text = "\n".join(["BOOKINGS, WEEK 19", *lines])
    found = text_table(text)
    assert found is not None and found[0] == ["OWNER", "DOG", "REF", "ARRIVES", "NOTES"]
    loose = text_table(text, TEXT_READERS - {"delimited_rows"})
    assert loose is not None and loose[0] == ["BOOKINGS", "WEEK 19"]


def test_three_records_named_later_are_a_table_and_the_ablation_cuts_them() -> None:
    blocks = "\n\n".join(
        "\n".join(f"{h}: {c}" for h, c in zip(HEADER, b, strict=True)) for b in BOOKINGS[1:]
    )
    found = find_table(None, blocks, shapes=readers(frozenset()))
    assert found is not None and len(found[1]) == 3
    later = "Did the Oduya booking get confirmed?"
    assert "KB-21240 | 19.25 | 2027-05-11" in summary(blocks, later)
    assert "KB-21240" not in summary(blocks, later, ("small_tables",))


def asked(result: str, request: str, ablate: tuple[str, ...] = ()) -> str:
    messages = [
        msg("u0", request),
        call("a1", "c1", "kennel_bookings", {"week": "19"}),
        msg("t1", result, "tool", tool_call_id="c1"),
        msg("a2", "That's on that row of the list above.", "assistant"),
        *talk(),
    ]
    request_ = SummaryRequest(
        messages=messages, max_tokens=200, token_counter=ApproxCounter(), previous_summary=None
    )
    return run_sync(ExtractiveSummarizer(ablate=list(ablate)).summarize(request_)).text


def test_a_row_named_in_the_request_for_the_table_is_kept() -> None:
    blocks = "\n\n".join(
        "\n".join(f"{h}: {c}" for h, c in zip(HEADER, b, strict=True)) for b in BOOKINGS
    )
    for request in (
        "Pull up this week's bookings, what's the nightly on the Oduya one?",
        "Pull up the bookings, the picked up by the daughter booking, what's the ref?",
    ):
        assert "KB-21240 | 19.25 | 2027-05-11" in asked(blocks, request)
        assert "KB-21240" not in asked(blocks, request, ("asked_rows",))
    # a request further back than the call before the result names nothing
    far = [msg("u0", "What's the nightly on the Oduya one?"), *talk()[:6]]
    messages = [
        *far,
        call("a1", "c1", "kennel_bookings", {"week": "19"}),
        msg("t1", blocks, "tool", tool_call_id="c1"),
        *talk(),
    ]
    request_ = SummaryRequest(
        messages=messages, max_tokens=200, token_counter=ApproxCounter(), previous_summary=None
    )
    assert "KB-21240" not in run_sync(ExtractiveSummarizer().summarize(request_)).text


def test_a_spreadsheet_whose_last_column_is_mostly_empty_is_still_read() -> None:
    lines = ["owner\tdog\tbooking_ref\tnotes"]
    lines += [f"{b[0]}\t{b[1]}\t{b[3]}" for b in BOOKINGS[:3]]  # trailing tabs dropped
    lines.append(f"{BOOKINGS[3][0]}\t{BOOKINGS[3][1]}\t{BOOKINGS[3][3]}\t{BOOKINGS[3][6]}")
    found = text_table("\n".join(lines))
    assert found is not None and found[1][0] == ["Pemberton", "border collie", "KB-20931", ""]


def test_three_short_records_stay_whole_as_a_line() -> None:
    short = "\n\n".join(f"owner: {b[0]}\nref: {b[3]}\nnightly: {b[4]}" for b in BOOKINGS[1:])
    text = summary(short, "Did the Oduya booking get confirmed?")
    assert "KB-21007" in text and "KB-21188" in text and "KB-21240" in text  # every row
