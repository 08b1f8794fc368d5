"""Tables an API nests deep or a report prints on its side, and a row of them named later.

Handmade (not the evals' own): a CRM's records three levels down, an orchestrator's items
whose one container holds its limits, a comparison of quotes with one supplier a column.
"""

from __future__ import annotations

import json

from summem._flow import run_sync
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.tables import find_table, readers
from summem.tokens.base import ApproxCounter
from tests.summarizers.extractive.spans import call, msg, talk

NAMES = ["api-gateway", "billing-worker", "cart-service", "dns-cache", "email-relay"]
NAMES += ["feed-indexer", "geo-lookup", "harbor-sync", "image-resizer", "job-scheduler"]


def pods() -> str:
    """``kubectl get pods -o json``, cut down: each pod's one container holds its limits."""
    items = [
        {
            "metadata": {"name": n, "namespace": "prod", "labels": {"app": n}},
            "spec": {
                "nodeName": f"node-{i % 4}",
                "containers": [
                    {
                        "name": n,
                        "ports": [{"containerPort": 8080 + 7 * i}],
                        "resources": {"limits": {"memory": f"{120 + 37 * i}Mi"}},
                    }
                ],
            },
            "status": {"phase": "Running"},
        }
        for i, n in enumerate(NAMES)
    ]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def crm() -> str:
    """A CRM's search: each field an object (``{"value": ..., "source": ...}``), three deep."""
    results = [
        {
            "id": str(900100 + i),
            "properties": {
                "client": {"value": c, "source": "import"},
                "invoice": {"value": f"INV-{4100 + i}", "source": "import"},
                "amount": {"value": f"{1200 + 55 * i}.50", "source": "import"},
            },
        }
        for i, c in enumerate(["Okonkwo", "Mossgrove", "Brightwater", "Pemberton", "Adeyemi"])
    ]
    return json.dumps({"data": {"results": results, "paging": {"next": None}}})


QUOTES = """\
|  | Plumbfast | AquaFix | Drainmasters | Copperline |
|---|---|---|---|---|
| quote ref | RR258502 | XS-1672-K | TY288838 | AH-5317-D |
| price | 3120.40 | 2875.10 | 3390.00 | 2990.95 |
| available from | 19 August 2026 | 2 September 2026 | 28 July 2026 | 4 August 2026 |"""


def summary(result: str, tool: str, later: str, ablate: tuple[str, ...] = ()) -> str:
    messages = [
        call("a1", "c1", tool, {"scope": "all"}),
        msg("t1", result, "tool", tool_call_id="c1"),
        msg("a2", "Here you go.", "assistant"),
        *talk(),
        msg("u1", later),
    ]
    request = SummaryRequest(
        messages=messages, max_tokens=200, token_counter=ApproxCounter(), previous_summary=None
    )
    return run_sync(ExtractiveSummarizer(ablate=list(ablate)).summarize(request)).text


def test_records_nested_three_levels_deep_are_a_table_of_their_telling_columns() -> None:
    found = find_table(json.loads(crm()), crm())
    assert found is not None
    # ``source`` is "import" everywhere: one column says it once; each column named by its
    # telling last parts
    assert found[0] == ["id", "client.value", "source", "invoice.value", "amount.value"]
    assert found[1][1] == ["900101", "Mossgrove", "import", "INV-4101", "1255.50"]
    found = find_table(json.loads(pods()), pods())
    assert found is not None
    header, rows = found
    assert header == [
        "metadata.name", "namespace", "app", "nodeName", "containers.name", "ports", "memory",
        "phase",
    ]  # fmt: skip
    assert rows[7][-3:] == ["8129", "379Mi", "Running"]
    two = json.loads(pods())
    for item in two["items"]:  # two containers each: one cell of their values
        item["spec"]["containers"] *= 2
    found = find_table(two, json.dumps(two))
    assert found is not None and found[1][7][-2].startswith("harbor-sync 8129 379Mi")
    same = [  # a wide nested header, one column varying: read whole, as it stands
        {"id": f"r{i}", "properties": {"long_property_name": {"value": "x", "source": "y"}}}
        for i in range(4)
    ]
    same = [{**r, "extra": {"another_long_field": {"value": 1, "updated": "2026"}}} for r in same]
    found = find_table(same, json.dumps(same))
    assert found is not None and len(found[0]) == 5 and found[1][2][0] == "r2"


def test_a_deep_record_named_later_is_kept_whole_and_the_ablation_loses_it() -> None:
    later = "Going back to the list: I need to bump harbor-sync, it keeps getting OOM-killed."
    text = summary(pods(), "get_pods", later)
    assert "harbor-sync | node-3 | harbor-sync | 8129 | 379Mi | Running" in text
    assert "379Mi" not in summary(pods(), "get_pods", later, ("deep_records",))
    later = "Chase the Mossgrove invoice, would you?"
    assert "900101 | Mossgrove | import | INV-4101 | 1255.50" in summary(
        crm(), "search_deals", later
    )


def test_a_table_on_its_side_is_read_one_record_a_row() -> None:
    found = find_table(None, QUOTES)
    assert found is not None
    assert found[0] == ["", "quote ref", "price", "available from"]
    assert found[1][1] == ["AquaFix", "XS-1672-K", "2875.10", "2 September 2026"]
    text = summary(QUOTES, "compare_quotes", "Go with AquaFix, book them in.")
    assert "AquaFix | XS-1672-K | 2875.10 | 2 September 2026" in text
    ablated = summary(QUOTES, "compare_quotes", "Go with AquaFix.", ("transposed_tables",))
    assert "AquaFix | XS-1672-K" not in ablated


def test_tables_upright_or_of_one_kind_are_not_turned() -> None:
    upright = """\
| supplier | quote ref | price | available from |
|---|---|---|---|
| Plumbfast | RR258502 | 3120.40 | 19 August 2026 |
| AquaFix | XS-1672-K | 2875.10 | 2 September 2026 |
| Drainmasters | TY288838 | 3390.00 | 28 July 2026 |
| Copperline | AH-5317-D | 2990.95 | 4 August 2026 |"""
    found = find_table(None, upright)
    assert found is not None and found[0][0] == "supplier" and len(found[1]) == 4
    rota = """\
|  | Mon | Tue | Wed | Thu |
|---|---|---|---|---|
| Ana | early | late | off | early |
| Bo | late | off | early | late |
| Chen | off | early | late | off |"""
    found = find_table(None, rota)  # a grid of one kind reads either way: left as printed
    assert found is not None and found[0][1] == "Mon" and found[1][0][0] == "Ana"
    scores = """\
| team | q1 | q2 | q3 | q4 |
|---|---|---|---|---|
| north | 12 | 15 | 9 | 20 |
| south | 8 | 11 | 14 | 7 |
| east | 10 | 10 | 12 | 16 |"""
    found = find_table(None, scores)  # every row numbers: one kind, as printed
    assert found is not None and found[0][0] == "team"


def test_a_record_of_placeholders_does_not_turn_an_upright_table() -> None:
    # review12: one product out of the range ("discontinued", "n/a", "-" in every field) made
    # the row of one kind (words) among rows of numbers, and the table was read on its side:
    # the products became the header and the result fell back to its raw text
    for gap in ("discontinued", "n/a", "-"):
        prices = f"""\
| name | price | stock | rating |
|---|---|---|---|
| Kettle | 25.00 | 12 | 4.5 |
| Toaster | {gap} | {gap} | {gap} |
| Blender | 40.00 | 3 | 4.1 |
| Mixer | 55.00 | 1 | 3.9 |"""
        found = find_table(None, prices)
        assert found is not None and found[0] == ["name", "price", "stock", "rating"], gap
        assert [r[0] for r in found[1]] == ["Kettle", "Toaster", "Blender", "Mixer"]
    same = QUOTES + "\n| currency | EUR | EUR | EUR | EUR |"  # a field the same in every record
    found = find_table(None, same)
    assert found is not None and found[1][1][:2] == ["AquaFix", "XS-1672-K"]


def _orders() -> str:
    """One customer's orders, as a shop's API lists them: the customer in every record."""
    return json.dumps(
        [
            {
                "order_id": f"SO-{4410 + i}",
                "customer": {"name": "Ana Silva", "email": "ana@example.com"},
                "shipping": {"address_line": "12 Rua Augusta", "city": "Lisbon"},
                "total": {"amount": f"{30 + 7 * i}.50", "currency": "EUR"},
            }
            for i in range(5)
        ]
    )


def test_a_wide_nested_table_keeps_the_values_every_record_shares() -> None:
    found = find_table(json.loads(_orders()), _orders())
    assert found is not None
    cells = {c for row in found[1] for c in row}
    assert {"12 Rua Augusta", "Ana Silva", "EUR"} <= cells


def test_the_deep_records_ablation_keeps_the_values_every_record_shares() -> None:
    # the behaviour the xfail above asks of the rule: main's reading kept every column
    found = find_table(json.loads(_orders()), _orders(), shapes=readers({"deep_records"}))
    assert found is not None
    assert {"12 Rua Augusta", "Ana Silva", "EUR"} <= {c for row in found[1] for c in row}
