"""The ``tool-shapes`` style: the back office of :mod:`.ledgers`, its tools answering as APIs do.

Own (not held out), written for round 12 with the table reader in view. Where ``ledgers``
shows tables in the shapes a reader has long read (markdown, CSV, flat JSON records...), here
the same tools answer in the shapes a real agent also gets and the reader did not read:

- JSON records nesting deeper than two levels: a CRM's ``{"data": {"results": [{"id": ...,
  "properties": {"client": {"value": ...}}}]}}`` and an orchestrator's list of items whose
  ``spec`` holds a list of one object holding objects (``kubectl get -o json``);
- a list whose rows are told apart by a free-text cell: jobs and e-mails, each with a
  description or subject of several words, named later by one word of it ("the Marsh Lane
  job", "the one about the descaler");
- a comparison printed transposed: one column per supplier, the fields down the first column;
  the user takes one supplier, and the fact is a cell of its column.

For each planted table a user turn 1 to 12 turns later names a row (as in ``ledgers``) and asks
for something about it without saying the fact, another cell of that row. Filler: tables of the
same shapes nobody refers to again and the small talk of :mod:`evals.families.blind.base`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from evals.families.blind.base import Writer, spread
from evals.families.facts import FactKind
from evals.families.ledgers import _ACKS, _ASKS, _LOOKUPS, _Ledger

__all__ = ["write"]

_PLACES = (
    "Marsh Lane",
    "Harbour Court",
    "Elm Terrace",
    "Station Road",
    "Quarry Hill",
    "Mill Street",
    "Orchard Close",
    "Bridge House",
    "Castle Mews",
    "Foundry Yard",
    "Willow Crescent",
    "Chapel Row",
)
_JOBS = (
    "replace the pressure valve at {place}",
    "power flush of the radiators at {place}",
    "boiler service for the landlord at {place}",
    "fix the leaking stopcock at {place}",
    "fit a new cylinder thermostat at {place}",
    "unblock the kitchen drain at {place}",
)
_SUBJECTS = (
    ("descaler", "Quote for the descaler order"),
    ("warranty", "Warranty claim on the Vaillant boiler"),
    ("scaffolding", "Scaffolding hire for the roof job"),
    ("insurance", "Your van insurance renewal"),
    ("overpayment", "Refund of the overpayment"),
    ("apprentice", "Apprentice interview next week"),
    ("skip", "Skip collection moved to Friday"),
    ("radiators", "Designer radiators brochure"),
    ("pension", "Workplace pension contribution"),
    ("tiles", "Tiles for the bathroom refit"),
    ("invoice", "Invoice query from the council"),
    ("parking", "Parking permit for the Old Town job"),
)
_SUPPLIERS = (
    "Plumbfast",
    "AquaFix",
    "Drainmasters",
    "Copperline",
    "Heatwise",
    "BoilerBros",
    "FlowRight",
)
_FREE_ASKS: dict[str, tuple[str, ...]] = {
    "jobs": (
        "Who's doing the {key} job?",
        "Move the {key} one back a week, would you?",
        "The {key} job needs two people, flag it.",
    ),
    "emails": (
        "Reply to the {key} one, say I'll call tomorrow.",
        "Forward the email about the {key} to my accountant.",
        "Which one was the {key} mail? Star it.",
    ),
    "quotes": (
        "Go with {key}, book them in.",
        "Let's take the {key} quote.",
        "{key} it is, confirm with them.",
    ),
}
_FREE_LOOKUPS: dict[str, tuple[str, dict[str, Any]]] = {
    "jobs": ("list_jobs", {"week": "current"}),
    "emails": ("search_mail", {"folder": "inbox", "unread": True}),
    "quotes": ("compare_quotes", {"job": "bathroom refit"}),
}


class _Shapes(_Ledger):
    def free_table(self, kind: str) -> tuple[list[str], list[list[str]], str, int, FactKind]:
        """Header, rows, how the user names the fact's row, the fact column and its kind.

        The row is drawn by the caller; the name is a word of a free-text cell, or a
        supplier's name (a transposed table's column).
        """
        r = self.rng
        if kind == "jobs":
            n = r.randint(5, 12)
            places = r.sample(_PLACES, n)
            header = ["job", "description", "engineer", "date"]
            rows = [
                [self.code()[0], r.choice(_JOBS).format(place=p), self.person()[0], self.date()[0]]
                for p in places
            ]
            col = r.choice((0, 2, 3))
            return header, rows, "{place}", col, ("code", "name", "date")[(0, 2, 3).index(col)]
        if kind == "emails":
            n = r.randint(5, 12)
            picked = r.sample(_SUBJECTS, n)
            header = ["id", "from", "subject", "received"]
            rows = [[self.code()[0], self.person()[0], s, self.date()[0]] for _, s in picked]
            col = r.choice((0, 1))
            return header, rows, "{word}", col, ("code", "name")[col]
        n = r.randint(3, 5)
        names = r.sample(_SUPPLIERS, n)
        header = ["supplier", "quote ref", "price", "available from"]
        rows = [[s, self.code()[0], self.money()[0], self.date()[0]] for s in names]
        col = r.choice((1, 2, 3))
        return header, rows, "{supplier}", col, ("code", "value", "date")[col - 1]

    def render_deep(self, header: list[str], rows: list[list[str]], key: int) -> str:
        """Records nested three levels or more, as a CRM or an orchestrator answers."""
        r = self.rng
        if r.random() < 0.5:
            results = [
                {
                    "id": str(r.randint(10**8, 10**9)),
                    "properties": {
                        h: {"value": c, "source": "import"}
                        for h, c in zip(header, row, strict=True)
                    },
                    "archived": False,
                }
                for row in rows
            ]
            body: dict[str, Any] = {"data": {"results": results, "paging": {"next": None}}}
            return json.dumps(body)
        items = []
        for row in rows:
            others = {h: c for j, (h, c) in enumerate(zip(header, row, strict=True)) if j != key}
            items.append(
                {
                    "metadata": {"name": row[key], "labels": {"team": "ops"}},
                    "spec": {"entries": [{"fields": others, "meta": {"version": 1}}]},
                    "status": {"phase": "Active"},
                }
            )
        return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})

    def render_transposed(self, header: list[str], rows: list[list[str]]) -> str:
        """One column per record (the first cells), the fields down the first column."""
        lines = ["| " + " | ".join(["", *(row[0] for row in rows)]) + " |"]
        lines.append("|" + "---|" * (len(rows) + 1))
        for j in range(1, len(header)):
            lines.append("| " + " | ".join([header[j], *(row[j] for row in rows)]) + " |")
        return "\n".join(lines)


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """A ``turns``-turn conversation planting ``facts`` cells of tables in the shapes above."""
    w = _Shapes(rng)
    at = spread(rng, turns - 14, facts, gap=6)
    asks: dict[int, Callable[[], None]] = {}
    deep_kinds = list(_LOOKUPS)
    free_kinds = list(_FREE_LOOKUPS)

    def show(kind: str) -> tuple[list[str], list[list[str]], str, int, FactKind, int]:
        """A table shown: header, rows, the naming template, fact column and kind, its index."""
        if kind in _LOOKUPS:
            header, rows, key, col, fact_kind = w.table(kind)
            tool, args = _LOOKUPS[kind]
            text = w.render_deep(header, rows, key)
            template = f"{{key{key}}}"
        else:
            header, rows, template, col, fact_kind = w.free_table(kind)
            tool, args = _FREE_LOOKUPS[kind]
            text = (
                w.render_transposed(header, rows) if kind == "quotes" else _markdown(header, rows)
            )
        w.say("user", rng.choice(("Show me the list.", "Pull that up.", f"What's on {tool}?")))
        where = w.call(tool, args, text)
        w.say("assistant", f"Here you go, {len(rows)} rows.")
        return header, rows, template, col, fact_kind, where

    for t in range(turns):
        w.begin()
        if t in asks:
            asks.pop(t)()
        elif t in at:
            kind = rng.choice(deep_kinds + free_kinds)
            _header, rows, template, col, fact_kind, where = show(kind)
            i = rng.randrange(len(rows))
            value = rows[i][col]
            w.record(fact_kind, value, (), t, where)
            ref = _reference(kind, template, rows, i)
            later = t + rng.randint(1, 12)
            while later in asks or later in at:
                later += 1

            def ask(ref: str = ref, kind: str = kind) -> None:
                pool = _ASKS.get(kind) or _FREE_ASKS[kind]
                w.say("user", rng.choice(pool).format(key=ref))
                w.say("assistant", rng.choice(_ACKS))

            asks[later] = ask
        elif rng.random() < 0.25:
            show(rng.choice(deep_kinds + free_kinds))  # a table nobody comes back to
        else:
            w.small_talk()
    for t in sorted(asks):  # a reference planned past the last turn
        w.begin()
        asks.pop(t)()
    return w


def _reference(kind: str, template: str, rows: list[list[str]], i: int) -> str:
    """How the user names row ``i``: its key cell, a word of its free text, or its supplier."""
    if template.startswith("{key"):
        return rows[i][int(template[4:-1])]
    if kind == "jobs":
        return next(p for p in _PLACES if p in rows[i][1])
    if kind == "emails":
        return next(word for word, subject in _SUBJECTS if subject == rows[i][2])
    return rows[i][0]


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
