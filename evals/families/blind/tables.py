"""``tables``: tool results as tables, one cell of each asked after by its row later.

An operations assistant pulls shipments, invoices, site visits and stock as a markdown table,
CSV, JSON ``{"columns", "rows"}`` or a JSON list of records (5 to 30 rows). In each planted
table one cell (a code, an amount, a date or a name) is the fact: a later user turn points at it
by its row and column ("the ETA on the Valencia shipment") without saying it, and the assistant
answers without repeating it, so the value stays in the table alone. Filler: more tables of the
same shapes with fresh values that nobody asks about, the same status reports again and again
(weather, backups, disk, inbox), and small talk.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evals.families.blind.base import Writer
from evals.families.facts import FactKind

__all__ = ["FORMATS", "KINDS", "TableKind", "render", "write"]

FORMATS = ("markdown", "csv", "json-columns", "json-records")
"""How a table comes back from a tool."""

_CITIES = tuple(
    [
        "Lisbon",
        "Valencia",
        "Porto",
        "Ghent",
        "Lyon",
        "Turin",
        "Bremen",
        "Gdansk",
        "Malmo",
        "Bergen",
        "Tallinn",
        "Riga",
        "Vilnius",
        "Krakow",
        "Brno",
        "Graz",
        "Ljubljana",
        "Zagreb",
        "Split",
        "Bari",
        "Palermo",
        "Seville",
        "Bilbao",
        "Nantes",
        "Lille",
        "Antwerp",
        "Utrecht",
        "Aarhus",
        "Tampere",
        "Cork",
        "Galway",
        "Dundee",
    ]
)
_CLIENTS = tuple(
    f"{a} {b}"
    for a, b in zip(
        [
            "Alder",
            "Birch",
            "Cedar",
            "Damson",
            "Elm",
            "Fir",
            "Gorse",
            "Hazel",
            "Ivy",
            "Juniper",
            "Larch",
            "Maple",
            "Nettle",
            "Oak",
            "Poplar",
            "Quince",
            "Rowan",
            "Sorrel",
            "Teasel",
            "Umber",
            "Vetch",
            "Willow",
            "Yarrow",
            "Aspen",
            "Bramble",
            "Clover",
            "Dogwood",
            "Fennel",
            "Heather",
            "Laurel",
            "Myrtle",
            "Olive",
        ],
        ("Ltd", "Studio", "and Sons", "Partners", "Group", "Works", "Co-op", "Trading") * 4,
        strict=True,
    )
)
_SITES = tuple(
    f"{n} {s}"
    for n, s in zip(
        range(3, 99, 3),
        (
            "Mill Lane",
            "Quarry Road",
            "Church Walk",
            "Tannery Row",
            "Ferry Street",
            "Orchard Close",
            "Kiln Yard",
            "Chapel Hill",
        )
        * 4,
        strict=True,
    )
)
_ITEMS = tuple(
    [
        "hinge bracket",
        "ceiling rose",
        "gate latch",
        "door closer",
        "cable gland",
        "junction box",
        "pipe clip",
        "tap washer",
        "float valve",
        "flush button",
        "radiator key",
        "isolator switch",
        "grout float",
        "wall plug",
        "coach bolt",
        "shelf pin",
        "cabinet handle",
        "drawer runner",
        "letter plate",
        "window stay",
        "sash lock",
        "door stop",
        "hook eye",
        "pull cord",
        "fuse carrier",
        "dimmer knob",
        "socket cover",
        "vent grille",
        "drain cover",
        "trap seal",
        "hose tail",
        "tank connector",
    ]
)
_CARRIERS = ("DPD", "Hermes", "DHL", "UPS", "GLS")
_STATUSES = ("in transit", "held at depot", "out for delivery", "awaiting pickup", "delayed")
_PAID = ("paid", "overdue", "sent", "part paid", "disputed")
_WAREHOUSES = ("north", "south", "east", "docks")


@dataclass(frozen=True)
class TableKind:
    """One kind of table: its row key, its columns, and which columns may hold the fact.

    ``columns`` maps a column to what fills it: ``"key"``, a fact kind (``code``, ``value``,
    ``date``, ``name``; drawn fresh), or a tuple of plain words (repeats are fine).
    """

    noun: str
    asks: tuple[str, ...]
    keys: tuple[str, ...]
    columns: tuple[tuple[str, Any], ...]
    planted: dict[str, tuple[FactKind, str]]


KINDS = (
    TableKind(
        "shipment",
        ("Pull up the open shipments.", "Where are this week's deliveries?"),
        _CITIES,
        (
            ("destination", "key"),
            ("carrier", _CARRIERS),
            ("tracking", "code"),
            ("status", _STATUSES),
            ("eta", "date"),
        ),
        {"tracking": ("code", "tracking number"), "eta": ("date", "ETA")},
    ),
    TableKind(
        "invoice",
        ("Show me the invoices for this quarter.", "What's outstanding with clients?"),
        _CLIENTS,
        (
            ("client", "key"),
            ("invoice_no", "code"),
            ("amount", "value"),
            ("due", "date"),
            ("state", _PAID),
        ),
        {"amount": ("value", "amount"), "due": ("date", "due date")},
    ),
    TableKind(
        "site visit",
        ("List the site visits booked.", "Which jobs are scheduled?"),
        _SITES,
        (("site", "key"), ("engineer", "name"), ("job_ref", "code"), ("visit", "date")),
        {"engineer": ("name", "engineer"), "job_ref": ("code", "job reference")},
    ),
    TableKind(
        "stock line",
        ("What have we got in stock?", "Stock check, please."),
        _ITEMS,
        (
            ("item", "key"),
            ("sku", "code"),
            ("warehouse", _WAREHOUSES),
            ("qty", "count"),
            ("unit_price", "value"),
        ),
        {"sku": ("code", "SKU"), "unit_price": ("value", "unit price")},
    ),
)
"""The tables the tools return."""

_POINTERS = (
    "Keep the {key} {noun} in mind, I need its {col} for the call on {weekday}.",
    "Flag the {key} {noun} for me; the customer is going to ask about the {col}.",
    "The {key} one is the {noun} I care about. Its {col} goes in tonight's report.",
    "Did the {col} on the {key} {noun} look right to you? I'll go over it properly tomorrow.",
    "{key} is the {noun} my manager asked about, so hang on to that {col}.",
    "ok so for the {key} {noun}, the {col} is what I'll quote back to them later",
)
_POINTER_REPLIES = (
    "Will do, it's flagged.",
    "Okay, I'll keep that row to hand.",
    "It looked consistent with the rest. Marked for later.",
    "Sure, noted against that row.",
)


def render(fmt: str, columns: list[str], rows: list[list[Any]]) -> str:
    """A table as a tool returns it in ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "markdown":
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
        return "\n".join(lines)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        return out.getvalue().rstrip("\n")
    if fmt == "json-columns":
        return json.dumps({"columns": columns, "rows": rows})
    if fmt == "json-records":
        return json.dumps([dict(zip(columns, row, strict=True)) for row in rows])
    raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")


def _table(
    w: Writer, kind: TableKind, fmt: str
) -> tuple[list[str], list[list[Any]], Callable[[int, str], tuple[str, tuple[str, ...]]]]:
    """A fresh table of ``kind``; and how to read one cell's fact value and its aliases."""
    r = w.rng
    keys = r.sample(kind.keys, r.randint(5, min(30, len(kind.keys))))
    columns = [c for c, _ in kind.columns]
    forms: dict[tuple[int, str], tuple[str, tuple[str, ...]]] = {}
    rows: list[list[Any]] = []
    for i, key in enumerate(keys):
        row: list[Any] = []
        for column, fill in kind.columns:
            if fill == "key":
                row.append(key)
            elif isinstance(fill, tuple):
                row.append(r.choice(fill))
            elif fill == "count":
                row.append(r.randint(1, 400))
            else:
                make = {"code": w.code, "value": w.money, "name": w.person}.get(fill)
                value, aliases = make() if make else w.date(iso=True)
                forms[(i, column)] = (value, aliases)
                json_number = fill == "value" and fmt.startswith("json")
                row.append(float(value) if json_number else value)
        rows.append(row)
    return columns, rows, lambda i, column: forms[(i, column)]


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` planted tables (each asked after later) among filler tables and reports."""
    if turns < 3 * facts:
        raise ValueError(f"tables needs turns >= 3 * facts, got {turns=} {facts=}")
    plan: dict[int, Any] = {}
    starts = sorted(rng.sample(range(turns - 7), facts))
    for n, start in enumerate(starts):
        at = start
        while at in plan:
            at += 1
        later = [t for t in range(at + 1, min(turns, at + 8)) if t not in plan]
        if not later:  # pragma: no cover - crowded plans
            continue
        plan[at] = ("table", n)
        plan[rng.choice(later)] = ("pointer", n)
    w = Writer(rng)
    pointers: dict[int, tuple[str, str, str]] = {}
    formats = [FORMATS[i % len(FORMATS)] for i in range(facts)]
    rng.shuffle(formats)
    for t in range(turns):
        w.begin()
        step = plan.get(t)
        if step is None:
            if rng.random() < 0.3:
                _filler_table(w)
            else:
                w.small_talk()
            continue
        mode, n = step
        if mode == "pointer":
            key, noun, col = pointers.pop(n)
            frame = rng.choice(_POINTERS)
            text = w.fill(frame.replace("{key}", key).replace("{noun}", noun).replace("{col}", col))
            w.say("user", text[0].upper() + text[1:])
            w.say("assistant", rng.choice(_POINTER_REPLIES))
            continue
        kind = rng.choice(KINDS)
        fmt = formats[n]
        columns, rows, fact_of = _table(w, kind, fmt)
        column = rng.choice(sorted(kind.planted))
        fact_kind, col_noun = kind.planted[column]
        row = rng.randrange(len(rows))
        value, aliases = fact_of(row, column)
        w.say("user", rng.choice(kind.asks))
        where = w.call(f"list_{kind.noun.replace(' ', '_')}s", {"format": fmt}, "")
        w.messages[where]["content"] = render(fmt, columns, rows)
        w.say("assistant", f"{len(rows)} {kind.noun}s. " + rng.choice(_SUMMARIES))
        w.record(fact_kind, value, aliases, t, where)
        pointers[n] = (str(rows[row][0]), kind.noun, col_noun)
    return w


_SUMMARIES = (
    "Nothing stands out.",
    "A couple are running late, the rest look fine.",
    "That's everything on file.",
    "Sorted by the first column.",
)


def _filler_table(w: Writer) -> None:
    r = w.rng
    kind = r.choice(KINDS)
    fmt = r.choice(FORMATS)
    columns, rows, _ = _table(w, kind, fmt)
    w.say("user", r.choice(kind.asks))
    where = w.call(f"list_{kind.noun.replace(' ', '_')}s", {"format": fmt}, "")
    w.messages[where]["content"] = render(fmt, columns, rows)
    w.say("assistant", f"{len(rows)} {kind.noun}s. " + r.choice(_SUMMARIES))
