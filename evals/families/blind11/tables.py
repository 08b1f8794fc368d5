"""``blind11-tables``: a brewery's lists in shapes no table parser expects, a row named later.

The head brewer of a small brewery asks a ``brewhouse`` tool for the fermenters, the kegs out
at pubs or the dry goods on order. It answers in one of five shapes, mixed in every
conversation: a transposed markdown table (one column a record, one row a field), INI sections
(one section a record), XML elements, logfmt lines (``key=value`` pairs, one line a record),
or a fixed-width report grouped under headings with a total line under each group. Each
result plants one cell of one row (a batch or order code, an amount, a date); the brewer names
that row by its key (a beer, a pub, an ingredient) in the request itself, one to three turns
after, or thirty turns and more later; neither the brewer nor the assistant says the cell. A
row planted once is never printed again; the other rows are other keys' and change freely.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evals.families.blind6.base import build, timeline
from evals.families.blind11.base import Writer11, writer
from evals.families.facts import FactKind
from evals.families.placement import Collision
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["DATASETS", "FORMATS", "generate"]

Table = tuple[str, Sequence[str], list[list[str]]]
"""A dataset's name, its columns (the key first) and its rows."""

DATASETS = {
    "fermenters": (
        ("beer", "tank", "batch", "volume", "ready"),
        (
            "Rye Saison", "Oatmeal Stout", "Session Pale", "Smoked Porter", "Gooseberry Sour",
            "Amber Lager", "Blackcurrant Gose", "Hazy Double", "Mild Ale", "Honey Blonde",
            "Coffee Porter", "Marzen Red", "Table Saison", "Brown Bitter", "Tart Cherry",
            "West Coast Red",
        ),
    ),
    "kegs": (
        ("pub", "kegs", "ref", "deposit", "due back"),
        (
            "Crooked Billet", "Fox and Hounds", "Old Ship", "Wheatsheaf", "Drovers Rest",
            "Packhorse", "Three Tuns", "Bell and Anchor", "Cricketers", "Plough Inn",
            "Boat House", "Waggon Works", "Railway Tavern", "Hop Pole", "Malt Shovel",
            "Kings Arms",
        ),
    ),
    "dry goods": (
        ("item", "qty", "order", "cost", "arrives"),
        (
            "Maris Otter", "Cascade pellets", "flaked oats", "crystal malt", "wheat malt",
            "Saaz pellets", "Fuggles leaf", "chocolate malt", "Simcoe pellets", "Golding leaf",
            "roasted barley", "rye malt", "Vienna malt", "Mosaic pellets", "caustic wash",
            "keg caps",
        ),
    ),
}  # fmt: skip
"""Each dataset's columns (key, a detail, code, amount, date) and its row keys."""

SHORT = {m: m[:3] for m in MONTHS}


def _transposed(name: str, cols: Sequence[str], rows: list[list[str]]) -> str:
    head = f"| {cols[0]} | " + " | ".join(r[0] for r in rows) + " |"
    rule = "|---" * (len(rows) + 1) + "|"
    body = [f"| {c} | " + " | ".join(r[k] for r in rows) + " |" for k, c in enumerate(cols) if k]
    return "\n".join([f"{name}, one column per {cols[0]}:", head, rule, *body])


def _ini(name: str, cols: Sequence[str], rows: list[list[str]]) -> str:
    parts = [f"; {name}"]
    for r in rows:
        parts.append(f"\n[{r[0]}]")
        parts.extend(f"{c.replace(' ', '_')} = {v}" for c, v in zip(cols[1:], r[1:], strict=True))
    return "\n".join(parts)


def _xml(name: str, cols: Sequence[str], rows: list[list[str]]) -> str:
    tag = name.replace(" ", "_")
    lines = [f"<{tag}>"]
    for r in rows:
        lines.append(f'  <row {cols[0]}="{r[0]}">')
        for c, v in zip(cols[1:], r[1:], strict=True):
            t = c.replace(" ", "_")
            lines.append(f"    <{t}>{v}</{t}>")
        lines.append("  </row>")
    lines.append(f"</{tag}>")
    return "\n".join(lines)


def _logfmt(name: str, cols: Sequence[str], rows: list[list[str]]) -> str:
    def field(c: str, v: str) -> str:
        return (
            f'{c.replace(" ", "_")}="{v}"' if " " in v or "," in v else f"{c.replace(' ', '_')}={v}"
        )

    lines = [f"level=info source={name.replace(' ', '_')} rows={len(rows)}"]
    lines.extend(" ".join(field(c, v) for c, v in zip(cols, r, strict=True)) for r in rows)
    return "\n".join(lines)


def _grouped(name: str, cols: Sequence[str], rows: list[list[str]]) -> str:
    width = [max(len(c), *(len(r[k]) for r in rows)) + 2 for k, c in enumerate(cols)]

    def line(cells: Sequence[str]) -> str:
        return "".join(c.ljust(w) for c, w in zip(cells, width, strict=True)).rstrip()

    half = (len(rows) + 1) // 2
    out = [name.upper() + " REPORT", line(cols), "=" * sum(width)]
    for label, group in (("current", rows[:half]), ("older", rows[half:])):
        if not group:
            continue
        out.append(f"-- {label} --")
        out.extend(line(r) for r in group)
        out.append(line(["subtotal", "", "", _total([r[3] for r in group]), ""]))
    return "\n".join(out)


def _total(amounts: Sequence[str]) -> str:
    """The sum of amounts printed alike (``£1,204.80``, ``1,840 L``), printed the same way."""
    first = amounts[0]
    if first.startswith("£"):
        pence = sum(round(float(a[1:].replace(",", "")) * 100) for a in amounts)
        return f"£{pence // 100:,}.{pence % 100:02d}"
    litres = sum(int(a.split()[0].replace(",", "")) for a in amounts)
    return f"{litres:,} L"


FORMATS: dict[str, Callable[[str, Sequence[str], list[list[str]]], str]] = {
    "transposed": _transposed,
    "ini": _ini,
    "xml": _xml,
    "logfmt": _logfmt,
    "grouped": _grouped,
}
"""How the tool prints a dataset."""

_BEFORE = (
    "can you pull the {d} list? mainly after the {k} line",
    "need to check on the {k}, bring up {d}",
    "show me {d}, i want to see where we are with the {k}",
    "get {d} up would you, the {k} one is what i'm worried about",
)
_AFTER = (
    "and the {k}, is that one on track?",
    "what about the {k} row, anything odd there?",
    "ok. the {k}, that's the one i need to keep an eye on",
    "the {k} bit looks right to you?",
)
_LATER = (
    "going back to {d} from earlier, the {k} row, where are we with that",
    "remind me about the {k} from that {d} list",
    "that {d} printout a while back, the {k} entry, is it still right?",
    "did we ever sort the {k}? it was in the {d} list",
)
_ANSWERS = (
    "It's in the list above; nothing flagged against it.",
    "That row looks in order from what the tool returned.",
    "Nothing unusual on that one as far as I can see.",
    "It matches what the tool showed; no warnings on it.",
)


def _cell(w: Writer11, field: int, dataset: str) -> str:
    r = w.rng
    if field == 2:
        return w.code("AA99-999") if dataset != "kegs" else w.code("KG-9A99")
    if field == 3:
        if dataset == "fermenters":
            return w.fresh(lambda: f"{r.randint(100, 340) * 10:,} L")
        lo, hi = (40, 600) if dataset == "kegs" else (120, 4800)
        return w.fresh(lambda: f"£{r.randint(lo, hi):,}.{r.choice((0, 20, 40, 50, 75, 80)):02d}")
    return w.fresh(lambda: f"{r.randint(10, 28)} {SHORT[r.choice(MONTHS)]} 2027")


def _detail(w: Writer11, dataset: str) -> str:
    r = w.rng
    if dataset == "fermenters":
        return f"FV{r.randint(1, 9)}"
    if dataset == "kegs":
        return str(r.randint(2, 14))
    return f"{r.randint(1, 40) * 5} kg"


def _aliases(value: str) -> tuple[str, ...]:
    if not value.endswith(" 2027"):
        return ()
    d, m, _ = value.split()
    month = next(x for x in MONTHS if x.startswith(m))
    return (f"{d} {month} 2027", f"{month} {d}, 2027")


def _write(w: Writer11, turns: int, facts: int) -> None:
    r = w.rng
    names = list(DATASETS)
    spare = {d: r.sample(DATASETS[d][1], len(DATASETS[d][1])) for d in names}
    shapes = [list(FORMATS)[k % len(FORMATS)] for k in range(facts)]
    r.shuffle(shapes)
    ways = [("before", "after", "later")[k % 3] for k in range(facts)]
    r.shuffle(ways)
    last = turns - 8
    starts = sorted(r.randint(2, last) for _ in range(facts))
    events: list[tuple[int, Callable[[], None]]] = []
    targets: set[str] = set()

    for k in range(facts):
        dataset = names[k % 3] if k >= 3 else names[k]
        dataset = r.choice(names) if r.random() < 0.3 else dataset
        keys = spare[dataset]
        key = next(x for x in keys if x not in targets)
        targets.add(key)
        way, shape, field = ways[k], shapes[k], r.choice((2, 3, 4))

        def fetch(dataset: str = dataset, key: str = key, way: str = way, shape: str = shape,
                  field: int = field) -> None:  # fmt: skip
            cols = DATASETS[dataset][0]
            others = [x for x in spare[dataset] if x not in targets]
            rows_keys = [key, *r.sample(others, r.randint(2, 4))]
            r.shuffle(rows_keys)
            rows = [
                [x, _detail(w, dataset), *(_cell(w, f, dataset) for f in (2, 3, 4))]
                for x in rows_keys
            ]
            ask = r.choice(_BEFORE if way == "before" else ("pull up {d} please",
                                                             "what's on {d} right now",
                                                             "list {d} for me"))  # fmt: skip
            w.user(ask.replace("{d}", dataset).replace("{k}", key))
            row = rows[rows_keys.index(key)]
            content = FORMATS[shape](dataset, cols, rows)
            if content.count(row[field]) != 1:  # '5 Nov 2027' in '15 Nov 2027', or a total
                raise Collision(f"{row[field]!r} inside another cell")
            result = w.tool(
                "brewhouse",
                {"list": dataset},
                content,
                lead=r.choice((None, "Fetching that now.")),
            )
            w.plant(KINDS[field], row[field], result, aliases=_aliases(row[field]))
            w.say("assistant", r.choice(("Here's the current list.", "That's what's on file.",
                                         "Here it is, straight from the system.")))  # fmt: skip
            if way == "after":
                for _ in range(r.randint(0, 2)):
                    w.chatter()
                w.user(r.choice(_AFTER).replace("{k}", key))
                w.say("assistant", r.choice(_ANSWERS))

        def later(dataset: str = dataset, key: str = key) -> None:
            w.user(r.choice(_LATER).replace("{d}", dataset).replace("{k}", key))
            w.say("assistant", r.choice(_ANSWERS))

        start = starts[k] if way != "later" else min(starts[k], r.randint(2, turns - 45))
        events.append((start, fetch))
        if way == "later":
            events.append((min(start + r.randint(30, 90), turns - 4), later))
    timeline(w, turns, events)


KINDS: dict[int, FactKind] = {2: "code", 3: "value", 4: "date"}


def generate(seed: int, *, turns: int = 420, facts: int = 20) -> Trajectory:
    """A brewer's conversation with ``facts`` cells planted in tool results (see the module)."""
    return build(
        seed,
        "b11-tables",
        turns,
        facts,
        _write,
        "You are an assistant for the head brewer of a small brewery, with access to the "
        "brewhouse system.",
        writer=writer("brewer"),
        prefix="blind11",
    )
