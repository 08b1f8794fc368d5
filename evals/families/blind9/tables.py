"""``blind9-tables``: a landlord's spreadsheets, fetched again and again as they change.

Three or four of five listings a seed (rent due, repair jobs, deposits, gas safety checks,
viewings; columns: the flat, a reference, an amount, a date), each fetched several times by a
tool, in markdown, CSV, aligned columns, JSON rows or a YAML list. A newer fetch repeats some
rows unchanged, shows a planted cell changed, and adds rows; a row whose planted cell did not
change drops off, so a planted cell occurs once. The fact is one cell: the reference (a
``code``), the amount (a ``value``) or the date; a changed cell is a ``correction`` of the
cell in the earlier fetch. A few turns after most fetches the user names a row by its flat or
its place in the list, never saying the cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evals.families.blind6.base import dumps
from evals.families.blind9.base import ORDINALS, Writer, build, correct
from evals.families.facts import FactKind, PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["FORMATS", "KINDS", "Listing", "generate"]

FLATS = (
    "Ashgrove top", "Ashgrove basement", "Bellfield", "Carrick Street", "Dunmore Court",
    "Elmwood garden flat", "Fairholm", "Glenview attic", "Hawthorn Mews", "Juniper House",
    "Kelvin Terrace", "Larchfield", "Marlowe Road", "Netherby", "Orchard Lane",
)  # fmt: skip


@dataclass(frozen=True)
class Listing:
    """One spreadsheet: its tool name, column names and reference shape."""

    name: str
    columns: tuple[str, str, str, str]
    ref: str
    ask: str


KINDS = {
    "rent": Listing("rent", ("flat", "tenant ref", "rent due", "due date"), "TN-9999", "rent"),
    "repairs": Listing("repairs", ("property", "job no", "quote", "visit"), "JB9999", "repairs"),
    "deposits": Listing(
        "deposits", ("flat", "scheme id", "deposit", "tenancy ends"), "DPS-99999", "deposits"
    ),
    "gas": Listing("gas", ("address", "cert", "fee", "expires"), "GS-999-99", "gas safety"),
    "viewings": Listing(
        "viewings", ("unit", "applicant", "holding fee", "viewing"), "AP9999", "viewings"
    ),
}
"""The landlord's listings, by the name the tool takes."""

FORMATS = ("markdown", "csv", "aligned", "json", "yaml")


@dataclass
class Row:
    cells: list[str]
    fact: PlantedFact | None = None
    col: int = 0
    new: bool = False


@dataclass
class Sheet:
    kind: Listing
    rows: list[Row] = field(default_factory=list)


def render(kind: Listing, rows: list[Row], fmt: str) -> str:
    cols = kind.columns
    table = [r.cells for r in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join(c) + " |" for c in table]
        return "\n".join(lines)
    if fmt == "csv":
        return "\n".join(",".join(c) for c in [list(cols), *table])
    if fmt == "aligned":
        widths = [max(len(x[k]) for x in [list(cols), *table]) for k in range(len(cols))]
        return "\n".join(
            "  ".join(x[k].ljust(widths[k]) for k in range(len(cols))).rstrip()
            for x in [[c.upper() for c in cols], *table]
        )
    if fmt == "json":
        return (
            "[\n" + ",\n".join("  " + dumps(dict(zip(cols, c, strict=True))) for c in table) + "\n]"
        )
    return "\n".join(
        "\n".join(
            f"{'-' if k == 0 else ' '} {cols[k].replace(' ', '_')}: {c[k]}"
            for k in range(len(cols))
        )
        for c in table
    )


_KINDS_OF: tuple[FactKind, FactKind, FactKind] = ("code", "value", "date")


def _cell(w: Writer, kind: Listing, col: int) -> str:
    r = w.rng
    if col == 1:
        return w.code(kind.ref)
    if col == 2:
        return w.fresh(lambda: f"{r.randint(520, 1480)}.{r.choice(('00', '50', '25', '75'))}")
    return w.fresh(lambda: f"2027-{r.randint(1, 12):02d}-{r.randint(10, 28):02d}")


def _new_row(w: Writer, kind: Listing, taken: set[str]) -> Row:
    flat = w.rng.choice([f for f in FLATS if f not in taken])
    taken.add(flat)
    return Row([flat, *(_cell(w, kind, k) for k in (1, 2, 3))])


def _fetch(w: Writer, sheet: Sheet, budget: list[int]) -> None:
    r = w.rng
    kind = sheet.kind
    ask = r.choice(
        (
            f"can you pull up the {kind.ask} sheet",
            f"check the {kind.ask} list again?",
            f"what's the {kind.ask} spreadsheet saying now",
            f"{kind.ask} - latest pls",
            f"open the {kind.ask} tracker, need to see where we are",
        )
    )
    w.user(ask)
    rows: list[Row] = []
    changes: list[tuple[Row, PlantedFact]] = []
    taken = {row.cells[0] for row in sheet.rows}
    for row in sheet.rows:
        if row.fact is not None:
            if row.col > 1 and budget[0] > 0 and r.random() < 0.65:
                old = row.fact
                row.cells[row.col] = _cell(w, kind, row.col)
                budget[0] -= 1
                changes.append((row, old))
                rows.append(row)
        elif r.random() < 0.7:
            rows.append(row)
    for _ in range(r.randint(1, 3) if rows else r.randint(3, 5)):
        if len(taken) >= len(FLATS):
            break
        row = _new_row(w, kind, taken)
        if budget[0] > 0 and r.random() < 0.55:
            row.col = r.choice((1, 2, 2, 3, 3))
            row.new = True
            budget[0] -= 1
        rows.append(row)
    fmt = r.choice(FORMATS)
    at = w.tool(
        "sheets_lookup",
        {"sheet": kind.name, "format": fmt},
        render(kind, rows, fmt),
        lead=r.choice((None, "Pulling it up.")),
    )
    for row in rows:
        if row.new:
            row.fact = w.plant(_KINDS_OF[row.col - 1], row.cells[row.col], at)
            row.new = False
    for row, old in changes:
        row.fact = correct(w, old, row.cells[row.col], at)
    sheet.rows = rows
    w.say(
        "assistant",
        r.choice(
            (
                "That's the current state of it.",
                "Here's the latest version.",
                "Done, that's what it shows now.",
                "There you go, a few rows have moved on since last time.",
            )
        ),
    )
    w.pad(r.randint(1, 12))
    if rows and r.random() < 0.8:
        k = r.randrange(len(rows))
        if r.random() < 0.65:
            said = r.choice(
                (
                    "any news on {k}?",
                    "what do we do about {k} then",
                    "can you draft a chaser for {k}",
                    "{k} is the one that worries me tbh",
                )
            ).replace("{k}", rows[k].cells[0])
        else:
            place = "bottom" if k == len(rows) - 1 and k > 0 else ORDINALS[k]
            said = f"the {place} one on that list, can you remind me what's outstanding"
        w.user(said)
        w.say("assistant", w.reply((3, 6)))


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    sheets = [Sheet(KINDS[k]) for k in r.sample(list(KINDS), r.randint(3, 4))]
    budget = [facts]
    while budget[0] > 0:
        room = turns - 25 - (w.turn + 1)
        each = room // (budget[0] // 2 + 1) - 8
        w.gap(*((each // 2, each) if each > 4 else (0, 2)))
        _fetch(w, r.choice(sheets), budget)
    while w.turn + 1 < turns:
        w.chatter()


def generate(seed: int, turns: int = 430, facts: int = 20) -> Trajectory:
    """A landlord's conversation with ``facts`` cells planted in re-fetched spreadsheets."""
    return build(
        seed,
        "b9-tables",
        turns,
        facts,
        _write,
        "You are an assistant for a landlord who lets several flats; you can read their "
        "spreadsheets.",
        "flats",
    )
