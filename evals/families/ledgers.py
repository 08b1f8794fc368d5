"""The ``ledgers`` style: a small business's back office, whose tools answer with tables.

Written with the summarizer's table rules in view (not held out): the held-out ``tables``
family (:mod:`evals.families.blind.tables`) is the other half of the check. Tool results
are tables of 4 to 24 rows in every shape a tool returns one: a markdown table, CSV, TSV,
JSON ``{"columns": [...], "rows": [[...]]}``, a JSON list of records, records under one key
beside paging fields, columns padded with spaces (as ``kubectl get`` prints them) or an HTML
``<table>``. For each planted table, a user turn 1 to 12 turns later names a row by
one of its cells (a client, a carrier, a colleague) and asks for something about another
column, without saying its value ("Chase the Okonkwo invoice, would you?"); the fact is that
other cell (a code, an amount, a date or a name). Filler: tables of the same shapes nobody
refers to again, the same tools called again with new rows, and the small talk and status
reports of :mod:`evals.families.blind.base`.
"""

from __future__ import annotations

import csv
import html
import io
import json
import random
from collections.abc import Callable
from typing import Any

from evals.families.blind.base import MONTHS, Writer, spread
from evals.families.facts import FactKind

__all__ = ["write"]

_CLIENTS = (
    "Okonkwo",
    "Vasquez Florists",
    "Brightwater",
    "Lindqvist",
    "Harcourt & Sons",
    "Tanaka Design",
    "Mossgrove",
    "Pemberton",
    "Quarry Lane",
    "Featherstone",
    "Adeyemi",
    "Kowalczyk",
    "Ridgeway Dental",
    "Sunniva",
    "Blackthorn",
    "Ferreira",
)
_CARRIERS = ("Parcelwise", "NorthLine", "Swiftpost", "Bluebox", "Roadrunner", "Kestrel Freight")
_ITEMS = (
    "copper elbow 15mm",
    "brass tap washer",
    "PTFE tape",
    "radiator valve",
    "waste trap",
    "push-fit tee",
    "flexible hose",
    "ball valve",
    "pipe clip",
    "thermostatic head",
    "solder ring",
    "isolation valve",
)

_ASKS: dict[str, tuple[str, ...]] = {
    "invoices": (
        "Chase the {key} invoice, would you? They're always late.",
        "Did the {key} one go out with the right terms?",
        "Put a note on {key}'s invoice that I called them.",
    ),
    "deliveries": (
        "Which of those is the {key} parcel? I'll need it for the claim.",
        "Keep an eye on the {key} delivery for me.",
        "The {key} one is the boiler part, flag it.",
    ),
    "rota": (
        "{key} is covering for me, make sure they have what they need.",
        "Let {key} know I'm moving their shift next week.",
        "Can you check {key} is ok with that slot?",
    ),
    "stock": (
        "We'll need the {key} for the Marsh Lane job.",
        "Reserve the {key} for me, I'll collect.",
        "How long until the {key} runs out, roughly?",
    ),
}
_LOOKUPS: dict[str, tuple[str, dict[str, Any]]] = {
    "invoices": ("list_invoices", {"status": "open"}),
    "deliveries": ("track_parcels", {"days": 14}),
    "rota": ("staff_rota", {"week": "next"}),
    "stock": ("stock_levels", {"site": "van"}),
}
_ACKS = ("Will do.", "Noted.", "On it.", "Done, I've made a note.", "Sure.")


class _Ledger(Writer):
    shapes: dict[tuple[str, ...], int]
    """The shape each header was last rendered in (a tool answers in one shape)."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.shapes = {}

    system = (
        "You are Ledger, the back-office assistant of a small plumbing business: invoices, "
        "deliveries, the staff rota and van stock. Be brief."
    )

    def table(self, kind: str) -> tuple[list[str], list[list[str]], int, int, FactKind]:
        """Header, rows, the key column, the fact column and its kind."""
        r = self.rng
        n = r.randint(4, 24)
        if kind == "invoices":
            header = ["invoice", "client", "amount", "due"]
            names = r.sample(_CLIENTS, min(n, len(_CLIENTS)))
            rows = [[self.code()[0], c, self.money()[0], self.date(iso=True)[0]] for c in names]
            col = r.choice((0, 2, 3))
            return header, rows, 1, col, ("code", "value", "date")[(0, 2, 3).index(col)]
        if kind == "deliveries":
            header = ["carrier", "tracking", "eta", "contents"]
            rows = [
                [
                    r.choice(_CARRIERS) + f" {i + 1}",
                    self.code()[0],
                    self.date()[0],
                    r.choice(_ITEMS),
                ]
                for i in range(n)
            ]
            col = r.choice((1, 2))
            return header, rows, 0, col, "code" if col == 1 else "date"
        if kind == "rota":
            header = ["engineer", "shift", "van", "standby contact"]
            shifts = ("early", "late", "night")
            rows = [
                [self.person()[0], r.choice(shifts), f"V{r.randint(10, 99)}", self.person()[0]]
                for _ in range(n)
            ]
            return header, rows, 0, 3, "name"
        header = ["item", "bin", "qty", "reorder by"]
        items = r.sample(_ITEMS, min(n, len(_ITEMS)))
        rows = [[it, self.code()[0], str(r.randint(0, 40)), self.date(iso=True)[0]] for it in items]
        col = r.choice((1, 3))
        return header, rows, 0, col, "code" if col == 1 else "date"

    def render(self, header: list[str], rows: list[list[str]], shape: int | None = None) -> str:
        """The table in one of eight shapes (``shape``, or drawn); :attr:`shapes` records it."""
        r = self.rng
        shape = r.randrange(8) if shape is None else shape
        self.shapes[tuple(header)] = shape
        if shape == 6:  # columns padded with spaces, as a command-line tool prints them
            widths = [
                max(len(x) for x in col) + r.randint(2, 4)
                for col in zip(header, *rows, strict=True)
            ]
            return "\n".join(
                "".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
                for line in [header, *rows]
            )
        if shape == 7:
            cells = "".join(f"<th>{h}</th>" for h in header)
            body = "".join(
                "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                for row in rows
            )
            return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"
        if shape == 0:
            lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(row) + " |" for row in rows]
            return "\n".join(lines)
        if shape in (1, 2):
            out = io.StringIO()
            w = csv.writer(out, delimiter="," if shape == 1 else "\t", lineterminator="\n")
            w.writerow(header)
            w.writerows(rows)
            return out.getvalue()
        if shape == 3:
            return json.dumps({"columns": header, "rows": rows})
        records = [dict(zip(header, row, strict=True)) for row in rows]
        if shape == 4:
            return json.dumps(records)
        return json.dumps({"results": records, "page": 1, "more": False})

    def lookup(self, kind: str) -> tuple[list[str], list[list[str]], int, int, FactKind, int]:
        tool, args = _LOOKUPS[kind]
        header, rows, key, col, fact_kind = self.table(kind)
        self.say(
            "user", self.rng.choice(("Show me the list.", "Pull that up.", f"What's on {tool}?"))
        )
        where = self.call(tool, args, self.render(header, rows))
        self.say("assistant", f"Here you go, {len(rows)} rows.")
        return header, rows, key, col, fact_kind, where


def _date_forms(value: str) -> tuple[str, ...]:
    """The other ways :meth:`Writer.date` writes the date ``value`` (ISO or prose)."""
    for m, month in enumerate(MONTHS, 1):
        for year in range(2026, 2029):
            for day in range(1, 29):
                forms = (
                    f"{day} {month} {year}",
                    f"{month} {day}, {year}",
                    f"{year}-{m:02d}-{day:02d}",
                )
                if value in forms:
                    return tuple(f for f in forms if f != value)
    return ()


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """A ``turns``-turn conversation planting ``facts`` table cells."""
    w = _Ledger(rng)
    at = spread(rng, turns - 14, facts, gap=6)
    asks: dict[int, Callable[[], None]] = {}
    kinds = list(_LOOKUPS)
    for t in range(turns):
        w.begin()
        if t in asks:
            asks.pop(t)()
        elif t in at:
            kind = rng.choice(kinds)
            _header, rows, key, col, fact_kind, where = w.lookup(kind)
            i = rng.randrange(len(rows))
            value = rows[i][col]
            aliases = _date_forms(value) if fact_kind == "date" else ()
            w.record(fact_kind, value, aliases, t, where)
            ref = rows[i][key]
            later = t + rng.randint(1, 12)
            while later in asks or later in at:
                later += 1

            def ask(ref: str = ref, kind: str = kind) -> None:
                w.say("user", rng.choice(_ASKS[kind]).format(key=ref))
                w.say("assistant", rng.choice(_ACKS))

            asks[later] = ask
        elif rng.random() < 0.25:
            w.lookup(rng.choice(kinds))  # a table nobody comes back to
        else:
            w.small_talk()
    for t in sorted(asks):  # a reference planned past the last turn
        w.begin()
        asks.pop(t)()
    return w


def write_updates(rng: random.Random, turns: int, facts: int) -> Writer:
    """The ``ledger-updates`` style: a list fetched again with the cell of a named row changed.

    For each planted fact a list is shown, a user turn 1 to 3 turns later names a row of it
    (as in :func:`write`), the same tool is called again 1 to 4 turns after that and answers
    with the same rows, that row's fact cell changed (an invoice's amount or due date, a
    parcel's new tracking code or ETA, a new standby contact, a new bin or reorder date) and,
    for stock, other rows' quantities; most of the time a user turn names the row again after
    the new list. The fact is the new cell; the old one is its stale value. Filler as in
    :func:`write`.
    """
    w = _Ledger(rng)
    at = set(spread(rng, turns - 24, facts, gap=6))
    events: dict[int, Callable[[], None]] = {}
    kinds = list(_LOOKUPS)

    def free(t: int) -> int:
        while t in events or t in at:
            t += 1
        return t

    def plant(t: int) -> None:
        kind = rng.choice(kinds)
        header, rows, key, col, fact_kind, where = w.lookup(kind)
        i = rng.randrange(len(rows))
        old, ref = rows[i][col], rows[i][key]
        first = free(t + rng.randint(1, 3))
        events[first] = lambda: ask(ref, kind)
        again = free(first + rng.randint(1, 4))
        events[again] = lambda: refetch(kind, header, rows, i, col, fact_kind, old, where)
        if rng.random() < 0.7:
            events[free(again + rng.randint(1, 6))] = lambda: ask(ref, kind)

    def ask(ref: str, kind: str) -> None:
        w.say("user", rng.choice(_ASKS[kind]).format(key=ref))
        w.say("assistant", rng.choice(_ACKS))

    def refetch(
        kind: str,
        header: list[str],
        rows: list[list[str]],
        i: int,
        col: int,
        fact_kind: FactKind,
        old: str,
        stale_at: int,
    ) -> None:
        make = {"code": w.code, "value": w.money, "name": w.person}.get(fact_kind)
        value = make()[0] if make else w.date(iso=kind in ("invoices", "stock"))[0]
        new = [list(row) for row in rows]
        new[i][col] = value
        if kind == "stock":
            for row in new:
                if rng.random() < 0.3:
                    row[2] = str(rng.randint(0, 40))
        tool, args = _LOOKUPS[kind]
        w.say("user", rng.choice(("Refresh that list.", "Pull it up again?", f"Run {tool} again.")))
        where = w.call(tool, args, w.render(header, new, w.shapes[tuple(header)]))
        w.say("assistant", rng.choice(("Updated list.", "Here it is again.", "Refreshed.")))
        aliases = _date_forms(value) if fact_kind == "date" else ()
        now = len(w.turn_starts) - 1
        w.record(fact_kind, value, aliases, now, where, stale=old, stale_index=stale_at)

    for t in range(turns):
        w.begin()
        if t in events:
            events.pop(t)()
        elif t in at:
            plant(t)
        elif rng.random() < 0.25:
            w.lookup(rng.choice(kinds))  # a table nobody comes back to
        else:
            w.small_talk()
    for t in sorted(events):  # planned past the last turn
        w.begin()
        events.pop(t)()
    return w
