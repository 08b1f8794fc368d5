"""``blind8-sheets``: a design studio's office listings, fetched again and again as they change.

The office manager pulls the same listings (purchase orders, client shipments, room bookings,
kit on loan, freelancers' invoices) several times over the conversation, each time in one of
five formats: a psql result grid, TSV, a YAML list of mappings, a fixed-width report with no
separators, or CSV with a header and a totals row. A newer listing repeats some rows as they
were, some with a changed amount or date (the fact's correction: ``stale`` the old cell), and
adds new ones. The fact is a cell of a row (its reference, or its amount or date); later the
user sometimes points at the row by a word of its key ("the Inkwell one"), sometimes by its
place ("the third one"), sometimes not at all, and never says the cell.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from evals.families.blind8.base import Writer, build
from evals.families.trajectories import Trajectory

__all__ = ["FORMATS", "KINDS", "generate"]

FORMATS = ("psql", "tsv", "yaml", "fixed", "csv")


@dataclass(frozen=True)
class Kind:
    """One listing: its columns (key, reference, a third cell, the cell that changes)."""

    name: str
    title: str
    headers: tuple[str, str, str, str]
    shape: str  # of the reference cell
    third: Callable[[random.Random], str]
    changes: str  # "money" or "date"
    keys: tuple[str, ...]
    ask: tuple[str, ...]


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(
            "orders",
            "PURCHASE ORDERS",
            ("supplier", "po", "qty", "total"),
            "PO-99999",
            lambda r: str(r.randint(2, 60)),
            "money",
            (
                "Inkwell Supplies", "Harbour Paper Co", "Northgate Office", "Larchmont Frames",
                "Quayside Print", "Mossgrove Stationers", "Tallyho Furniture", "Bluecap Toner",
                "Greyfriars Signs", "Copperleaf Packaging",
            ),
            ("pull up the open purchase orders", "what orders have we got going out",
             "can you get me the latest purchase orders", "orders list again please"),
        ),
        Kind(
            "shipments",
            "CLIENT SHIPMENTS",
            ("client", "tracking", "pieces", "eta"),
            "TRK99999999",
            lambda r: str(r.randint(1, 9)),
            "date",
            (
                "Bramblewood Hotels", "Saltire Gin", "Marrowfield Farms", "Pennycress Bakery",
                "Oakhurst Dental", "Wrenfield School", "Starling Cycles", "Halyard Sailing",
                "Juniper Yoga", "Fenwick Vets",
            ),
            ("where are the client deliveries at", "shipments please",
             "can you check on the parcels going out to clients", "latest on client shipments?"),
        ),
        Kind(
            "rooms",
            "ROOM BOOKINGS",
            ("room", "booking", "seats", "date"),
            "BK-9999",
            lambda r: str(r.randint(4, 24)),
            "date",
            (
                "Linden Room", "Attic Studio", "Glasshouse", "Boathouse Suite", "Library Nook",
                "Chapel Hall", "Orchard Room", "Mezzanine", "Courtyard Barn", "Signal Box",
            ),
            ("what have we got booked room-wise", "pull the room bookings",
             "can you list the rooms we've booked", "room bookings again?"),
        ),
        Kind(
            "loans",
            "EQUIPMENT ON LOAN",
            ("item", "asset", "team", "due"),
            "KIT-999",
            lambda r: r.choice(("design", "motion", "accounts", "print", "web", "studio")),
            "date",
            (
                "Camera body", "Drawing tablet", "Projector", "Tripod kit", "Light panel",
                "Portable drive", "Lapel mic", "Colour calibrator", "Laptop stand", "Gimbal",
            ),
            ("who's got what kit out", "equipment loans list please",
             "can you check what kit is signed out", "kit on loan, latest?"),
        ),
        Kind(
            "invoices",
            "FREELANCER INVOICES",
            ("freelancer", "invoice", "hours", "amount"),
            "INV-9999",
            lambda r: str(r.randint(3, 80)),
            "money",
            (
                "Quillfeather Studio", "Ravenscroft Motion", "Kettleby Type", "Marigold Copy",
                "Driftwood Sound", "Foxglove Illustration", "Ironbridge Code", "Sparrowhawk Photo",
                "Tidewater Edit", "Wildacre Animation",
            ),
            ("what freelancer invoices are outstanding", "pull the freelancer invoices",
             "invoices from freelancers, where are we", "can you list the freelancer bills"),
        ),
    )
}  # fmt: skip
"""The listings, by name."""

_PLACES = ("top", "second", "third", "fourth", "fifth", "sixth", "seventh")


@dataclass
class Row:
    key: str
    ref: str
    third: str
    change: str
    fact: int | None = None  # index in the writer's facts of the fact on ``change``
    code_fact: bool = False


@dataclass
class Sheet:
    kind: Kind
    rows: list[Row] = field(default_factory=list)  # every row listed so far, by key
    last: str = ""  # the format used last


def _money(w: Writer) -> str:
    r = w.rng
    return w.fresh(lambda: f"{r.randint(85, 4900)}.{r.choice((0, 20, 40, 50, 60, 75, 80, 95)):02d}")


def _date(w: Writer) -> str:
    r = w.rng
    return w.fresh(lambda: f"2026-{r.randint(1, 12):02d}-{r.randint(10, 28):02d}")


def _change(w: Writer, kind: Kind) -> str:
    return _money(w) if kind.changes == "money" else _date(w)


def _render(kind: Kind, rows: list[Row], form: str) -> str:
    """The listing as the tool prints it, in ``form``."""
    h = kind.headers
    cells = [(r.key, r.ref, r.third, r.change) for r in rows]
    if form == "psql":
        widths = [max(len(x) for x in (hd, *(c[i] for c in cells))) for i, hd in enumerate(h)]
        line = " | ".join(hd.ljust(wd) for hd, wd in zip(h, widths, strict=True))
        rule = "-+-".join("-" * wd for wd in widths)
        body = [
            " | ".join(
                c[i].rjust(widths[i]) if c[i].replace(".", "").isdigit() else c[i].ljust(widths[i])
                for i in range(4)
            )
            for c in cells
        ]
        return "\n".join([f" {line}", f"-{rule}-", *(f" {b}" for b in body), f"({len(rows)} rows)"])
    if form == "tsv":
        return "\n".join("\t".join(c) for c in [h, *cells])
    if form == "yaml":
        out = [f"{kind.name}:"]
        for c in cells:
            out.append(f"  - {h[0]}: {c[0]}")
            out.extend(f"    {h[i]}: {c[i]}" for i in range(1, 4))
        return "\n".join(out)
    if form == "fixed":
        widths = [max(len(x) for x in (hd, *(c[i] for c in cells))) + 3 for i, hd in enumerate(h)]
        rows_text = [
            "".join(
                x.upper().ljust(wd) if x in h else x.ljust(wd)
                for x, wd in zip(c, widths, strict=True)
            ).rstrip()
            for c in [h, *cells]
        ]
        return "\n".join([f"{kind.title}   printed for: office", *rows_text, "END OF REPORT"])
    # csv with a totals row
    third = sum(int(c[2]) for c in cells) if cells[0][2].isdigit() else ""
    total = f"{sum(float(c[3]) for c in cells):.2f}" if kind.changes == "money" else ""
    lines = [",".join(h), *(",".join(c) for c in cells), f"TOTAL,,{third},{total}"]
    return "\n".join(lines)


def _refer(w: Writer, sheet: Sheet, shown: list[Row], row: Row) -> None:
    """A later turn pointing at ``row`` by a word of its key or by its place in the listing."""
    r = w.rng
    place = shown.index(row)
    word = row.key.split()[0]
    if r.random() < 0.5:
        text = r.choice(
            (
                f"any news on the {word} one?",
                f"can you chase {word} for me when you get a sec",
                f"the {word} line is the one the boss keeps asking about",
                f"flag the {word} row for me, i need to sort it this week",
            )
        )
    else:
        where = "bottom" if place == len(shown) - 1 and place > 2 else _PLACES[place]
        text = r.choice(
            (
                f"the {where} one on that list, keep an eye on it for me",
                f"can you chase the {where} one",
                f"that {where} one is the one i need sorted first",
            )
        )
    w.user(text)
    w.say("assistant", r.choice(("Will do.", "Okay, I'll keep an eye on it.", "Noted, on it.")))


def _listing(
    w: Writer, sheet: Sheet, quota: int, refer: list[tuple[int, Callable[[], None]]]
) -> None:
    """Fetch the listing again: repeat, update and add rows; plant ``quota`` facts in it."""
    r = w.rng
    kind = sheet.kind
    shown: list[Row] = []
    planted: list[tuple[Row, str]] = []  # (row, "change" | "ref" | "fix")
    open_rows = [x for x in sheet.rows if x.fact is not None]
    want = quota if r.random() < 0.6 else r.randint(0, quota)
    fixes = r.sample(open_rows, min(len(open_rows), want))
    for row in fixes:
        planted.append((row, "fix"))
    plain = [x for x in sheet.rows if x.fact is None and not x.code_fact]
    shown.extend(r.sample(plain, min(len(plain), r.randint(1, 3))))
    fresh_keys = [k for k in kind.keys if k not in w.labels]
    for _ in range(quota - len(fixes)):
        key = r.choice(fresh_keys)
        fresh_keys.remove(key)
        row = Row(key, w.code(kind.shape), kind.third(r), _change(w, kind))
        w.labels.add(key)
        sheet.rows.append(row)
        planted.append((row, r.choice(("change", "change", "ref"))))
    extra = max(0, 4 - len(shown) - len(planted)) + r.randint(0, 1)
    for _ in range(min(extra, len(fresh_keys) - 3)):
        key = r.choice(fresh_keys)
        fresh_keys.remove(key)
        row = Row(key, w.code(kind.shape), kind.third(r), _change(w, kind))
        w.labels.add(key)
        sheet.rows.append(row)
        shown.append(row)
    old: dict[str, tuple[str, int]] = {}
    for row, how in planted:
        if how == "fix":
            assert row.fact is not None
            old[row.key] = (row.change, row.fact)
            row.change = _change(w, kind)
        shown.append(row)
    r.shuffle(shown)
    form = r.choice([f for f in FORMATS if f != sheet.last])
    sheet.last = form
    w.user(r.choice(kind.ask))
    at = w.tool(
        "office_data",
        {"listing": kind.name, "format": form},
        _render(kind, shown, form),
        lead=r.choice((None, "Pulling it now.")),
    )
    w.say(
        "assistant", r.choice(("Here's the latest.", "That's the current listing.", "Done, above."))
    )
    for row, how in planted:
        if how == "ref":
            row.code_fact = True
            w.plant("code", row.ref, at)
        elif how == "change":
            row.fact = len(w.facts)
            w.plant("value" if kind.changes == "money" else "date", row.change, at)
        else:
            stale, before = old[row.key]
            prior = w.facts[before]
            w.supersede(prior, at)
            row.fact = len(w.facts)
            w.plant(
                "correction",
                row.change,
                at,
                stale=stale,
                stale_index=prior.message_index,
                older=(*prior.older, prior.stale) if prior.stale is not None else (),
            )
    picks = [row for row, _ in planted] + shown
    if r.random() < 0.7:
        row = r.choice(picks[: max(1, len(planted))] if r.random() < 0.7 else picks)
        refer.append((w.turn + 1 + r.randint(1, 25), lambda: _refer(w, sheet, shown, row)))


def _quotas(r: random.Random, listings: int, facts: int) -> list[int]:
    """How many facts each listing plants: one to three, summing to ``facts``."""
    quotas = [1] * listings
    while sum(quotas) < facts:
        k = r.randrange(listings)
        if quotas[k] < 3:
            quotas[k] += 1
    return quotas


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    kinds = r.sample(list(KINDS.values()), 4)
    order = [k for k in kinds for _ in range(r.randint(2, 3))]
    seq = r.sample(order, len(order))
    listings = len(seq)
    quotas = _quotas(r, listings, facts) if listings <= facts else [1] * facts
    sheets = {k.name: Sheet(k) for k in kinds}
    step = max(1, (turns - 30) // listings)
    events: list[tuple[int, Callable[[], None]]] = []
    refer: list[tuple[int, Callable[[], None]]] = []

    def listing(kind: Kind, quota: int) -> Callable[[], None]:
        return lambda: _listing(w, sheets[kind.name], quota, refer)

    for k, (kind, quota) in enumerate(zip(seq, quotas, strict=False)):
        events.append((k * step + r.randint(0, step // 2), listing(kind, quota)))
    queue = sorted(enumerate(events), key=lambda e: (e[1][0], e[0]))
    i = 0
    while i < len(queue) or w.turn + 1 < turns:
        due = min(refer, key=lambda e: e[0]) if refer else None
        if due is not None and due[0] <= w.turn + 1 < turns:
            refer.remove(due)
            due[1]()
        elif i < len(queue) and queue[i][1][0] <= w.turn + 1:
            queue[i][1][1]()
            i += 1
        else:
            w.chatter()


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """One ``blind8-sheets`` conversation."""
    return build(
        seed,
        "b8-sheets",
        turns,
        facts,
        _write,
        "You are an assistant for the office manager of a small design studio, with access to "
        "the studio's office data.",
        "office",
    )
