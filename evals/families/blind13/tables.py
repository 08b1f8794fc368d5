"""``blind13-tables``: a piano removals firm's job sheets in five plain-text shapes.

The office manager asks a ``jobsheet`` tool for the moves, the stored pianos or the invoices.
It answers in a shape of its own (:data:`FORMATS`): columns separated by a single space, a
report grouped under headings with indented rows and subtotals, JSON Lines, XML records, or
``key: value`` blocks, one per record. One cell of one row is the fact: its reference, its
amount or its date. The manager names the row by its client or by a word from its long notes
("the spiral staircase one"), in the request, 1-3 turns after the listing or 30-90 turns
later; nobody says the cell.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from xml.sax.saxutils import escape

from evals.families.blind6.base import build, spread, timeline
from evals.families.blind13.base import Writer, writer
from evals.families.facts import FactKind
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["CLIENTS", "FORMATS", "LISTS", "NOTES", "generate", "render"]

FORMATS = ("spaced", "grouped", "jsonl", "xml", "blocks")
"""How the tool prints a list."""

LISTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, str, str]]] = {
    "moves": (
        ("client", "piano", "crew", "job_ref", "quote", "move_date", "notes"),
        ("blue van", "white van"),
        ("job ref", "quote", "move date"),
    ),
    "storage": (
        ("client", "piano", "bay", "unit_ref", "monthly", "stored_since", "notes"),
        ("east bay", "loft bay"),
        ("unit ref", "monthly fee", "date it went into storage"),
    ),
    "invoices": (
        ("client", "piano", "status", "invoice", "amount", "due", "notes"),
        ("unpaid", "part paid"),
        ("invoice number", "amount", "due date"),
    ),
}
"""Each list: its columns, the values of its group column, and how the user names the
reference, amount and date columns."""

CLIENTS = (
    "Kershaw", "Okonkwo", "Achterberg", "Prideaux", "Tremayne", "Halloran", "Ashdown",
    "Bellamy", "Carrick", "Devereux", "Ellery", "Faulkner", "Gossage", "Ingleby", "Jessop",
    "Loxley", "Mottram", "Nettleton", "Ormerod", "Pennington", "Quayle", "Sowerby", "Thwaite",
    "Villiers", "Wakefield", "Yeoman", "Hebblethwaite", "Rushworth", "Standish", "Fothergill",
    "Aldous", "Brackenbury", "Coldwell", "Dimmock", "Entwistle", "Fenwick", "Grimshaw",
    "Heseltine", "Illingworth", "Kitching", "Lumsden", "Molyneux", "Openshaw", "Pickering",
)  # fmt: skip
PIANOS = (
    "Steinway B", "Bechstein upright", "Yamaha U3", "Blüthner baby grand", "Broadwood square",
    "Kawai K300", "Chappell upright", "Bösendorfer grand", "Challen upright", "Knight K10",
)  # fmt: skip
NOTES: tuple[tuple[str, str], ...] = (
    ("spiral staircase", "narrow spiral staircase up to the flat, stair climber and four crew"),
    ("conservatory", "goes into the conservatory, watch the humidity and keep it off the tiles"),
    ("houseboat", "delivery onto a houseboat at the marina, gangplank needs checking first"),
    ("crane", "second floor window lift, crane booked through the client's builder"),
    ("chapel", "collect from the old chapel, pews in the way, vicar has the keys"),
    ("parquet", "parquet floor in the hall, boards down the whole way before we wheel it"),
    ("cobbled lane", "cobbled lane behind the market, van can't get close, long carry"),
    ("inheritance", "inheritance from an aunt, family want it tuned straight after the move"),
    ("school hall", "school hall stage, only during the holidays when the caretaker is in"),
    ("snooker room", "basement snooker room, tight turn at the bottom of the stairs"),
    ("antique", "antique case, owner very nervous, extra blankets and photos before loading"),
    ("lift shaft", "tower block, service lift only, book the lift shaft slot with the concierge"),
)
"""``(handle, notes)``: a planted row's long notes and the word the user names it by."""
_PLAIN_NOTES = (
    "ground floor, level access from the drive, nothing unusual to report",
    "standard upright move, two crew, street parking outside the house",
    "regular customer, pays on the day, please leave the usual tuning card",
    "first floor flat, straight stairs, dust sheets for the carpet please",
    "from storage to home, check the castors before it goes back on the van",
    "short hop across town, keys with the neighbour if nobody answers",
)

_ASK_FETCH = (
    "can you pull up the {list} list",
    "get me the current {list} sheet please",
    "show me the {list} list, need to check something",
    "run the {list} list for me",
)
_NAME_NOW = (
    "what's the {field} on {key}",
    "i need the {field} for {key}",
    "which {field} have we got against {key}",
)
_NAME_AFTER = (
    "on that list, what was the {field} for {key}",
    "looking at that again, {key}, what's its {field}",
    "and the {field} for {key}?",
)
_NAME_LATER = (
    "going back to the {list} list from earlier, {key}. what's the {field} on that",
    "remind me, on the {list} list, {key}, {field}?",
    "which {field} did the {list} list have for {key} again",
)
_POINT = (
    "That's on the {row} row of the list above, in the {field} column.",
    "You'll find it on that row of the list I pulled, under {field}.",
    "It's the {row} row; the {field} is in that listing.",
)


PREFIX = {"moves": "PM", "storage": "ST", "invoices": "IN"}
"""Each list's references start with its own letters."""


def _money(total: float) -> str:
    return f"{total:.2f}"


def render(fmt: str, name: str, rows: Sequence[Sequence[str]]) -> str:
    """The ``name`` list's ``rows`` as the tool prints them in ``fmt``."""
    columns, groups, _ = LISTS[name]
    if fmt == "spaced":
        return "\n".join(" ".join(r) for r in [columns, *rows])
    if fmt == "jsonl":
        return "\n".join(
            json.dumps(dict(zip(columns, r, strict=True)), ensure_ascii=False) for r in rows
        )
    if fmt == "blocks":
        return "\n\n".join(
            "\n".join(f"{c}: {v}" for c, v in zip(columns, r, strict=True)) for r in rows
        )
    if fmt == "xml":
        tag = {"moves": "move", "storage": "unit", "invoices": "invoice_record"}[name]
        lines = [f"<{name}>"]
        for r in rows:
            lines.append(f"  <{tag}>")
            lines += [f"    <{c}>{escape(v)}</{c}>" for c, v in zip(columns, r, strict=True)]
            lines.append(f"  </{tag}>")
        lines.append(f"</{name}>")
        return "\n".join(lines)
    if fmt == "grouped":
        out = [f"{name.upper()} BY {columns[2].upper()}", ""]
        total = 0.0
        for group in groups:
            members = [r for r in rows if r[2] == group]
            if not members:
                continue
            out.append(group)
            for r in members:
                out.append("    " + "  ".join(v for k, v in enumerate(r) if k != 2))
            sub = sum(float(r[4]) for r in members)
            total += sub
            out.append(f"    subtotal {_money(sub)}")
            out.append("")
        out.append(f"TOTAL {_money(total)}")
        return "\n".join(out)
    raise ValueError(f"unknown format {fmt!r}")


def _amount(w: Writer) -> str:
    r = w.rng
    return w.fresh(lambda: f"{r.randint(180, 4800)}.{r.randint(1, 99):02d}")


def _date(w: Writer) -> str:
    r = w.rng
    return w.fresh(lambda: f"2027-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}")


def _aliases(kind: str, value: str) -> tuple[str, ...]:
    """The other forms a summary may write a cell in."""
    if kind == "value":
        pounds, pence = value.split(".")
        return (f"£{int(pounds):,}.{pence}",)
    if kind == "date":
        _, month, day = (int(x) for x in value.split("-"))
        name = MONTHS[month - 1]
        return (f"{day} {name} 2027", f"{name} {day}, 2027")
    return ()


def _episode(
    w: Writer, client: str, others: Sequence[str], plan: tuple[str, str, FactKind, str, bool]
) -> Callable[[], None] | None:
    """Fetch a list with one planted cell and name its row; a later naming is returned."""
    r = w.rng
    name, fmt, kind, how, by_note = plan
    _, groups, fields = LISTS[name]
    n = r.randint(4, 5) if fmt == "grouped" else r.randint(3, 5)
    planted = r.randrange(n)
    handle = w.fresh(lambda: r.choice(NOTES)[0]) if by_note else ""
    note = dict(NOTES).get(handle, "")
    fillers = iter(r.sample(others, n))
    rows: list[list[str]] = []
    for k in range(n):
        rows.append(
            [
                client if k == planted else next(fillers),
                r.choice(PIANOS),
                groups[k % 2] if fmt == "grouped" else r.choice(groups),
                w.code(PREFIX[name] + "-99999"),
                _amount(w),
                _date(w),
                note if k == planted and by_note else r.choice(_PLAIN_NOTES),
            ]
        )
    column = {"code": 3, "value": 4, "date": 5}[kind]
    value = rows[planted][column]
    field = fields[column - 3]
    row = handle if by_note else client
    key = f"the {row} one"
    fetch = r.choice(_ASK_FETCH).format(list=name)
    if how == "now":
        fetch += ". " + r.choice(_NAME_NOW).format(field=field, key=key)
    w.user(fetch)
    at = w.tool("jobsheet", {"list": name, "format": fmt}, render(fmt, name, rows))
    if how == "now":
        w.say("assistant", r.choice(_POINT).format(row=row, field=field))
    else:
        w.say("assistant", f"Here's the {name} list as it stands.")
    w.plant(kind, value, at, aliases=_aliases(kind, value))

    def ask(template: str) -> None:
        w.user(template.format(list=name, field=field, key=key))
        w.say("assistant", r.choice(_POINT).format(row=row, field=field))

    if how == "after":
        for _ in range(r.randint(0, 2)):
            w.chatter()
        ask(r.choice(_NAME_AFTER))
    elif how == "later":
        template = r.choice(_NAME_LATER)
        return lambda: ask(template)
    return None


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    kinds: list[FactKind] = [("code", "value", "date")[k % 3] for k in range(facts)]
    fmts = [FORMATS[k % len(FORMATS)] for k in range(facts)]
    hows = [("now", "after", "later")[k % 3] for k in range(facts)]
    notes = [k % 3 == 1 for k in range(facts)]
    for pool in (kinds, fmts, hows, notes):
        r.shuffle(pool)
    clients = r.sample(CLIENTS, len(CLIENTS))
    named, others = clients[:facts], clients[facts:]
    starts = spread(r, int(turns * 0.8), facts, 5)
    pending: list[tuple[int, Callable[[], None]]] = []
    events: list[tuple[int, Callable[[], None]]] = []
    for k, start in enumerate(starts):
        plan = (r.choice(tuple(LISTS)), fmts[k], kinds[k], hows[k], notes[k])

        def episode(
            client: str = named[k], plan: tuple[str, str, FactKind, str, bool] = plan
        ) -> None:
            later = _episode(w, client, others, plan)
            if later is not None:
                pending.append((w.turn + 1 + r.randint(30, 90), later))

        events.append((start, episode))

    def tick(turn: int) -> Callable[[], None]:
        def due() -> None:
            for p in [p for p in pending if p[0] <= turn or turn >= turns - 3]:
                pending.remove(p)
                p[1]()

        return due

    timeline(w, turns, [*events, *((t, tick(t)) for t in range(turns - 2))])


SYSTEM = "You are the office assistant of a piano removals and storage firm, with its job sheets."


def generate(seed: int, *, turns: int = 420, facts: int = 20) -> Trajectory:
    """Seed ``seed``'s conversation of ``turns`` turns with ``facts`` planted cells."""
    return build(
        seed,
        "b13-tables",
        turns,
        facts,
        _write,
        SYSTEM,
        writer=writer("removals"),
        prefix="blind13",
    )
