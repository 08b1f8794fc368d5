"""``blind17-tables``: a community minibus scheme's lists, one cell of a named row the fact.

The coordinator of a rural community minibus scheme asks for the volunteer drivers
(``drivers``: driver, badge, base, check_due, vehicle, notes) or a day's passenger bookings
(``bookings``: passenger, booking, village, pickup, fare, needs), 5-12 rows, as a markdown
table, CSV, JSON rows, JSON columns (one array a column) or a fixed-width report with a rule and
a count line. The fact is one cell of a row she names by its key, the person: a driver's badge
(``code``) or check-due date (ISO, ``date``), a passenger's booking ref (``code``), pickup time
or fare (``value``). She names the row in the request, a turn or two after the list, or 30-100
turns later ("going back to the driver list from before, ..."); the assistant points at the row
and column and never says the cell. A words-only vehicle status check comes back again and
again between them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evals.families.blind6.base import dumps, timeline
from evals.families.blind17.base import Writer17, write
from evals.families.facts import FactKind
from evals.families.placement import Exhausted
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["COLUMNS", "FORMATS", "generate", "render"]

SYSTEM = (
    "You are an assistant for the coordinator of a rural community minibus scheme. You can "
    "look up the drivers' list, the day's bookings and the vehicles' status."
)

FORMATS = ("markdown", "csv", "json_rows", "json_cols", "fixed")
COLUMNS = {
    "drivers": ("driver", "badge", "base", "check_due", "vehicle", "notes"),
    "bookings": ("passenger", "booking", "village", "pickup", "fare", "needs"),
}
VILLAGES = (
    "Upper Slaughter", "Much Marcle", "Nether Wallop", "Great Snoring", "Brockhampton",
    "Kingsbury Episcopi", "Fenny Bentley", "Wool", "Stow Longa", "Long Itchington",
)  # fmt: skip
VEHICLES = ("the blue minibus", "the white minibus", "the estate car", "the wheelchair van")
DRIVER_NOTES = ("", "mornings only", "no hill roads in snow", "happy to cover", "on leave soon")
NEEDS = ("", "wheelchair", "walking frame", "needs a hand with bags", "guide dog", "")
_ASKED: dict[str, tuple[tuple[str, FactKind, str], ...]] = {
    "drivers": (
        ("badge", "code", "which badge number has {k} got"),
        ("check_due", "date", "when is {k}'s driver check due"),
        ("check_due", "date", "when does {k}'s driver check run out"),
    ),
    "bookings": (
        ("booking", "code", "what's the booking number for {k}"),
        ("pickup", "value", "what time is {k} being picked up"),
        ("fare", "value", "how much is {k}'s fare"),
    ),
}
_STATUS = "\n".join(
    (
        "vehicle            status       tyres   fuel",
        "the blue minibus   in service   ok      full",
        "the white minibus  in service   ok      half",
        "the estate car     in service   ok      full",
        "the wheelchair van in service   ok      full",
    )
)


def render(fmt: str, columns: Sequence[str], rows: Sequence[dict[str, str]]) -> str:
    """``rows`` as the tool prints them in ``fmt`` (:data:`FORMATS`)."""
    if fmt == "markdown":
        head = "| " + " | ".join(columns) + " |\n|" + "|".join("---" for _ in columns) + "|"
        return head + "".join("\n| " + " | ".join(r[c] for c in columns) + " |" for r in rows)
    if fmt == "csv":
        lines = [",".join(columns), *(",".join(r[c] for c in columns) for r in rows)]
        return "\n".join(lines)
    if fmt == "json_rows":
        return dumps([{c: r[c] for c in columns} for r in rows])
    if fmt == "json_cols":
        return dumps({c: [r[c] for r in rows] for c in columns})
    widths = [max(len(c), *(len(r[c]) for r in rows)) for c in columns]
    line = "  ".join(c.upper().ljust(n) for c, n in zip(columns, widths, strict=True)).rstrip()
    body = [
        "  ".join(r[c].ljust(n) for c, n in zip(columns, widths, strict=True)).rstrip()
        for r in rows
    ]
    rule = "  ".join("-" * n for n in widths)
    return "\n".join([line, rule, *body, "", f"{len(rows)} rows listed"])


def _iso(w: Writer17) -> tuple[str, tuple[str, ...]]:
    """A fresh ISO date in 2027 and its English forms."""
    r = w.rng
    value = w.fresh(lambda: f"2027-{r.randint(1, 12):02d}-{r.randint(10, 28):02d}")
    _, m, d = value.split("-")
    month = MONTHS[int(m) - 1]
    return value, (f"{int(d)} {month} 2027", f"{month} {int(d)}, 2027")


def _pickup(w: Writer17) -> str:
    """A fresh pickup time, five minutes apart (more of them than :meth:`Writer.time` has)."""
    r = w.rng
    return w.fresh(lambda: f"{r.randint(7, 19):02d}:{r.randrange(0, 60, 5):02d}")


def _fare(w: Writer17) -> str:
    """A fresh fare that is no other value's tail (``5.60`` beside ``15.60``) nor has one."""
    r = w.rng
    for _ in range(1000):
        fare = f"{r.randint(2, 19)}.{r.choice(('20', '40', '60', '80', '90'))}"
        if not any(fare in u or u in fare for u in w.used):
            w.used.add(fare)
            return fare
    raise Exhausted("no fare apart from the others")  # the seed is drawn again


def _row(w: Writer17, table: str) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """One fresh row of ``table`` and the other forms of its cells."""
    r = w.rng
    if table == "drivers":
        due, forms = _iso(w)
        row = {
            "driver": w.person(),
            "badge": w.code("CV-999"),
            "base": r.choice(VILLAGES),
            "check_due": due,
            "vehicle": r.choice(VEHICLES),
            "notes": r.choice(DRIVER_NOTES),
        }
        return row, {"check_due": forms}
    fare = _fare(w)
    row = {
        "passenger": w.person(),
        "booking": w.code("BK9999"),
        "village": r.choice(VILLAGES),
        "pickup": _pickup(w),
        "fare": fare,
        "needs": r.choice(NEEDS),
    }
    return row, {"fare": (f"£{fare}",)}


def _request(table: str) -> tuple[str, ...]:
    if table == "drivers":
        return ("Can you pull up the drivers' list?", "Show me the volunteer drivers, please.")
    return ("What bookings have we got for market day?", "Pull up tomorrow's bookings please.")


def _later(table: str) -> tuple[str, ...]:
    name = "driver list" if table == "drivers" else "bookings list"
    return (f"going back to the {name} from before, ", f"about that {name} you pulled up, ")


def _table_event(w: Writer17, fmt: str, mode: str, later: list[Callable[[], None]]) -> None:
    """A list fetched and one of its cells planted; a later reference queued in ``later``."""
    r = w.rng
    table = r.choice(tuple(COLUMNS))
    columns = COLUMNS[table]
    rows, forms = [], []
    for _ in range(r.randint(5, 12 if table == "drivers" else 9)):
        row, other = _row(w, table)
        rows.append(row)
        forms.append(other)
    k = r.randrange(len(rows))
    column, kind, ask = r.choice(_ASKED[table])
    key = rows[k][columns[0]]
    question = ask.format(k=key)
    if mode == "ask":
        w.user(f"{r.choice(_request(table))} Specifically, {question}?")
    else:
        w.user(r.choice(_request(table)))
    where = w.tool(table, {"format": fmt}, render(fmt, columns, rows))
    value = rows[k][column]
    point = f"That's in {key}'s row of the list, under {column}."
    if mode == "ask":
        w.say("assistant", f"Here's the list. {point}")
    else:
        w.say("assistant", r.choice(("Here's the list.", "Here you go, that's everyone.")))
    w.plant(kind, value, where, aliases=forms[k].get(column, ()))
    if mode == "ask":
        return

    def refer() -> None:
        lead = r.choice(_later(table)) if mode == "later" else ""
        w.user(f"{lead}{question}?")
        w.say("assistant", point)

    later.append(refer)


def episodes(w: Writer17, turns: int, facts: int) -> None:
    """Schedule the lists, their references and the routine status checks."""
    r = w.rng
    fmts = [FORMATS[i % len(FORMATS)] for i in range(facts)]
    r.shuffle(fmts)
    events: list[tuple[int, Callable[[], None]]] = []
    width = max(3, (turns - 8) // facts)
    for n, fmt in enumerate(fmts):
        at = 2 + n * width + r.randint(0, max(0, width - 3))
        room = turns - 4 - at
        mode = r.choice(("ask", "soon", "later", "later"))
        if mode == "later" and room < 30:
            mode = "soon"
        later: list[Callable[[], None]] = []
        events.append((at, _fetch(w, fmt, mode, later)))
        if mode != "ask":
            gap = r.randint(30, min(100, room)) if mode == "later" else r.randint(1, 2)
            events.append((at + gap, _deferred(later)))
    for _ in range(turns // 30):
        events.append((r.randint(1, turns - 2), _status(w)))
    timeline(w, turns, events)


def _fetch(w: Writer17, fmt: str, mode: str, later: list[Callable[[], None]]) -> Callable[[], None]:
    return lambda: _table_event(w, fmt, mode, later)


def _deferred(later: list[Callable[[], None]]) -> Callable[[], None]:
    """The queued reference, run when its turn comes (the list is fetched before)."""

    def event() -> None:
        for refer in later:
            refer()

    return event


def _status(w: Writer17) -> Callable[[], None]:
    def event() -> None:
        w.user(w.rng.choice(("morning check on the vehicles please", "vehicles all ok?")))
        w.tool("vehicle_status", {}, _STATUS)
        w.say("assistant", "All four are in service, nothing to flag.")

    return event


def generate(seed: int, *, turns: int = 440, facts: int = 20) -> Trajectory:
    """The ``blind17-tables`` conversation for ``seed``."""
    return write(seed, "b17-tables", turns, facts, episodes, SYSTEM, "minibus")
