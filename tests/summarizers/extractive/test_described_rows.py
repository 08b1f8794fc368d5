"""A row of a table picked by description rather than by a whole cell.

Handmade tables (a CSV of rentals, a markdown table of backups, a JSON columns/rows list of
laptops, ``kubectl get pods``, ``docker images``) and later messages that point at one row by
part of a name, another form of a word, or a comparison over a numeric or date column
("the cheaper of the two Harbour flats"); then the cases that must name nothing: two rows
left, a tie, two columns that could be meant, a comparison said in passing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from summem.messages import SummaryInfo
from summem.summarizers.extractive.described import row_nouns, stem
from summem.summarizers.extractive.tables import (
    Echoed,
    compact_table,
    find_table,
    named_by,
    said_words,
)
from tests.summarizers.extractive.spans import call, msg, summarize

RENTALS_CSV = """\
listing,district,rate_per_night,beds
Harbour Loft,Harbourside,185,2
Quayside Flat,Harbourside,142,1
Old Mill Studio,Millbrook,96,1
Weaver's Cottage,Millbrook,131,3
Station Rooms,Central,118,2
"""

BACKUPS_MD = """\
| job | target | size | finished |
|---|---|---|---|
| nightly-db | s3://vault/db | 41.2 GB | 2027-03-14 02:10 |
| weekly-media | s3://vault/media | 312 GB | 2027-03-09 04:55 |
| hourly-logs | s3://vault/logs | 1.8 GB | 2027-03-14 09:00 |
| monthly-archive | glacier://cold | 1.1 TB | 2027-03-01 01:30 |
"""

LAPTOPS_JSON = json.dumps(
    {
        "columns": ["model", "vendor", "price_eur", "weight_kg"],
        "rows": [
            ["Aerolite 14", "Nimbus", "1299", "1.1"],
            ["Aerolite 16", "Nimbus", "1649", "1.6"],
            ["Forge X", "Tallis", "1899", "2.3"],
            ["Pocket Pro", "Tallis", "999", "0.9"],
        ],
    }
)

PODS = """\
NAME                      READY   STATUS             RESTARTS      AGE
gateway-5d8f7c9b4-qk2lp   1/1     Running            0             6d
ledger-6b9d4f7c8-x7wzn    0/1     CrashLoopBackOff   23 (4m ago)   6d
mailer-7c4b8d9f6-p3rtv    1/1     Running            1             2h
indexer-8f6c5b7d9-m9skq   1/1     Running            2             41m
"""

IMAGES = """\
REPOSITORY      TAG       IMAGE ID       CREATED        SIZE
shopfront       2.4.1     4b1e9c0a7d21   3 days ago     412MB
shopfront       2.3.0     9f2a6d4c1e88   5 weeks ago    398MB
ledger-worker   1.9.2     c7d31a5e0b44   2 hours ago    187MB
nginx           1.27      a0e8f5b2c613   2 months ago   192MB
"""


def table(text: str) -> Any:
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = None
    found = find_table(parsed, text)
    assert found is not None
    return found


def row(text: str, message: str) -> int | None:
    """The row one message names (whole cells first, then a description), or None."""
    (named,) = named_by(table(text), [said_words(message)])
    assert named == set() or len(named) == 1
    return next(iter(named)) if named else None


@pytest.mark.parametrize(
    ("text", "message", "expected"),
    [
        (RENTALS_CSV, "Let's go with the cheaper of the two Harbourside flats.", 1),
        (RENTALS_CSV, "Book the pricier Millbrook one for the family.", 3),
        (RENTALS_CSV, "Which is the cheapest one? Take that.", 2),
        (RENTALS_CSV, "Okay, the Quayside one it is.", 1),  # part of "Quayside Flat"
        (BACKUPS_MD, "Restore from the newest backup target, the db one's fine", 2),
        (BACKUPS_MD, "Which job has the biggest size? Compress that one.", 3),
        (BACKUPS_MD, "Re-run the oldest one tonight.", 3),
        (LAPTOPS_JSON, "Order the cheaper Nimbus one.", 0),
        (LAPTOPS_JSON, "I'll take the lightest... no, the Tallis with the lowest weight.", 3),
        (PODS, "Whichever pod restarted most, get me its logs.", 1),
        (PODS, "Kill the crashing one.", 1),  # a stem of "CrashLoopBackOff"
        (PODS, "Describe the newest one.", 3),  # 41m is younger than 2h and 6d
        (IMAGES, "Push the newest image to the registry.", 2),  # 2 hours ago
        (IMAGES, "Delete the oldest shopfront image.", 1),  # 5 weeks ago, of the two shopfront
        (IMAGES, "Which image is largest? Prune the smallest one.", None),  # two comparisons
    ],
)
def test_a_row_is_picked_by_description(text: str, message: str, expected: int | None) -> None:
    assert row(text, message) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (RENTALS_CSV, "The Millbrook one sounds nice."),  # two rows in Millbrook
        (RENTALS_CSV, "I found a cheaper train than last time."),  # nothing ties it to the table
        (RENTALS_CSV, "Is the Quayside cheaper than the Loft?"),  # two rows named, no set
        (RENTALS_CSV, "Harbourside or Millbrook, the cheaper one?"),  # no row has both
        (RENTALS_CSV, "I'd like more room, honestly."),  # "more" without a column's name
        (BACKUPS_MD, "Give me the latest numbers when you can."),  # nothing ties it
        (LAPTOPS_JSON, "Show me the highest one."),  # price or weight: which?
        (PODS, "Describe the oldest one."),  # 6d twice: a tie
        (PODS, "Everything running okay?"),  # three rows run: nothing picked
        (IMAGES, "The shopfront one, please."),  # two shopfront rows
        (RENTALS_CSV, "Book the cheaper one."),  # cheaper of five: of which two?
        (IMAGES, "Maybe a bigger image next time, this one is slow."),  # a comparative of four
    ],
)
def test_a_doubtful_description_picks_no_row(text: str, message: str) -> None:
    assert row(text, message) is None


def test_an_assistants_words_describe_no_row() -> None:
    rentals = table(RENTALS_CSV)
    words = said_words("The cheapest one has a garden.")
    assert named_by(rentals, [words]) == [{2}]  # a user's
    assert named_by(rentals, [Echoed(words)]) == [set()]  # an assistant's: by cells only
    assert named_by(rentals, [Echoed(said_words("Harbour Loft has a balcony."))]) == [{0}]


def test_stems_and_values() -> None:
    assert stem("restarted") == stem("restarts") == "restart"
    assert stem("failing") == stem("failed") == "fail"
    assert stem("stopped") == "stop"


def test_a_whole_cell_still_names_first_and_descriptions_cut_the_record() -> None:
    rentals = table(RENTALS_CSV)
    # a message saying a whole cell names that row, not the one its comparison would pick
    assert named_by(rentals, [said_words("Is Harbour Loft the cheaper one?")]) == [{0}]
    record = compact_table(rentals, 400, [said_words("The cheaper Harbourside one, then.")])
    assert record == (
        "[listing | district | rate_per_night | beds] Quayside Flat | Harbourside | 142 | 1"
        " (+4 rows)"
    )
    # before: no row named by a description, so every row in order
    plain = compact_table(rentals, 400, [said_words("The Millbrook one sounds nice.")])
    assert plain.endswith("Station Rooms | Central | 118 | 2")


def test_a_remembered_tables_described_row_comes_back() -> None:
    first = [
        call("a1", "c1", "search_rentals", {"town": "Kestwick"}),
        msg("t1", RENTALS_CSV, "tool", tool_call_id="c1"),
    ]
    out = summarize(first, 30)
    assert out.extra["tables"] and "Quayside Flat" not in out.text
    later = [msg("u", "Go for the cheaper of the two Harbourside places.")]
    info = SummaryInfo(extra=out.extra)
    second = summarize(later, 300, previous_summary=out.text, previous_info=info)
    recalled = [line for line in second.text.splitlines() if "Quayside Flat" in line]
    assert recalled and "Harbour Loft" not in recalled[0] and "(+4 rows)" in recalled[0]

    vague = [msg("u", "Millbrook or Harbourside, whichever is cheaper, I can't decide.")]
    third = summarize(vague, 300, previous_summary=out.text, previous_info=info)
    assert "(+4 rows)" not in third.text  # no row of the table came back


ORDERS = json.dumps(
    {
        "data": {
            "orders": [
                {
                    "id": f"ord_{i}",
                    "customer": {"name": name, "address": {"city": city}},
                    "items": [{"sku": f"SKU-{1000 + i}", "qty": 1 + i % 3}],
                    "fulfilment": {"tracking": {"number": f"JD0{i}81234", "status": "sent"}},
                }
                for i, (name, city) in enumerate(
                    [
                        ("Ada Fennimore", "Leeds"),
                        ("Tom Upshall", "Bath"),
                        ("Ivy Kettering", "York"),
                        ("Sam Achterberg", "Leeds"),
                    ]
                )
            ]
        },
        "meta": {"page": 1, "total": 4},
    }
)


@pytest.mark.parametrize(
    ("text", "call_text", "message", "expected"),
    [
        (PODS, 'shell(cmd="kubectl get pods -n prod")', "ok that crashing pod, delete it", 1),
        (ORDERS, "shop_api(endpoint=/v2/orders)", "The Kettering order hasn't arrived.", 2),
        (ORDERS, "shop_api(endpoint=/v2/orders)", "Send the Upshall customer a link.", None),
        (PODS, "shell(cmd=uptime)", "ok that crashing pod, delete it", None),  # no pods listed
        (ORDERS, "shop_api(endpoint=/v2/orders)", "The Kettering parcel, where is it?", None),
        (ORDERS, "shop_api(endpoint=/v2/orders)", "The Leeds order hasn't arrived.", None),
    ],
)
def test_a_partial_name_before_what_the_rows_are_picks_a_row(
    text: str, call_text: str, message: str, expected: int | None
) -> None:
    found = table(text)
    (named,) = named_by(found, [said_words(message)], nouns=row_nouns(call_text))
    assert named == ({expected} if expected is not None else set())
    (without,) = named_by(found, [said_words(message)])
    assert without == set()  # before: only "one" pointed


def test_row_nouns_are_the_calls_plurals() -> None:
    nouns = row_nouns("shop_api(endpoint=/v2/orders, status=open)")
    assert {"order", "orders"} <= nouns
    assert "statu" not in nouns and "status" not in nouns  # "status" is no plural
    assert row_nouns("list_invoices()") >= {"invoice", "invoices"}
    assert "battery" in row_nouns("list_batteries()")
