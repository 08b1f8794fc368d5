"""``b10-tables``: a community bike workshop's job board, parts orders and hire fleet.

A ``workshop_db`` tool returns one of three tables, each time as a markdown table, CSV, JSON
rows (a list of objects) or JSON columns (an object of lists), the formats mixed in one
conversation. Each row is keyed by a bike or a part by name; the planted facts are cells: a
ticket code (``code``), a price (``value``) or a date (``date``). The same table is fetched
again later with one planted cell changed (a ``correction`` of the earlier cell, two or three
fetches in a chain), holding only the rows whose cells are not asked elsewhere, so every planted
cell occurs once. Between fetches the user names a row by its key ("is the Brompton ready?"),
sometimes the next turn and sometimes dozens of turns later, and the assistant answers without
the cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from evals.families.blind6.base import dumps
from evals.families.blind10.base import Writer, build, spaced
from evals.families.facts import FactKind, PlantedFact
from evals.families.placement import Exhausted
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["FORMATS", "TABLES", "generate", "render"]

FORMATS = ("markdown", "csv", "json rows", "json columns")


@dataclass(frozen=True)
class Table:
    """One table the tool knows: its name, columns, the keys its rows come from."""

    name: str
    columns: tuple[str, str, str, str]  # key, code, price, date
    keys: tuple[str, ...]
    code: str  # the code's shape for :meth:`Writer.code`


TABLES = (
    Table(
        "repair_jobs",
        ("bike", "ticket", "quote_gbp", "ready_by"),
        ("Brompton", "Dawes Galaxy", "Raleigh Chopper", "Specialized Rockhopper", "Pashley",
         "Trek Marlin", "Carrera Subway", "Genesis Croix de Fer", "Surly Troll",
         "Giant Escape", "Claud Butler", "Moulton"),
        "RJ-999",
    ),
    Table(
        "parts_orders",
        ("part", "order_no", "cost_gbp", "expected"),
        ("brake pads", "chain whip", "bottom bracket", "inner tubes", "bar tape",
         "cassette", "derailleur hanger", "spoke key", "mudguards", "pannier rack",
         "tyre levers", "headset spacers"),
        "PO9999",
    ),
    Table(
        "hire_fleet",
        ("hire_bike", "booking", "deposit_gbp", "due_back"),
        ("cargo trike", "tandem", "kids tagalong", "e-bike large", "e-bike small",
         "folding loaner", "hybrid medium", "trailer"),
        "HB-99-99",
    ),
)  # fmt: skip

_KINDS: tuple[FactKind, ...] = ("code", "value", "date")
"""The kind of fact each cell after the key is."""


@dataclass
class Sheet:
    """One table as the workshop holds it: its rows (key -> cells) and their live facts."""

    table: Table
    rows: dict[str, list[str]] = field(default_factory=dict)
    live: dict[str, tuple[PlantedFact, int]] = field(default_factory=dict)  # key -> fact, cell


def render(table: Table, rows: list[tuple[str, list[str]]], fmt: str) -> str:
    """``rows`` of ``table`` as the tool prints them in ``fmt``."""
    head = table.columns
    lines = [[key, *cells] for key, cells in rows]
    if fmt == "markdown":
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join(out + ["| " + " | ".join(x) + " |" for x in lines])
    if fmt == "csv":
        return "\n".join([",".join(head), *(",".join(x) for x in lines)])
    if fmt == "json rows":
        return dumps([dict(zip(head, x, strict=True)) for x in lines])
    return dumps({h: [x[k] for x in lines] for k, h in enumerate(head)})


def _cell(w: Writer, table: Table, col: int) -> str:
    r = w.rng
    if col == 0:
        return w.code(table.code)
    if col == 1:
        return w.fresh(lambda: f"{r.randint(12, 480)}.{r.choice(('00', '50', '95', '49'))}")
    return w.fresh(lambda: f"{r.randint(1, 28)} {r.choice(MONTHS)[:3]} 2027")


def _aliases(value: str, col: int) -> tuple[str, ...]:
    if col != 2:
        return ()
    day, short, year = value.split()
    month = next(m for m in MONTHS if m.startswith(short))
    if month == short:  # "May" is both
        return (f"{month} {day}, {year}",)
    return (f"{day} {month} {year}", f"{month} {day}, {year}")


_ASKS = (
    "pull up {n} for me",
    "what's on {n} at the moment",
    "can you check {n} again",
    "show me {n}, the volunteers are asking",
    "latest {n} please",
)
_LEADS = (None, "Checking the database.", "Here's the current view.")
_SOON = (
    "is the {k} one sorted yet?",
    "what's happening with the {k}?",
    "the {k} - has anyone chased that",
    "ok and the {k}, is that on track",
)
_LATE = (
    "going back to that list from earlier, the {k} row - any movement?",
    "remind me where we got to with the {k}",
    "someone was asking about the {k}, what did the table say again",
    "did the {k} ever get sorted",
)
_ANSWERS = (
    "It's listed there; I'd give the workshop a quick nudge to be sure it's current.",
    "It's on the table with the others, nothing flagged against it.",
    "Nothing unusual on that row; worth confirming with whoever took it in.",
    "It's in the latest listing; I can fetch it again if you want the fresh view.",
)


def _new_rows(w: Writer, sheet: Sheet, count: int) -> list[str]:
    spare = [k for k in sheet.table.keys if k not in sheet.rows]
    if len(spare) < count:
        raise Exhausted(f"{sheet.table.name}: no keys left")
    keys = w.rng.sample(spare, count)
    for key in keys:
        sheet.rows[key] = [_cell(w, sheet.table, c) for c in range(3)]
    return keys


def _fetch(w: Writer, sheet: Sheet, fmt: str, plant: int, change: bool) -> None:
    """Fetch ``sheet``: change one live cell (``change``), add rows, plant ``plant`` new cells.

    Rows whose live cell is not being changed are left out (that cell is asked from the
    fetch that printed it), so every planted cell occurs once.
    """
    r = w.rng
    table = sheet.table
    moved = r.choice(sorted(sheet.live)) if change and sheet.live else None
    if moved is not None:
        col = sheet.live[moved][1]
        sheet.rows[moved][col] = _cell(w, table, col)
    if not sheet.rows:
        _new_rows(w, sheet, r.randint(1, 2))  # rows with nothing asked, printed every time
    planted = _new_rows(w, sheet, plant)
    shown = [(k, c) for k, c in sheet.rows.items() if k not in sheet.live or k == moved]
    r.shuffle(shown)
    w.user(r.choice(_ASKS).replace("{n}", table.name.replace("_", " ")))
    at = w.tool("workshop_db", {"table": table.name}, render(table, shown, fmt), r.choice(_LEADS))
    w.say("assistant", r.choice(("There it is.", "That's the current list.", "Here you go.")))
    if moved is not None:
        old, col = sheet.live[moved]
        value = sheet.rows[moved][col]
        sheet.live[moved] = (w.replace(old, value, at, aliases=_aliases(value, col)), col)
    for key in planted:
        col = r.randrange(3)
        value = sheet.rows[key][col]
        sheet.live[key] = (w.plant(_KINDS[col], value, at, aliases=_aliases(value, col)), col)


def _point(w: Writer, sheets: list[Sheet], late: bool) -> None:
    keys = [k for s in sheets for k in s.live]
    if not keys:
        return
    w.user(w.rng.choice(_LATE if late else _SOON).replace("{k}", w.rng.choice(keys)))
    w.say("assistant", w.rng.choice(_ANSWERS))


def _episode(w: Writer, sheets: list[Sheet], k: int, fmt: str, plant: int, change: bool) -> None:
    _fetch(w, sheets[k], fmt, plant, change)
    if w.rng.random() < 0.6:
        w.idle(0, 3)
        _point(w, [sheets[k]], late=False)


def _plan(w: Writer, facts: int) -> list[tuple[int, int, bool]]:
    """Which sheet each fetch is of, how many new cells it plants, whether it changes one."""
    r = w.rng
    plan: list[tuple[int, int, bool]] = []
    started = 0
    left = facts
    while left > 0:
        if started < len(TABLES) and (not started or r.random() < 0.4):
            plant = min(left, r.randint(2, 3))
            plan.append((started, plant, False))
            started += 1
        else:
            plant = min(left - 1, int(r.random() < 0.3))
            plan.append((r.randrange(started), plant, True))
        left -= plan[-1][1] + plan[-1][2]
    return plan


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    sheets = [Sheet(t) for t in r.sample(TABLES, len(TABLES))]
    episodes = []
    formats: list[str] = []
    for k, plant, change in _plan(w, facts):
        if not formats:
            formats = r.sample(FORMATS, len(FORMATS))
        episodes.append(partial(_episode, w, sheets, k, formats.pop(), plant, change))
        if r.random() < 0.45:
            episodes.append(partial(_point, w, sheets, True))
    spaced(w, turns, episodes, 16)


def generate(seed: int, turns: int = 430, facts: int = 20) -> Trajectory:
    """One bike workshop's conversation: its tables fetched, re-fetched and pointed at."""
    return build(
        seed,
        "b10-tables",
        turns,
        facts,
        _write,
        "You are the assistant of a volunteer-run community bike workshop, with database access.",
        "workshop",
    )
