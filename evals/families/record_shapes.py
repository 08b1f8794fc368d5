"""The ``record-shapes`` style: the back office of :mod:`.ledgers`, its tools printing records.

Own (not held out), written for round 14 with the table reader in view. Where ``ledgers``
answers in markdown, CSV and JSON, here the same tools print their lists as command-line
programs and exports do, 3 to 5 rows each, a free-text ``note`` column last:

- columns one space apart (a quick ``print(*row)``), the note holding spaces;
- a fixed-width report: a title, columns padded, a rule, and a totals line;
- a report grouped by one column: the group's name on a line of its own, its rows indented
  under it (cells two spaces apart), a count line after each group and a grand total;
- JSON Lines, XML records, ``key: value`` blocks one per record, and a YAML list of mappings.

For each planted table, a quarter of the time the user's request for it names the row ("Run
list_invoices for me, I want the Okonkwo one."); otherwise a user turn 1 to 12 turns later (a
third of them 20 to 40 turns later) names a row by its key cell and asks about it without
saying the fact, another cell of that row. Filler: tables of the same shapes nobody refers to
again and the small talk of :mod:`evals.families.blind.base`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from xml.sax.saxutils import escape

from evals.families.blind.base import spread
from evals.families.facts import FactKind
from evals.families.ledgers import _ACKS, _ASKS, _LOOKUPS, _date_forms, _Ledger

__all__ = ["SHAPES", "write"]

SHAPES = ("spaced", "fixed", "grouped", "jsonl", "xml", "blocks", "yaml")
_NOTES = (
    "rang twice, no answer",
    "wants it before the bank holiday",
    "left with the neighbour",
    "second reminder sent",
    "new address from March",
    "check the gate code",
    "paid the deposit by card",
    "asked for the same engineer",
    "fragile, double box it",
    "ok",
)
_AREAS = ("North", "South", "Riverside", "Old Town")
_TITLES = {
    "invoices": "OPEN INVOICES",
    "deliveries": "PARCELS IN TRANSIT",
    "rota": "ROTA, NEXT WEEK",
    "stock": "VAN STOCK",
}

_REQUESTS = (
    "Run {tool} for me, I want the {key} one.",
    "Print the list, I'm after the {key} one.",
    "Pull up {tool}, what does it say for {key}?",
)
_TAGS = {"invoices": "invoice", "deliveries": "parcel", "rota": "slot", "stock": "item"}


class _Records(_Ledger):
    def small_table(self, kind: str) -> tuple[list[str], list[list[str]], int, int, FactKind]:
        """A table of :meth:`_Ledger.table` cut to 3-5 rows, an ``area`` and a ``note`` added."""
        header, rows, key, col, fact_kind = self.table(kind)
        r = self.rng
        rows = rows[: r.randint(3, 5)]
        rows = [[*row, r.choice(_AREAS), r.choice(_NOTES)] for row in rows]
        return [*header, "area", "note"], rows, key, col, fact_kind

    def print_records(self, kind: str, header: list[str], rows: list[list[str]]) -> str:
        """The table in one of :data:`SHAPES`, drawn."""
        shape = self.rng.choice(SHAPES)
        keys = [h.replace(" ", "_") for h in header]
        if shape == "spaced":
            return "\n".join(" ".join(line) for line in [keys, *rows])
        if shape == "fixed":
            widths = [max(len(x) for x in col) + 2 for col in zip(keys, *rows, strict=True)]
            lines = [
                "".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
                for line in [[k.upper() for k in keys], *rows]
            ]
            rule = "-" * max(len(line) for line in lines)
            return "\n".join(
                [_TITLES[kind], "", lines[0], rule, *lines[1:], rule, f"{len(rows)} listed"]
            )
        if shape == "grouped":
            g = keys.index("area")
            out = [f"{_TITLES[kind]} BY AREA", ""]
            for area in sorted({row[g] for row in rows}):
                members = [row for row in rows if row[g] == area]
                out.append(area)
                out += [
                    "    " + "  ".join(c for j, c in enumerate(row) if j != g) for row in members
                ]
                out += [f"    {len(members)} in {area}", ""]
            out.append(f"ALL AREAS  {len(rows)}")
            return "\n".join(out)
        records = [dict(zip(keys, row, strict=True)) for row in rows]
        if shape == "jsonl":
            return "\n".join(json.dumps(rec) for rec in records)
        if shape == "xml":
            tag = _TAGS[kind]
            inner = "".join(
                f"<{tag}>"
                + "".join(f"<{k}>{escape(v)}</{k}>" for k, v in rec.items())
                + f"</{tag}>"
                for rec in records
            )
            return f"<{kind}>{inner}</{kind}>"
        if shape == "blocks":
            return "\n\n".join("\n".join(f"{k}: {v}" for k, v in rec.items()) for rec in records)
        lines = [f"{kind}:"]
        for rec in records:
            first = True
            for k, v in rec.items():
                lines.append(f"  {'- ' if first else '  '}{k}: {json.dumps(v)}")
                first = False
        return "\n".join(lines)


def write(rng: random.Random, turns: int, facts: int) -> _Ledger:
    """A ``turns``-turn conversation planting ``facts`` cells of tables in the shapes above."""
    w = _Records(rng)
    at = spread(rng, turns - 44, facts, gap=6)
    asks: dict[int, Callable[[], None]] = {}
    kinds = list(_LOOKUPS)

    def show(
        kind: str, asked: int | None = None
    ) -> tuple[list[str], list[list[str]], int, int, FactKind, int]:
        """A table shown; with ``asked``, the request names that row by its key cell."""
        header, rows, key, col, fact_kind = w.small_table(kind)
        tool, args = _LOOKUPS[kind]
        if asked is None:
            request = rng.choice(("Print me the list.", "Pull that up.", f"What's on {tool}?"))
        else:
            name = rows[min(asked, len(rows) - 1)][key]
            request = rng.choice(_REQUESTS).format(tool=tool, key=name)
        w.say("user", request)
        where = w.call(tool, args, w.print_records(kind, header, rows))
        w.say("assistant", f"Here you go, {len(rows)} records.")
        return header, rows, key, col, fact_kind, where

    for t in range(turns):
        w.begin()
        if t in asks:
            asks.pop(t)()
        elif t in at:
            kind = rng.choice(kinds)
            asked = rng.randrange(3) if rng.random() < 0.25 else None
            _header, rows, key, col, fact_kind, where = show(kind, asked)
            i = rng.randrange(len(rows)) if asked is None else asked
            value = rows[i][col]
            aliases = _date_forms(value) if fact_kind == "date" else ()
            w.record(fact_kind, value, aliases, t, where)
            if asked is not None:  # named in the request: nobody comes back to it
                continue
            ref = rows[i][key]
            later = t + (rng.randint(20, 40) if rng.random() < 1 / 3 else rng.randint(1, 12))
            while later in asks or later in at:
                later += 1

            def ask(ref: str = ref, kind: str = kind) -> None:
                w.say("user", rng.choice(_ASKS[kind]).format(key=ref))
                w.say("assistant", rng.choice(_ACKS))

            asks[later] = ask
        elif rng.random() < 0.25:
            show(rng.choice(kinds))  # a table nobody comes back to
        else:
            w.small_talk()
    for t in sorted(asks):  # a reference planned past the last turn
        w.begin()
        asks.pop(t)()
    return w
