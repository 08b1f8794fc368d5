"""``b16-tables``: an allotment society's plot lists; one cell of a named row is the fact.

The secretary asks the ``plots`` tool for a site's plots (plot, holder, rent, paid up to,
padlock key, notes), printed as a markdown table, CSV, a fixed-width report, JSON rows or JSON
columns, or pastes them herself from the committee spreadsheet (tab-separated). She names a
row by its holder in the request, 1-2 turns after the listing, or 30-80 turns later; the fact
is that row's rent (``38.50``, alias ``£38.50``), paid-up date (``2027-04-18``) or key
(``K-4821``). Nobody says the cell again; the assistant points at the row and column.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import partial

from evals.families.blind6.base import spread
from evals.families.blind16.base import Writer16, make
from evals.families.facts import FactKind
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["COLUMNS", "FORMATS", "generate", "render"]

SYSTEM = (
    "You help the secretary of an allotment society with letters, lists and the committee's "
    "records. You can look up the plot register with the plots tool."
)
COLUMNS = ("plot", "holder", "rent", "paid_until", "key", "notes")
FORMATS = ("markdown", "csv", "fixed", "json_rows", "json_cols", "paste")
SITES = ("north field", "railway side", "orchard end", "top meadow", "brook lane", "old nursery")
NOTES = (
    "greenhouse", "half plot", "raised beds", "small pond", "fruit cage", "shed needs roof",
    "new holder", "polytunnel", "bee hives", "no shed", "shares trough", "wildlife corner",
)  # fmt: skip
ASKS = {
    "rent": ("what's {h} paying for their plot", "how much rent is {h} on"),
    "paid_until": ("when is {h} paid up to", "how long has {h} paid for"),
    "key": ("which padlock key has {h} got", "what key number did we give {h}"),
}
POINT = {
    "rent": "It's in the rent column, on {h}'s row.",
    "paid_until": "See the paid_until column on {h}'s row.",
    "key": "The key column on {h}'s row has it.",
}


def render(shape: str, rows: Sequence[dict[str, str]]) -> str:
    """The rows as the tool (or the pasted spreadsheet) prints them."""
    if shape == "markdown":
        head = "| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS)
        return head + "".join("\n| " + " | ".join(r[c] for c in COLUMNS) + " |" for r in rows)
    if shape == "csv":
        return ",".join(COLUMNS) + "".join("\n" + ",".join(r[c] for c in COLUMNS) for r in rows)
    if shape == "paste":
        titled = [c.replace("_", " ").title() for c in COLUMNS]
        return "\t".join(titled) + "".join("\n" + "\t".join(r[c] for c in COLUMNS) for r in rows)
    if shape == "json_rows":
        return json.dumps(rows, indent=1)
    if shape == "json_cols":
        return json.dumps(
            {"columns": list(COLUMNS), "rows": [[r[c] for c in COLUMNS] for r in rows]}
        )
    widths = {c: max(len(c), *(len(r[c]) for r in rows)) + 2 for c in COLUMNS}
    lines = ["PLOT REGISTER", "".join(c.upper().ljust(widths[c]) for c in COLUMNS).rstrip()]
    lines.append("-" * len(lines[1]))
    lines += ["".join(r[c].ljust(widths[c]) for c in COLUMNS).rstrip() for r in rows]
    lines.append(f"{len(rows)} plots listed")
    return "\n".join(lines)


def _row(w: Writer16) -> dict[str, str]:
    r = w.rng
    return {
        "plot": w.fresh(lambda: f"{r.randint(1, 60)}{r.choice('ABCD')}"),
        "holder": w.person(),
        "rent": w.fresh(lambda: f"{r.randint(18, 95)}.{r.choice(('00', '50', '25', '75'))}"),
        "paid_until": w.fresh(
            lambda: f"{r.choice((2026, 2027, 2028))}-{r.randint(1, 12):02d}-{r.randint(10, 28)}"
        ),
        "key": w.code("K-9999"),
        "notes": r.choice(NOTES),
    }


def _aliases(column: str, value: str) -> tuple[str, ...]:
    if column == "rent":
        return (f"£{value}",)
    if column == "paid_until":
        y, m, d = value.split("-")
        month = MONTHS[int(m) - 1]
        return (f"{int(d)} {month} {y}", f"{month} {int(d)}, {y}")
    return ()


Event = tuple[int, Callable[[], None]]
"""A turn and what to write there."""
KIND: dict[str, FactKind] = {"rent": "value", "paid_until": "date", "key": "code"}


def episode(w: Writer16, shape: str, when: str, events: list[Event]) -> None:
    r = w.rng
    rows = [_row(w) for _ in range(r.randint(3, 6))]
    pick = r.randrange(len(rows))
    column = r.choice(tuple(KIND))
    holder = rows[pick]["holder"]
    ask = r.choice(ASKS[column]).replace("{h}", holder)
    site = r.choice(SITES)
    table = render(shape, rows)
    if shape == "paste":
        lead = f"here's the {site} bit of the committee spreadsheet, can you keep hold of it"
        i = w.user(f"{lead}" + (f", and {ask}?" if when == "now" else "") + f"\n\n{table}")
        w.say("assistant", "Got it, I have the sheet." + _point(column, holder, when))
    else:
        lead = f"can you pull up the {site} plots"
        w.user(lead + (f"? {ask}" if when == "now" else ""))
        i = w.tool("plots", {"site": site, "format": shape}, table)
        w.say("assistant", f"Here's the {site} register." + _point(column, holder, when))
    fact = w.plant(
        KIND[column], rows[pick][column], i, aliases=_aliases(column, rows[pick][column])
    )
    if when == "soon":
        w.pad(r.randint(0, 2))
        w.user(f"oh and from that list, {ask}?")
        w.say("assistant", POINT[column].replace("{h}", holder))
    elif when == "late":
        later = min(w.turn + r.randint(30, 80), max(w.turn + 2, w.turns_total - 2))

        def back() -> None:
            w.user(f"going back to the {site} plot list from earlier, {ask}?")
            w.say("assistant", "From that listing: " + POINT[column].replace("{h}", holder))

        events.append((later, back))
    del fact


def _point(column: str, holder: str, when: str) -> str:
    return " " + POINT[column].replace("{h}", holder) if when == "now" else ""


def write(w: Writer16, turns: int, facts: int) -> None:
    r = w.rng
    w.turns_total = turns
    shapes = [FORMATS[k % len(FORMATS)] for k in range(facts)]
    r.shuffle(shapes)
    whens = [r.choice(("now", "soon", "late")) for _ in shapes]
    starts = spread(r, max(facts * 4, turns - 90), facts, 4)
    events: list[Event] = []
    for start, shape, when in zip(starts, shapes, whens, strict=True):
        events.append((start, partial(episode, w, shape, when, events)))
    # ``timeline`` sorts once: late references are appended while it runs, so run by hand
    done = 0
    while done < len(events) or w.turn + 1 < turns:
        due = sorted((e for e in events[done:]), key=lambda e: e[0])
        events[done:] = due
        if done < len(events) and events[done][0] <= w.turn + 1:
            events[done][1]()
            done += 1
        else:
            w.chatter()


def generate(seed: int, *, turns: int = 460, facts: int = 20) -> Trajectory:
    return make(seed, "b16-tables", turns, facts, write, SYSTEM, "tables")
