"""``b5-described``: a tool's table, and a later turn naming one row by how it stands out.

Tool results come back as markdown tables, CSV, space-aligned columns or JSON arrays of
records (hotels, pods, flights, flats, laptops, invoices, trains, classes, volumes, quotes).
One to six turns later the user points at a row without quoting its key ("the cheaper of the
two Lisbon ones", "that pod that keeps restarting", "the Ribeira one"); the fact is another cell
of that row (a reference, a node, a flight number, an address...), in the tool result only.
Some tables are never pointed at.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from evals.families.blind5.base import Writer, build, spread
from evals.families.trajectories import Trajectory

__all__ = ["FORMATS", "generate"]

SYSTEM = (
    "You are an assistant with search and ops tools. Tool results come back as tables; help "
    "the user pick from them and act on what they choose."
)
Row = dict[str, str]
FORMATS = ("markdown", "csv", "aligned", "json")


def render(fmt: str, columns: list[str], rows: list[Row]) -> str:
    """``rows`` printed as ``fmt``."""
    if fmt == "json":
        return json.dumps([{c: r[c] for c in columns} for r in rows], ensure_ascii=False)
    if fmt == "csv":
        lines = [",".join(columns)]
        lines += [",".join(f'"{r[c]}"' if "," in r[c] else r[c] for c in columns) for r in rows]
        return "\n".join(lines)
    if fmt == "markdown":
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(r[c] for c in columns) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(c), *(len(r[c]) for r in rows)) for c in columns]
    out = ["  ".join(c.upper().ljust(n) for c, n in zip(columns, widths, strict=True))]
    out += ["  ".join(r[c].ljust(n) for c, n in zip(columns, widths, strict=True)) for r in rows]
    return "\n".join(line.rstrip() for line in out)


# A domain: (tool, request templates, columns, row maker, fact column, pickers). A picker
# takes the rows and returns (index of the row pointed at, the user's follow-up) or None.
Picker = Callable[[Writer, list[Row]], tuple[int, str] | None]


def _num(cell: str) -> float:
    return float("".join(c for c in cell if c.isdigit() or c == ".") or 0)


def _extreme(col: str, low: bool, phrases: tuple[str, ...]) -> Picker:
    def pick(w: Writer, rows: list[Row]) -> tuple[int, str] | None:
        values = [_num(r[col]) for r in rows]
        best = min(values) if low else max(values)
        if values.count(best) != 1:
            return None
        return values.index(best), w.rng.choice(phrases)

    return pick


def _pair(group: str, col: str, low: bool, phrases: tuple[str, ...]) -> Picker:
    """The cheaper (or bigger...) of the two rows sharing a ``group`` cell."""

    def pick(w: Writer, rows: list[Row]) -> tuple[int, str] | None:
        for g in sorted({r[group] for r in rows}):
            idx = [i for i, r in enumerate(rows) if r[group] == g]
            if len(idx) == 2 and _num(rows[idx[0]][col]) != _num(rows[idx[1]][col]):
                a, b = idx
                first = (_num(rows[a][col]) < _num(rows[b][col])) == low
                return (a if first else b), w.rng.choice(phrases).replace("{g}", g)
        return None

    return pick


def _unique(col: str, phrases: tuple[str, ...], word: bool = False) -> Picker:
    """The only row whose ``col`` cell (or one word of it) no other row shares."""

    def pick(w: Writer, rows: list[Row]) -> tuple[int, str] | None:
        order = list(range(len(rows)))
        w.rng.shuffle(order)
        for i in order:
            cells = rows[i][col].replace("-", " ").split() if word else [rows[i][col]]
            for cell in cells:
                if len(cell) < 4:
                    continue
                if sum(cell.lower() in r[col].lower() for r in rows) == 1:
                    return i, w.rng.choice(phrases).replace("{g}", cell)
        return None

    return pick


HOTEL_NAMES = (
    "Casa Ribeira",
    "Hotel Miradouro",
    "Pensão Azul",
    "The Lantern Rooms",
    "Alfama Loft",
    "Hotel Sereno",
    "Quinta Verde",
    "Palacete Sol",
    "Baixa House",
    "The Tiled Door",
)
CITIES = ("Lisbon", "Porto", "Seville", "Valencia", "Bordeaux")
SERVICES = ("payments", "checkout", "search", "ledger", "mailer", "thumbnailer", "auth")
AREAS = ("Leith", "Gorgie", "Morningside", "Portobello", "Stockbridge", "Bruntsfield")
BRANDS = ("Lenovo ThinkPad", "Dell XPS", "Framework", "Asus Zenbook", "HP EliteBook", "Acer Swift")
SUPPLIERS = (
    "Brightline Print",
    "Harbour Paper Co",
    "Nettle Catering",
    "Kestrel IT",
    "Oakmoor Hire",
    "Wrenfield Cleaning",
    "Tallis Couriers",
)
CLASSES = ("spin", "yoga flow", "kettlebells", "pilates", "boxfit", "aqua aerobics")
TRADES = ("roofer", "roofer", "plumber", "plumber", "electrician", "joiner")
COMPANIES = (
    "Ashdown",
    "Brook & Sons",
    "Castlegate",
    "Dunmore",
    "Elmfield",
    "Fairhaven",
    "Greyfriars",
)


def _distinct(w: Writer, pool: tuple[str, ...]) -> str:
    """A label from ``pool`` no other row of the table being written has."""
    taken = w.labels
    value = w.rng.choice([p for p in pool if p not in taken])
    taken.add(value)
    return value


def _hotel(w: Writer) -> Row:
    r = w.rng
    return {
        "hotel": _distinct(w, HOTEL_NAMES),
        "city": r.choice(CITIES[:2]),
        "per_night": f"€{r.randint(58, 240)}",
        "rating": f"{r.randint(70, 98) / 10:.1f}",
        "ref": w.code("HB-99999"),
    }


def _pod(w: Writer) -> Row:
    r = w.rng
    return {
        "name": w.fresh(lambda: f"{r.choice(SERVICES)}-{w.code('9a9a9').lower()}"),
        "status": r.choice(("Running", "Running", "Running", "Completed")),
        "restarts": str(r.randint(0, 2)),
        "age": f"{r.randint(2, 40)}d",
        "node": w.fresh(lambda: f"ip-10-0-{r.randint(10, 250)}-{r.randint(10, 250)}"),
    }


def _flight(w: Writer) -> Row:
    r = w.rng
    return {
        "flight": w.fresh(
            lambda: f"{r.choice(('TP', 'FR', 'U2', 'IB', 'VY'))} {r.randint(1000, 9899)}"
        ),
        "departs": w.time(),
        "stops": r.choice(("0", "1", "1", "2")),
        "fare": f"£{r.randint(48, 390)}",
    }


def _flat(w: Writer) -> Row:
    r = w.rng
    return {
        "address": w.fresh(
            lambda: (
                f"{r.randint(2, 190)} {r.choice(('Dalry', 'Easter', 'Comely', 'Iona', 'Lutton'))} "
                f"{r.choice(('Road', 'Place', 'Street', 'Terrace'))}"
            )
        ),
        "area": r.choice(AREAS[:3]),
        "beds": str(r.randint(1, 3)),
        "rent_pcm": f"£{r.randint(8, 21) * 50 + 25}",
    }


def _laptop(w: Writer) -> Row:
    r = w.rng
    return {
        "model": w.fresh(lambda: f"{r.choice(BRANDS)} {r.randint(13, 16)}"),
        "ram": f"{r.choice((8, 16, 16, 32))}GB",
        "weight_kg": f"{r.randint(10, 24) / 10:.1f}",
        "sku": w.code("AAA-9999-A"),
    }


def _invoice(w: Writer) -> Row:
    r = w.rng
    return {
        "invoice": w.code("INV-99999"),
        "supplier": _distinct(w, SUPPLIERS),
        "amount": w.money(90, 6400, cents=True),
        "status": r.choice(("paid", "paid", "due", "due")),
    }


def _train(w: Writer) -> Row:
    r = w.rng
    return {
        "service": w.code("9A99"),
        "departs": w.time(),
        "duration": f"{r.randint(2, 5)}h{r.randint(0, 11) * 5:02d}",
        "changes": r.choice(("1", "1", "2")),
        "platform": str(r.randint(1, 14)),
    }


def _klass(w: Writer) -> Row:
    r = w.rng
    return {
        "class": _distinct(w, CLASSES),
        "instructor": w.person(),
        "spaces": str(r.randint(0, 18)),
        "studio": r.choice(("A", "B", "pool", "main hall")),
    }


def _volume(w: Writer) -> Row:
    r = w.rng
    return {
        "filesystem": w.fresh(lambda: f"/dev/nvme{r.randint(0, 3)}n1p{r.randint(1, 9)}"),
        "size": f"{r.choice((50, 100, 200, 500))}G",
        "use%": f"{r.randint(12, 74)}%",
        "mounted_on": _distinct(w, ("/", "/var", "/home", "/srv/data", "/opt", "/tmp")),
    }


def _quote(w: Writer) -> Row:
    r = w.rng
    return {
        "company": _distinct(w, COMPANIES),
        "trade": r.choice(TRADES),
        "quote": w.money(300, 9000, sign="£"),
        "reviews": f"{r.randint(30, 50) / 10:.1f}",
        "contact": w.person(),
    }


DOMAINS: dict[str, dict[str, Any]] = {
    "hotels": {
        "kind": "code",
        "tool": "search_hotels",
        "asks": (
            "find me somewhere to stay, Lisbon or Porto, nothing fancy",
            "hotels for the long weekend please, I'm flexible between Lisbon and Porto",
        ),
        "row": _hotel,
        "fact": "ref",
        "pickers": (
            _pair(
                "city",
                "per_night",
                True,
                (
                    "ok book the cheaper of the two {g} ones",
                    "the less pricey {g} place, go for it",
                    "let's do the cheaper {g} hotel",
                ),
            ),
            _extreme(
                "rating", False, ("grab the best-rated one", "whichever scored highest, book that")
            ),
            _unique("hotel", ("the {g} one looks cute, book that", "go with {g}"), word=True),
        ),
    },
    "pods": {
        "kind": "code",
        "tool": "kubectl_get_pods",
        "asks": ("what's running in prod right now?", "list the pods in the prod namespace"),
        "row": _pod,
        "fact": "node",
        "special": ("status", "CrashLoopBackOff", "restarts"),
        "pickers": (
            "special",
            _unique(
                "name",
                ("what's up with the {g} pod?", "cordon the node the {g} pod is on"),
                word=True,
            ),
        ),
    },
    "flights": {
        "kind": "code",
        "tool": "search_flights",
        "asks": ("flights to Porto on the Friday?", "what flights are there for the trip out"),
        "row": _flight,
        "fact": "flight",
        "pickers": (
            _extreme("fare", True, ("the cheapest, book it", "just take the cheapest fare")),
            _extreme(
                "departs", True, ("the earliest one please", "first thing in the morning one")
            ),
            _extreme("departs", False, ("the last one of the day", "the latest departure works")),
        ),
    },
    "flats": {
        "kind": "value",
        "tool": "search_rentals",
        "asks": ("any flats to rent that fit our budget?", "check the rental listings again"),
        "row": _flat,
        "fact": "address",
        "pickers": (
            _pair(
                "area",
                "rent_pcm",
                True,
                (
                    "set up a viewing for the cheaper {g} one",
                    "the cheaper of the two in {g}, can we see it",
                ),
            ),
            _extreme(
                "beds", False, ("the biggest one, how do we view it", "the one with most bedrooms")
            ),
        ),
    },
    "laptops": {
        "kind": "code",
        "tool": "compare_laptops",
        "asks": ("compare some laptops for my brother, uni use", "laptops under a grand?"),
        "row": _laptop,
        "fact": "sku",
        "pickers": (
            _extreme(
                "weight_kg", True, ("the lightest one, add it to the basket", "lightest please")
            ),
            _unique("model", ("the {g} — put that in the basket", "go for the {g}"), word=True),
        ),
    },
    "invoices": {
        "kind": "code",
        "tool": "list_invoices",
        "asks": ("pull up this month's supplier invoices", "which invoices came in this month?"),
        "row": _invoice,
        "fact": "invoice",
        "pickers": (
            _extreme(
                "amount", False, ("chase the big one", "flag the largest invoice to accounts")
            ),
            _unique("supplier", ("pay the {g} one today", "query the {g} invoice"), word=True),
        ),
    },
    "trains": {
        "kind": "code",
        "tool": "train_times",
        "asks": ("trains to York tomorrow?", "what trains are there back on Sunday"),
        "row": _train,
        "fact": "service",
        "pickers": (
            _extreme(
                "changes",
                True,
                ("the one with fewest changes", "I'll take the one with one change"),
            ),
            _extreme("duration", True, ("the fastest one", "whichever gets there quickest")),
        ),
    },
    "classes": {
        "kind": "name",
        "tool": "gym_timetable",
        "asks": ("what classes are on at the gym tomorrow evening", "gym timetable for tonight?"),
        "row": _klass,
        "fact": "instructor",
        "pickers": (
            _unique("class", ("who's taking the {g} class?", "sign me up for {g}"), word=False),
            _extreme("spaces", False, ("the one with the most spaces left", "the emptiest class")),
        ),
    },
    "volumes": {
        "kind": "code",
        "tool": "disk_usage",
        "asks": ("disk usage on the build box?", "df on the db host please"),
        "row": _volume,
        "fact": "filesystem",
        "special": ("use%", "97%", None),
        "pickers": ("special",),
    },
    "quotes": {
        "kind": "name",
        "tool": "compare_quotes",
        "asks": ("show me the quotes we got for the house work", "line up the tradespeople quotes"),
        "row": _quote,
        "fact": "contact",
        "pickers": (
            _pair(
                "trade",
                "quote",
                True,
                (
                    "the cheaper {g}, who do I ring",
                    "the cheaper of the two {g}s, get them booked",
                ),
            ),
            _extreme("reviews", False, ("whoever has the best reviews", "the best-reviewed one")),
        ),
    },
}
SPECIAL_PHRASES = {
    "pods": (
        "that pod that keeps restarting, which node is it on?",
        "the one in crashloop — drain its node",
        "what about the one that keeps falling over",
    ),
    "volumes": (
        "the nearly full one, what device is that?",
        "clean up whatever's almost out of space",
        "which disk is the one about to fill up",
    ),
}
REPLIES = (
    "On it.",
    "Done, I've gone ahead with that one.",
    "Sure, sorting that row out now.",
    "Okay, that's the one I'll use.",
    "Good pick, I've actioned it.",
    "Right, handled.",
)
AFTER_TABLE = (
    "Here's what came back.",
    "These are the results.",
    "That's the full list.",
    "Here you go, sorted as the tool returned them.",
    "A few options here.",
)


def generate(seed: int, *, turns: int = 330, facts: int = 20) -> Trajectory:
    """A ``b5-described`` conversation: ``facts`` tables each pointed at by a description."""
    return build(seed, "b5-described", turns, facts, _write, SYSTEM)


def _table(w: Writer, name: str) -> tuple[list[str], list[Row], tuple[int, str] | None]:
    """A table of domain ``name`` and the pick the user will make from it (or None)."""
    r = w.rng
    d = DOMAINS[name]
    for _ in range(40):
        w.labels.clear()
        rows = [d["row"](w) for _ in range(r.randint(3, 6))]
        if name == "hotels" or name == "flats" or name == "quotes":
            group = {"hotels": "city", "flats": "area", "quotes": "trade"}[name]
            if not any(sum(x[group] == y[group] for y in rows) == 2 for x in rows):
                continue
        picker = r.choice(d["pickers"])
        if picker == "special":
            col, mark, bump = d["special"]
            i = r.randrange(len(rows))
            rows[i][col] = mark
            if bump:
                rows[i][bump] = str(r.randint(14, 90))
            pick: tuple[int, str] | None = (i, r.choice(SPECIAL_PHRASES[name]))
        else:
            pick = picker(w, rows)
        if pick is not None:
            return list(rows[0]), rows, pick
    raise AssertionError("no table with a row that stands out")  # pragma: no cover


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    starts = set(spread(r, turns, facts, 8))
    names = list(DOMAINS)
    deck: list[str] = []
    pending: dict[int, tuple[int, str, str]] = {}
    for t in range(turns):
        if t in starts or (t not in pending and r.random() < 0.05):
            if not deck:
                deck = r.sample(names, len(names))
            name = deck.pop()
            columns, rows, pick = _table(w, name)
            d = DOMAINS[name]
            w.user(r.choice(d["asks"]))
            fmt = r.choice(FORMATS)
            at = w.tool(d["tool"], {"format": fmt}, render(fmt, columns, rows))
            w.say("assistant", r.choice(AFTER_TABLE))
            if t in starts and pick is not None:
                i, phrase = pick
                later = t + r.randint(1, 6)
                while later in pending or later in starts:
                    later += 1
                pending[later] = (at, rows[i][d["fact"]], phrase)
                w.plant(d["kind"], rows[i][d["fact"]], at)
        elif t in pending:
            _, _, phrase = pending.pop(t)
            w.user(phrase)
            w.say("assistant", r.choice(REPLIES))
        else:
            w.chatter()
    if pending:  # pragma: no cover - spread leaves room for every follow-up
        raise AssertionError("a follow-up fell past the last turn")
