"""Tables as programs print them, and the rules by which a later message names one of their rows.

Handmade examples of each shape (not the evals' own): psql and MySQL grids, box drawing, a
reStructuredText grid, pandas reprs, a spreadsheet's TSV, markdown with alignment colons and a
caption, ``df -h``, ``docker ps``, ``ps aux``, ``pip list`` and JSON Lines; then naming a row by
a cell written without its accents, in the possessive, or ending in a one-digit number.
"""

from __future__ import annotations

import json

import pytest

from summem._flow import run_sync
from summem.messages import SummaryInfo
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.tables import compact_table, find_table, readers, said_words
from summem.tokens.base import ApproxCounter
from tests.summarizers.extractive.spans import call, msg, summarize

PEOPLE = ["id", "name", "city", "balance"]
ROWS = [
    ["1", "Ana Souza", "Gdańsk", "120.50"],
    ["2", "Bo Lindqvist", "Malmö", "3400.00"],
    ["3", "Chen Wei", "Porto", "88.10"],
    ["4", "Dara Okafor", "Lyon", "410.00"],
]

SHAPES = {
    "psql": """\
 id |     name     |  city  | balance
----+--------------+--------+---------
  1 | Ana Souza    | Gdańsk |  120.50
  2 | Bo Lindqvist | Malmö  | 3400.00
  3 | Chen Wei     | Porto  |   88.10
  4 | Dara Okafor  | Lyon   |  410.00
(4 rows)
""",
    "psql border 2": """\
+----+--------------+--------+---------+
| id |     name     |  city  | balance |
+----+--------------+--------+---------+
|  1 | Ana Souza    | Gdańsk |  120.50 |
|  2 | Bo Lindqvist | Malmö  | 3400.00 |
|  3 | Chen Wei     | Porto  |   88.10 |
|  4 | Dara Okafor  | Lyon   |  410.00 |
+----+--------------+--------+---------+
(4 rows)""",
    "mysql": """\
+----+--------------+--------+---------+
| id | name         | city   | balance |
+----+--------------+--------+---------+
|  1 | Ana Souza    | Gdańsk |  120.50 |
|  2 | Bo Lindqvist | Malmö  | 3400.00 |
|  3 | Chen Wei     | Porto  |   88.10 |
|  4 | Dara Okafor  | Lyon   |  410.00 |
+----+--------------+--------+---------+
4 rows in set (0.00 sec)""",
    "box drawing": """\
┌────┬──────────────┬────────┬─────────┐
│ id │ name         │ city   │ balance │
├────┼──────────────┼────────┼─────────┤
│ 1  │ Ana Souza    │ Gdańsk │ 120.50  │
│ 2  │ Bo Lindqvist │ Malmö  │ 3400.00 │
│ 3  │ Chen Wei     │ Porto  │ 88.10   │
│ 4  │ Dara Okafor  │ Lyon   │ 410.00  │
└────┴──────────────┴────────┴─────────┘""",
    "rst grid": """\
+----+--------------+--------+---------+
| id | name         | city   | balance |
+====+==============+========+=========+
| 1  | Ana Souza    | Gdańsk | 120.50  |
+----+--------------+--------+---------+
| 2  | Bo Lindqvist | Malmö  | 3400.00 |
+----+--------------+--------+---------+
| 3  | Chen Wei     | Porto  | 88.10   |
+----+--------------+--------+---------+
| 4  | Dara Okafor  | Lyon   | 410.00  |
+----+--------------+--------+---------+""",
    "pandas": """\
   id          name    city  balance
0   1     Ana Souza  Gdańsk   120.50
1   2  Bo Lindqvist   Malmö  3400.00
2   3      Chen Wei   Porto    88.10
3   4   Dara Okafor    Lyon   410.00""",
    "pandas, cut": """\
    id          name    city  balance
0    1     Ana Souza  Gdańsk   120.50
1    2  Bo Lindqvist   Malmö  3400.00
..  ..           ...     ...      ...
8    3      Chen Wei   Porto    88.10
9    4   Dara Okafor    Lyon   410.00

[10 rows x 4 columns]""",
    "pandas, named index": """\
            name    city  balance
id                               
1      Ana Souza  Gdańsk   120.50
2   Bo Lindqvist   Malmö  3400.00
3       Chen Wei   Porto    88.10
4    Dara Okafor    Lyon   410.00""",
    "markdown, alignment colons and a caption": """\
Here are the open accounts:

| id | name | city | balance |
|:-|:-:|:--|-:|
| 1 | Ana Souza | Gdańsk | 120.50 |
| 2 | Bo Lindqvist | Malmö | 3400.00 |
| 3 | Chen Wei | Porto | 88.10 |
| 4 | Dara Okafor | Lyon | 410.00 |

4 accounts in total.""",
    "tabulate": """\
  id  name          city      balance
----  ------------  ------  ---------
   1  Ana Souza     Gdańsk     120.50
   2  Bo Lindqvist  Malmö     3400.00
   3  Chen Wei      Porto       88.10
   4  Dara Okafor   Lyon       410.00""",
    "json lines": "\n".join(json.dumps(dict(zip(PEOPLE, r, strict=True))) for r in ROWS),
    "logfmt": "\n".join(f'id={r[0]} name="{r[1]}" city={r[2]} balance={r[3]}' for r in ROWS),
    "key: value blocks": "\n\n".join(
        f"id: {r[0]}\nname: {r[1]}\ncity: {r[2]}\nbalance: {r[3]}" for r in ROWS
    ),
    "key = value blocks, a key said again": "\n".join(
        f"id = {r[0]}\nname = {r[1]}\ncity = {r[2]}\nbalance = {r[3]}" for r in ROWS
    ),
    "key: value blocks between rules": "---\n"
    + "\n---\n".join(f"id: {r[0]}\nname: {r[1]}\ncity: {r[2]}\nbalance: {r[3]}" for r in ROWS),
    "xml elements": "<accounts>"
    + "".join(
        f"<account><id>{r[0]}</id><name>{r[1]}</name><city>{r[2]}</city>"
        f"<balance>{r[3]}</balance></account>"
        for r in ROWS
    )
    + "</accounts>",
    "xml attributes, one level down": '<?xml version="1.0"?>\n<response status="ok"><accounts>'
    + "".join(f'<account id="{r[0]}" name="{r[1]}" city="{r[2]}" balance="{r[3]}"/>' for r in ROWS)
    + "</accounts></response>",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_table_printed_by_a_program_is_read_whole(shape: str) -> None:
    assert find_table(None, SHAPES[shape]) == (PEOPLE, ROWS)


def test_a_spreadsheet_copy_keeps_crlf_empty_cells_and_thousands() -> None:
    text = (
        "Region\tRep\tQ1 Sales\tNotes\r\n"
        "North\tAna Souza\t1,204,500\t\r\n"
        "South\tBo Lindqvist\t980,200\tlate\r\n"
        "East\tChen Wei\t2,310,000\t\r\n"
        "West\tDara Okafor\t455,000\r\n"  # a trailing empty cell left out
    )
    assert find_table(None, text) == (
        ["Region", "Rep", "Q1 Sales", "Notes"],
        [
            ["North", "Ana Souza", "1,204,500", ""],
            ["South", "Bo Lindqvist", "980,200", "late"],
            ["East", "Chen Wei", "2,310,000", ""],
            ["West", "Dara Okafor", "455,000", ""],
        ],
    )


def test_command_line_columns_one_space_apart_or_named_in_two_words() -> None:
    df = """\
Filesystem      Size  Used Avail Use% Mounted on
/dev/sda1        50G   31G   17G  65% /
tmpfs           7.8G     0  7.8G   0% /dev/shm
/dev/sdb1       916G  402G  468G  47% /data
/dev/nvme0n1p2  234G  120G  102G  55% /home"""
    found = find_table(None, df)
    assert found is not None
    assert found[0] == ["Filesystem", "Size", "Used", "Avail", "Use%", "Mounted on"]
    assert found[1][2] == ["/dev/sdb1", "916G", "402G", "468G", "47%", "/data"]
    docker = "\n".join(
        [
            "CONTAINER ID   IMAGE            COMMAND                  "
            "CREATED       STATUS                   NAMES",
            'a1b2c3d4e5f6   postgres:15      "docker-entrypoint.s…"   '
            "2 hours ago   Up 2 hours               db",
            'b2c3d4e5f6a7   redis:7-alpine   "redis-server"           '
            "3 days ago    Up 3 days                cache",
            'c3d4e5f6a7b8   myapp:latest     "gunicorn app:app"       '
            "10 min ago    Restarting (1) 5 s ago   web",
            'd4e5f6a7b8c9   nginx:1.25       "/docker-entrypoint.…"   '
            "3 days ago    Up 3 days                proxy",
        ]
    )
    found = find_table(None, docker)
    assert found is not None
    assert found[0] == ["CONTAINER ID", "IMAGE", "COMMAND", "CREATED", "STATUS", "NAMES"]
    assert found[1][2] == [
        "c3d4e5f6a7b8",
        "myapp:latest",
        '"gunicorn app:app"',
        "10 min ago",
        "Restarting (1) 5 s ago",
        "web",
    ]
    ps = """\
USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
root           1  0.0  0.1 169404 11700 ?        Ss   Mar01   0:09 /sbin/init
postgres    1234  2.5  3.1 412000 25000 ?        Ss   Mar01  12:01 postgres: writer
ana         5678 99.0 10.2 900000 80000 pts/0    R+   10:12  45:10 python train.py"""
    found = find_table(None, ps)
    assert found is not None and found[1][2][0] == "ana" and found[1][2][-1] == "python train.py"


def test_text_that_only_looks_like_columns_is_no_table() -> None:
    ls = """\
total 48
drwxr-xr-x  5 ana staff   160 Mar  3 10:12 docs
-rw-r--r--  1 ana staff  4312 Mar  3 10:12 README.md
-rw-r--r--  1 ana staff 12034 Feb 28 09:01 setup.py"""
    assert find_table(None, ls) is None  # no header: its first line is data
    log = "a1b2c3d fix: null check\nb2c3d4e feat: add export\nc3d4e5f chore: bump deps"
    assert find_table(None, log) is None
    prose = (
        "The meeting ran long.  We agreed on the budget\n"
        "and the launch date.  Nobody mentioned the\n"
        "office move, which is odd.  See you Monday."
    )
    assert find_table(None, prose) is None


# -- naming a row ----------------------------------------------------------------------------

CITIES = (
    ["depot", "carrier", "tracking"],
    [
        ["Gdańsk", "Kestrel Freight 1", "ZX-1001"],
        ["Malmö", "Kestrel Freight 12", "ZX-1002"],
        ["Quarry Lane", "Bluebox 3", "ZX-1003"],
        ["Porto", "Bluebox 4", "ZX-1004"],
        ["Lyon", "Swiftpost 5", "ZX-1005"],
    ],
)


def named(*messages: str) -> str:
    return compact_table(CITIES, 400, [said_words(m) for m in messages])


def test_a_cell_is_named_without_its_accents_or_in_the_possessive() -> None:
    assert named("Anything held up at the Gdansk depot?") == (
        "[depot | carrier | tracking] Gdańsk | Kestrel Freight 1 | ZX-1001 (+4 rows)"
    )
    assert named("What's Quarry Lane's tracking number?") == (
        "[depot | carrier | tracking] Quarry Lane | Bluebox 3 | ZX-1003 (+4 rows)"
    )


def test_a_one_digit_number_is_part_of_the_cell() -> None:
    assert named("The Kestrel Freight 12 van is late.") == (
        "[depot | carrier | tracking] Malmö | Kestrel Freight 12 | ZX-1002 (+4 rows)"
    )  # "Kestrel Freight 1" is not said: its 1 is not


def test_one_message_names_a_cell_two_halves_in_two_messages_do_not() -> None:
    assert named("Quarry work starts today.", "Lane closures all week.").endswith(
        "Bluebox 4 | ZX-1004; Lyon | Swiftpost 5 | ZX-1005"
    )  # every row, in order: none named


def _invoices(seed: int) -> str:
    clients = ["Okafor", "Brightwater", "Lindqvist", "Harcourt", "Mossgrove", "Tanaka"]
    clients += ["Pemberton", "Ferreira", "Adeyemi", "Kowalczyk", "Featherstone", "Quarry"]
    rows = [f"INV-{seed}{i:02d},{c},{100 * seed + 7 * i}.50" for i, c in enumerate(clients)]
    return "\n".join(["invoice,client,amount", *rows])


def test_a_row_named_in_two_remembered_tables_comes_back_from_the_newest() -> None:
    first = [
        call("a1", "c1", "list_invoices", {"month": "May"}),
        msg("t1", _invoices(3), "tool", tool_call_id="c1"),
        call("a2", "c2", "list_invoices", {"month": "June"}),
        msg("t2", _invoices(4), "tool", tool_call_id="c2"),
    ]
    out = summarize(first, 30)
    assert len(out.extra["tables"]) == 2 and "Lindqvist" not in out.text
    later = [msg("u", "Chase the Lindqvist invoice, would you?")]
    info = SummaryInfo(extra=out.extra)
    second = summarize(later, 300, previous_summary=out.text, previous_info=info)
    # June's row (shown last), with May's cell of the column the message says ("invoice")
    assert "INV-402 (was INV-302) | Lindqvist | 414.50" in second.text
    assert "INV-302 | Lindqvist" not in second.text  # not May's row as well


def test_a_cell_of_one_digit_names_no_row() -> None:
    table = (["item", "qty"], [["hinge", "3"], ["latch", "7"], ["bolt", "12"], ["stay", "5"]])
    assert compact_table(table, 400, [said_words("Walked 3 miles today.")]).endswith("stay | 5")


def test_an_api_response_of_nested_records_with_item_lists_is_a_table() -> None:
    orders = [
        {
            "id": f"ord_{i}",
            "customer": {"name": name, "address": {"city": "Leeds", "country": "GB"}},
            "items": [{"sku": f"SKU-{1000 + i}", "qty": 2}, {"sku": "SKU-7", "qty": 1}],
            "fulfilment": {"carrier": "DPD", "tracking": {"number": f"JD00{i}7", "status": "x"}},
        }
        for i, name in enumerate(["Ada Fennimore", "Tom Upshall", "Ivy Kettering", "Sam Oduya"])
    ]
    text = json.dumps({"data": {"orders": orders}, "meta": {"page": 1, "total": 4}})
    found = find_table(json.loads(text), text)  # wide: short names, every value (deep_records)
    assert found == (
        ["id", "name", "city", "country", "items", "carrier", "number", "status"],
        [
            [f"ord_{i}", name, "Leeds", "GB", f"SKU-{1000 + i} 2, SKU-7 1", "DPD", f"JD00{i}7", "x"]
            for i, name in enumerate(["Ada Fennimore", "Tom Upshall", "Ivy Kettering", "Sam Oduya"])
        ],
    )
    found = find_table(json.loads(text), text, shapes=readers({"deep_records"}))
    assert found is not None
    header, rows = found
    assert header == [
        "id",
        "customer.name",
        "customer.address.city",
        "customer.address.country",
        "items",
        "fulfilment.carrier",
        "fulfilment.tracking.number",
        "fulfilment.tracking.status",
    ]
    assert rows[2] == [
        "ord_2", "Ivy Kettering", "Leeds", "GB", "SKU-1002 2, SKU-7 1", "DPD", "JD0027", "x",
    ]  # fmt: skip
    # an item nesting further is no table read two levels deep (``deep_records`` reads it),
    # and two objects each holding a table are none
    deeper = [{**o, "items": [{"sku": {"code": "S"}}]} for o in orders]
    assert find_table(deeper, json.dumps(deeper), shapes=readers({"deep_records"})) is None
    two = {"data": {"orders": orders}, "old": {"orders": orders}}
    assert find_table(two, json.dumps(two)) is None
    # a record's own objects side by side, one holding a list: a record, not an envelope
    inside = {"account": {"billing": {"orders": orders}, "meta": {"rev": 2}}, "meta": {"rev": 1}}
    assert find_table(inside, json.dumps(inside)) is None


def test_ini_sections_are_records_the_section_a_column() -> None:
    ini = "\n\n".join(f"[{r[1]}]\ncity = {r[2]}\nbalance = {r[3]}" for r in ROWS)
    assert find_table(None, ini) == (
        ["section", "city", "balance"],
        [[r[1], r[2], r[3]] for r in ROWS],
    )


def test_json_records_keyed_by_name_or_beside_other_lists_are_a_table() -> None:
    keyed = {r[1]: {"city": r[2], "balance": r[3]} for r in ROWS}
    assert find_table(keyed, json.dumps(keyed)) == (
        ["key", "city", "balance"],
        [[r[1], r[2], r[3]] for r in ROWS],
    )
    beside = {"accounts": [dict(zip(PEOPLE, r, strict=True)) for r in ROWS], "warnings": ["x"]}
    assert find_table(beside, json.dumps(beside)) == (PEOPLE, ROWS)
    # an envelope of a few objects, or two lists of records, is no table
    envelope = {"data": {"id": 1, "name": "A"}, "meta": {"id": 2, "name": "B"}}
    assert find_table(envelope, json.dumps(envelope)) is None
    two = {"a": beside["accounts"], "b": beside["accounts"]}
    assert find_table(two, json.dumps(two)) is None


def test_text_that_only_looks_like_records_is_no_table() -> None:
    one = "Order: 4471\nStatus: shipped\nCarrier: DPD\nTracking: JD0014"
    assert find_table(None, one) is None  # one record: its fields, not a table
    weather = "Today: sunny\nHigh: 21C\n\nTomorrow: rain\nChance: 80%"
    assert find_table(None, weather) is None  # blocks of different fields
    mixed = "name=api port=80\nstarting workers\nname=db port=5432"
    assert find_table(None, mixed) is None  # a line that is no record
    steps = "Step 1: unplug it\nStep 2: wait ten seconds\nStep 3: plug it back"
    assert find_table(None, steps) is None
    entities = (
        '<!DOCTYPE a [<!ENTITY x "y">]><a><b><c>&x;</c><d>1</d></b><b><c>2</c><d>3</d></b></a>'
    )
    assert find_table(None, entities) is None  # a document declaring entities is not read
    nested = "<a><b><c><e>1</e></c><d>1</d></b><b><c><e>2</e></c><d>3</d></b></a>"
    assert find_table(None, nested) is None


def test_a_row_of_logfmt_named_later_is_kept_and_the_ablation_restores_the_text() -> None:
    names = ["api-gateway", "billing-worker", "cart-service", "dns-cache", "email-relay"]
    names += ["feed-indexer", "geo-lookup", "harbor-sync", "image-resizer", "job-scheduler"]
    text = "\n".join(
        f"name={n} status=Running port={8080 + 7 * i} memory={120 + 37 * i}Mi node=node-{i % 4}"
        for i, n in enumerate(names)
    )
    messages = [
        call("a1", "c1", "list_services", {"cluster": "prod-eu"}),
        msg("t1", text, "tool", tool_call_id="c1"),
        msg("a2", "Here are the ten services in prod-eu; all are running.", "assistant"),
        msg("u1", "Going back to the list: harbor-sync keeps getting OOM-killed."),
    ]
    kept = "[name | status | port | memory | node] harbor-sync | Running | 8129 | 379Mi | node-3"
    assert kept in summarize(messages, 200).text
    request = SummaryRequest(
        messages=messages, max_tokens=200, token_counter=ApproxCounter(), previous_summary=None
    )
    ablated = run_sync(ExtractiveSummarizer(ablate=["table_shapes"]).summarize(request))
    assert "8129" not in ablated.text  # the text cut at its first records
