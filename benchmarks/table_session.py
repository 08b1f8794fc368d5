"""A deterministic long session of tool results with tables, and user turns naming their rows.

For benchmarks and for the tests that compare the extractive summarizer with a reference: a
user asks for a list (invoices, stock, hotels, pods, shipments), a tool answers with a table
(markdown, CSV, JSON records or JSON columns and rows, of 4 to 14 rows, a key column of names
or codes), the assistant presents it, and the user comes back to a row by its name, its code,
a description ("the cheapest one") or in passing; some lists are fetched again later with a
cell changed, as a ledger is. Seeded, so runs compare.
"""

from __future__ import annotations

import json
import random
from typing import Any

__all__ = ["table_session"]

_FIRST = ("Ana", "Tomas", "Priya", "Kenji", "Zofia", "Okonkwo", "Marta", "Lars", "Ines", "Ravi")
_PLACES = ("Quayside", "Alfama", "Marsh Lane", "Harbour", "Mossgrove", "Kestrel", "Tanaka")
_THINGS = ("pipe clip", "day pack", "stove", "lantern", "sleeping pad", "tent", "mat", "valve")
_KINDS = ("invoices", "stock", "hotels", "pods", "shipments")
_STATUS = ("open", "paid", "late", "shipped", "held", "ok")


def _row(kind: str, rng: random.Random, i: int) -> dict[str, str]:
    if kind == "invoices":
        return {
            "client": f"{rng.choice(_PLACES)} {rng.choice(_FIRST)} {i}",
            "invoice": f"INV-{rng.randint(1000, 9999)}",
            "amount": f"{rng.randint(50, 5000)}.{rng.randint(0, 99):02d}",
            "due": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "status": rng.choice(_STATUS),
        }
    if kind == "stock":
        return {
            "sku": f"SKU-{rng.randint(1000, 9999)}",
            "item": f"{rng.choice(_THINGS)} {rng.choice(('small', 'large', 'blue', 'steel'))}",
            "bin": f"B{rng.randint(1, 40)}",
            "qty": str(rng.randint(0, 300)),
        }
    if kind == "hotels":
        return {
            "hotel": f"{rng.choice(_PLACES)} {rng.choice(('Inn', 'House', 'Suites', 'Lodge'))} {i}",
            "city": rng.choice(("Lisbon", "Porto", "Gdansk", "Kyoto")),
            "price": f"{rng.randint(60, 400)} EUR",
            "rating": f"{rng.randint(30, 50) / 10}",
        }
    if kind == "pods":
        return {
            "name": f"api-{rng.randint(100, 999)}-{rng.choice('abcdefgh')}{i}",
            "status": rng.choice(("Running", "CrashLoopBackOff", "Pending")),
            "restarts": str(rng.randint(0, 30)),
            "age": f"{rng.randint(1, 90)}d",
        }
    return {
        "tracking": f"QX-{rng.randint(1000, 9999)}",
        "carrier": rng.choice(("Parcelwise", "DHL", "Kestrel Freight")),
        "eta": f"{rng.randint(1, 28)} May",
        "to": f"{rng.choice(_FIRST)} {rng.choice(_PLACES)}",
    }


def _render(rows: list[dict[str, str]], style: int) -> str:
    header = list(rows[0])
    if style == 0:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(r[h] for h in header) + " |" for r in rows]
        return "\n".join(lines)
    if style == 1:
        return "\n".join([",".join(header)] + [",".join(r[h] for h in header) for r in rows])
    if style == 2:
        return json.dumps(rows)
    return json.dumps({"columns": header, "rows": [[r[h] for h in header] for r in rows]})


def _naming(rng: random.Random, kind: str, row: dict[str, str]) -> str:
    key = next(iter(row.values()))
    other = list(row.values())[1]
    return rng.choice(
        (
            f"Let's go with {key}, please.",
            f"What about {key}? I think that one is ours.",
            f"Can you hold {key} for me until Friday?",
            f"The {other} one, {key}, is the one my manager asked about.",
            f"Which of these is the cheapest one? I'd rather not pay more than {key} costs.",
            f"Ok, note that {key} needs to be sorted before the audit on the 14th.",
            "Thanks, that helps. My budget is still 900 EUR for the whole trip.",
            f"Actually switch to {key}, the other {kind} are no good for us.",
        )
    )


def table_session(
    n_messages: int, *, seed: int = 11, tables_every: int = 5
) -> list[dict[str, Any]]:
    """About ``n_messages`` chat-completions dicts (a system message first).

    A table every ``tables_every`` turns (each turn: a user message and the assistant's reply,
    with a tool call and its result when it fetches a list); 1 in 3 fetches is a list fetched
    before, with one row's cell changed. The other turns name rows of earlier lists.
    """
    rng = random.Random(seed)
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful assistant."}]
    fetched: list[tuple[str, list[dict[str, str]]]] = []
    turn = 0
    while len(out) < n_messages:
        turn += 1
        if turn % tables_every == 1 or not fetched:
            if fetched and rng.random() < 0.33:
                kind, rows = rng.choice(fetched[-8:])
                rows = [dict(r) for r in rows]
                r = rng.choice(rows)
                col = list(r)[-1]
                r[col] = r[col] + "1" if r[col][-1:].isdigit() else rng.choice(_STATUS)
            else:
                kind = rng.choice(_KINDS)
                rows = [_row(kind, rng, i) for i in range(rng.randint(4, 14))]
            fetched.append((kind, rows))
            cid = f"call_{turn}"
            out.append({"role": "user", "content": f"Can you pull up the current {kind} list?"})
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {
                                "name": f"list_{kind}",
                                "arguments": json.dumps({"page": 1, "turn": turn}),
                            },
                        }
                    ],
                }
            )
            content = _render(rows, rng.randint(0, 3))
            out.append({"role": "tool", "tool_call_id": cid, "content": content})
            out.append(
                {"role": "assistant", "content": f"Here you go, {len(rows)} {kind}. Any to pick?"}
            )
            continue
        kind, rows = rng.choice(fetched[-6:])
        row = rng.choice(rows)
        out.append({"role": "user", "content": _naming(rng, kind, row)})
        key = next(iter(row.values()))
        out.append(
            {
                "role": "assistant",
                "content": f"Noted: {key} ({' / '.join(list(row.values())[1:])}). Anything else?",
            }
        )
    return out
