"""``b12-tables``: a boatyard's berths, lift-outs and invoices printed the way real tools print.

The marina manager asks a ``yard`` tool for a list; it answers in one of seven shapes
(:data:`FORMATS`): a psql table, a mysql boxed table, ``kubectl get``-style columns (runs of
spaces, one space where a column is widest), CSV with quoted commas, JSON nested four levels,
a YAML list of records, a transposed table (one column a boat), or a report grouped under each
pontoon with a subtotal line. Each table plants one cell of one row: its code, amount or date.
The manager names that row by its boat or by a word in its free-text notes, in the request,
1-3 turns after or 30-90 turns later; never by the cell. A planted row's boat and notes are
printed once in the conversation; other rows are other boats with fresh cells.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence

from evals.families.blind6.base import Collision, build, timeline
from evals.families.blind12.base import Writer12, writer
from evals.families.facts import FactKind
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["BOATS", "DATASETS", "FORMATS", "NOTES", "generate", "render"]

BOATS = (
    "Kittiwake", "Sea Pie", "Morwenna", "Blue Heron", "Curlew", "Puffin Lass", "Sundowner",
    "Marram", "Whimbrel", "Tern Again", "Lark Rise", "Halcyon", "Selkie", "Dunlin", "Gannet",
    "Wild Thyme", "Saltings", "Bryher", "Godrevy", "Samphire", "Wagtail", "Ebb Tide", "Fulmar",
    "Jolly Roger", "Moonraker", "Nimbus", "Osprey", "Pelorus", "Quicksilver", "Redshank",
    "Shearwater", "Tamarisk", "Velella", "Windflower", "Yarrow", "Zephyrine", "Avocet", "Bosun",
    "Cormorant", "Driftwood",
)  # fmt: skip
"""Boat names: each table's rows."""

NOTES = (
    ("rudder bearing worn, owner told", "rudder bearing"),
    ("needs antifouling before launch", "antifouling"),
    ("owner abroad, contact via daughter", "owner abroad"),
    ("solar panel fitted on the pushpit", "solar panel"),
    ("cracked windscreen, quote sent", "cracked windscreen"),
    ("engine won't turn over", "engine won't turn over"),
    ("liveaboard, post held in office", "liveaboard"),
    ("new sprayhood on order", "sprayhood"),
    ("keel bolts to be checked", "keel bolts"),
    ("mast down for rewiring", "mast down"),
    ("leaking stern gland", "stern gland"),
    ("seacocks seized, do not lift yet", "seacocks"),
    ("blisters on hull, survey booked", "blisters"),
    ("dog aboard, barks at staff", "dog aboard"),
    ("prop fouled with rope", "prop fouled"),
    ("for sale, viewings via office", "for sale"),
    ("broken bilge pump, float switch", "bilge pump"),
    ("heater serviced, gas cert due", "gas cert"),
    ("teak deck recaulking", "teak deck"),
    ("outboard stolen, police informed", "outboard stolen"),
    ("osmosis treatment, drying out", "osmosis treatment"),
    ("furler jammed, rigger called", "furler"),
    ("wasp nest in the boom", "wasp nest"),
    ("shore power lead melted", "shore power lead"),
)
"""``(notes cell, how the manager names it)``: free text a planted row carries."""

FILLER_NOTES = ("", "ok", "standing order", "paid by card", "annual", "chased once", "-")

DATASETS: dict[str, tuple[str, ...]] = {
    "berths": ("boat", "pontoon", "berth", "holder_ref", "annual_fee", "paid_until", "notes"),
    "lifts": ("boat", "area", "stand", "job_no", "quote", "lift_date", "notes"),
    "invoices": ("boat", "account", "berth", "invoice", "amount", "due", "notes"),
}
"""Each list's columns: key, group, place, code, amount, date, notes."""

CODES = {"berths": "AA-9999", "lifts": "W99999", "invoices": "INV-99999"}
GROUPS = {"berths": "ABCD", "lifts": "NSEW", "invoices": "PQRT"}

FORMATS = ("psql", "mysql", "kubectl", "csv", "json", "yaml", "transposed", "grouped")
"""The shapes the ``yard`` tool prints."""

Row = list[str]
KINDS3: tuple[FactKind, ...] = ("code", "value", "date")


def _widths(rows: Sequence[Row]) -> list[int]:
    return [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]


def _cell(c: str, width: int, k: int) -> str:
    """A cell padded to ``width``: amounts (column 4) to the right, as a database prints them."""
    return c.rjust(width) if k == 4 and c[:1].isdigit() else c.ljust(width)


def _psql(cols: Sequence[str], rows: Sequence[Row]) -> str:
    w = _widths([list(cols), *rows])

    def line(r: Sequence[str]) -> str:
        return " " + " | ".join(_cell(c, w[k], k) for k, c in enumerate(r)).rstrip()

    rule = "-+-".join("-" * x for x in w)
    return "\n".join([line(cols), f"-{rule}-", *map(line, rows), f"({len(rows)} rows)"])


def _mysql(cols: Sequence[str], rows: Sequence[Row]) -> str:
    w = _widths([list(cols), *rows])
    rule = "+" + "+".join("-" * (x + 2) for x in w) + "+"

    def line(r: Sequence[str]) -> str:
        return "| " + " | ".join(_cell(c, w[k], k) for k, c in enumerate(r)) + " |"

    body = [rule, line(cols), rule, *map(line, rows), rule]
    return "\n".join([*body, f"{len(rows)} rows in set (0.01 sec)"])


def _kubectl(cols: Sequence[str], rows: Sequence[Row]) -> str:
    head = [c.upper().replace("_", "-") for c in cols]
    w = _widths([head, *rows])
    gaps = [3] * len(cols)
    gaps[5] = 1  # the widest column sits one space from the next
    out = []
    for r in [head, *rows]:
        out.append("".join(c.ljust(w[k] + gaps[k]) for k, c in enumerate(r)).rstrip())
    return "\n".join(out)


def _csv(cols: Sequence[str], rows: Sequence[Row]) -> str:
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(cols)
    out.writerows(rows)
    return buf.getvalue().rstrip("\n")


def _json(name: str, cols: Sequence[str], rows: Sequence[Row]) -> str:
    groups: dict[str, list[dict[str, object]]] = {}
    for r in rows:
        groups.setdefault(r[1], []).append(
            {
                "name": r[0],
                "where": {cols[2]: r[2]},
                "billing": {
                    cols[3]: r[3],
                    cols[4]: {"amount": float(r[4]), "currency": "GBP"},
                    cols[5]: r[5],
                },
                "notes": r[6],
            }
        )
    data = {"yard": {"list": name, cols[1] + "s": {g: {"boats": b} for g, b in groups.items()}}}
    return json.dumps(data, indent=2)


def _yaml(cols: Sequence[str], rows: Sequence[Row]) -> str:
    out = []
    for r in rows:
        for k, (c, v) in enumerate(zip(cols, r, strict=True)):
            shown = f'"{v}"' if ("," in v or ":" in v or v in ("", "-")) else v
            out.append(f"{'- ' if k == 0 else '  '}{c}: {shown}")
    return "\n".join(out)


def _transposed(cols: Sequence[str], rows: Sequence[Row]) -> str:
    table = [[c, *(r[k] for r in rows)] for k, c in enumerate(cols)]
    w = [max(len(t[j]) for t in table) for j in range(len(table[0]))]
    return "\n".join("  ".join(c.ljust(w[j]) for j, c in enumerate(t)).rstrip() for t in table)


def _grouped(name: str, cols: Sequence[str], rows: Sequence[Row]) -> str:
    groups: dict[str, list[Row]] = {}
    for r in sorted(rows, key=lambda r: r[1]):
        groups.setdefault(r[1], []).append(r)
    shown = [[r[0], r[2], r[3], r[4], r[5], r[6]] for r in rows]
    w = _widths(shown)
    title = f"{name.upper()} BY {cols[1].upper()}"
    out = [title, "=" * len(title)]
    total = 0.0
    for g, rs in groups.items():
        out.append(f"{cols[1].capitalize()} {g}")
        for r in rs:
            cells = [r[0], r[2], r[3], r[4].rjust(w[3]), r[5], r[6]]
            out.append("  " + "  ".join(c.ljust(w[k]) for k, c in enumerate(cells)).rstrip())
        sub = sum(float(r[4]) for r in rs)
        total += sub
        out.append(f"  {'subtotal'.ljust(w[0] + w[1] + w[2] + 4)}  {f'{sub:.2f}'.rjust(w[3])}")
    out.append(f"TOTAL {total:.2f} over {len(rows)} boats")
    return "\n".join(out)


def render(shape: str, name: str, rows: Sequence[Row]) -> str:
    """``rows`` of list ``name`` in ``shape`` (one of :data:`FORMATS`)."""
    cols = DATASETS[name]
    if shape == "psql":
        return _psql(cols, rows)
    if shape == "mysql":
        return _mysql(cols, rows)
    if shape == "kubectl":
        return _kubectl(cols, rows)
    if shape == "csv":
        return _csv(cols, rows)
    if shape == "json":
        return _json(name, cols, rows)
    if shape == "yaml":
        return _yaml(cols, rows)
    if shape == "transposed":
        return _transposed(cols, rows)
    return _grouped(name, cols, rows)


SYSTEM = "You help the manager of a small boatyard and marina. You can query the yard system."

ASKS = {
    "berths": ("pull up the berth list", "show me berth holders", "get the berths up"),
    "lifts": ("what's on the lift-out list", "show me the lift schedule", "get the lifts up"),
    "invoices": ("show me outstanding invoices", "pull the invoices", "get me the invoice list"),
}
SOON = (
    "and {k}, is that one sorted?",
    "which one was {k} again, the owner rang",
    "ok. keep an eye on {k} for me",
    "hang on, {k}, what's the story there",
)
LATER = (
    "going back to the {n} list from earlier, {k}. where are we with that",
    "the owner of {k} is in the office, what did the {n} list say",
    "remind me about {k} on the {n} list",
    "can you check {k} again from the {n} earlier, i need to call them",
)


def _write(w: Writer12, turns: int, facts: int) -> None:
    r = w.rng
    boats = list(BOATS)
    r.shuffle(boats)
    planted_boats, filler_boats = boats[:facts], boats[facts:]
    notes = r.sample(NOTES, min(facts, len(NOTES)))
    shapes = [FORMATS[k % len(FORMATS)] for k in range(facts)]
    r.shuffle(shapes)
    kinds: list[FactKind] = [KINDS3[k % 3] for k in range(facts)]
    r.shuffle(kinds)

    def amount() -> str:
        return w.fresh(lambda: f"{r.randint(180, 4800)}.{r.randint(1, 9)}{r.randint(1, 9)}")

    def date() -> str:
        return w.fresh(lambda: f"2027-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}")

    def row(name: str, boat: str, note: str) -> Row:
        group = r.choice(GROUPS[name])
        return [
            boat,
            group,
            f"{group}{r.randint(1, 40):02d}",
            w.code(CODES[name]),
            amount(),
            date(),
            note,
        ]

    def table(k: int) -> Callable[[], None]:
        def go() -> None:
            name = r.choice(tuple(DATASETS))
            boat = planted_boats[k]
            by_note = k < len(notes) and r.random() < 0.35
            note, handle = notes[k] if k < len(notes) else (r.choice(FILLER_NOTES), "")
            key = f"the {handle} one" if by_note else boat
            rows = [row(name, boat, note)]
            rows += [
                row(name, b, r.choice(FILLER_NOTES))
                for b in r.sample(filler_boats, r.randint(2, 4))
            ]
            r.shuffle(rows)
            col = {"code": 3, "value": 4, "date": 5}[kinds[k]]
            value = rows[next(j for j, x in enumerate(rows) if x[0] == boat)][col]
            aliases: tuple[str, ...] = ()
            if kinds[k] == "value":
                pounds, pence = value.split(".")
                aliases = (f"£{int(pounds):,}.{pence}",)
            elif kinds[k] == "date":
                y, m, d = value.split("-")
                month = MONTHS[int(m) - 1]
                aliases = (f"{int(d)} {month} {y}", f"{month} {int(d)}, {y}")
            when = r.choice(("before", "soon", "later"))
            ask = r.choice(ASKS[name])
            if when == "before":
                ask += r.choice((f", i want to look at {key}", f". mainly after {key}"))
            w.user(ask)
            text = render(shapes[k], name, rows)
            at = w.tool("yard", {"list": name, "format": shapes[k]}, text)
            if text.count(value) != 1:
                raise Collision(f"{value!r} twice in its own table")
            w.plant(kinds[k], value, at, aliases=aliases)
            w.say(
                "assistant",
                r.choice(("Here's the list.", "That's what the system has.", "Here you go.")),
            )
            if when == "soon":
                for _ in range(r.randint(0, 2)):
                    w.chatter()
                w.user(r.choice(SOON).replace("{k}", key))
                w.say("assistant", "It's in the list above. Want me to draft a note to the owner?")
            elif when == "later":
                pending.append((w.turn + r.randint(30, 90), name, key))

        return go

    pending: list[tuple[int, str, str]] = []

    def recall() -> None:
        due = [p for p in pending if p[0] <= w.turn + 1]
        if not due:
            w.chatter()
            return
        pending.remove(due[0])
        _, name, key = due[0]
        w.user(r.choice(LATER).replace("{k}", key).replace("{n}", name))
        w.say("assistant", "Let me look back at that list. It's all in the rows above.")

    slots = sorted(r.sample(range(1, turns - 20), facts))
    events: list[tuple[int, Callable[[], None]]] = [(s, table(k)) for k, s in enumerate(slots)]
    # later namings: checked at every turn as chatter
    events += [(t, recall) for t in range(0, turns, 3)]
    timeline(w, turns, events)
    for _, name, key in pending:  # any still owed, at the end
        w.user(r.choice(LATER).replace("{k}", key).replace("{n}", name))
        w.say("assistant", "It's in that list from earlier.")


def generate(seed: int, *, turns: int = 420, facts: int = 20) -> Trajectory:
    """One ``b12-tables`` conversation: ``facts`` tables over ``turns`` turns, one cell each."""
    return build(
        seed, "b12-tables", turns, facts, _write, SYSTEM, writer=writer("marina"), prefix="blind12"
    )
